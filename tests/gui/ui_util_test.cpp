// app/gui/ui_util.cpp's layout helpers in a headless ImGui frame.
#include "app/gui/ui_util.h"

#include <gtest/gtest.h>

#include "tests/widgets/headless_imgui.h"

namespace headroom::gui {
namespace {

using widgets::testing::begin_frame;
using widgets::testing::create_headless_imgui_context;
using widgets::testing::end_frame;

// Whether same_line_if_fits put an item `width` wide beside the last one (true) or under it.
bool beside(float width, float wrap_at) {
  begin_frame(ImVec2(-1, -1));
  if (wrap_at > 0) ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + wrap_at);
  ImGui::TextUnformatted("min singular value");
  const float first_y = ImGui::GetItemRectMin().y;
  same_line_if_fits(width);
  ImGui::Dummy(ImVec2(width, 1));
  const bool same_row = ImGui::GetItemRectMin().y == first_y;
  if (wrap_at > 0) ImGui::PopTextWrapPos();
  end_frame();
  return same_row;
}

// In a column narrower than the window (PushTextWrapPos), an item that fits the window but not the
// column goes to the next row: text there would be split at the wrap position ("0." / "959").
TEST(SameLineIfFits, RespectsTheWindowAndATextWrapPosition) {
  create_headless_imgui_context();
  begin_frame(ImVec2(-1, -1));  // text sizes need a frame's font
  const float label = ImGui::CalcTextSize("min singular value").x;
  const float number = ImGui::CalcTextSize("0.959").x;
  end_frame();
  EXPECT_TRUE(beside(number, 0.0f)) << "a 1000 px window has room";
  EXPECT_FALSE(beside(2000.0f, 0.0f)) << "wider than the window";
  EXPECT_TRUE(beside(number, label + 2 * number)) << "the column has room";
  EXPECT_FALSE(beside(number, label + 0.5f * number)) << "the column has no room";
  ImGui::DestroyContext();
}

}  // namespace
}  // namespace headroom::gui

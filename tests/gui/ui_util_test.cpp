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

TEST(ElideMiddle, KeepsBothEndsAndFitsTheWidth) {
  create_headless_imgui_context();
  begin_frame(ImVec2(-1, -1));
  const std::string name = "th-threshold-n32-batch8/logits-proj-dk16-b8 - fixed-head-dk16-b8/d_k=16,d_v=16";
  const float whole = ImGui::CalcTextSize(name.c_str()).x;
  EXPECT_EQ(elide_middle(name, whole), name) << "it fits: unchanged";
  const float width = whole / 2;
  const std::string cut = elide_middle(name, width);
  EXPECT_LE(ImGui::CalcTextSize(cut.c_str()).x, width);
  ASSERT_NE(cut.find("..."), std::string::npos) << cut;
  EXPECT_EQ(cut.substr(0, 6), "th-thr") << "the start stays";
  EXPECT_EQ(cut.substr(cut.size() - 4), "v=16") << "the end stays";
  EXPECT_GT(cut.size(), name.size() / 3) << "it keeps as much as fits: " << cut;
  // The longest cut that fits: one more character would not (it leaves less than the widest one).
  EXPECT_GT(ImGui::CalcTextSize(cut.c_str()).x, width - 1.5f * ImGui::CalcTextSize("W").x) << cut;
  // Multi-byte characters are never split.
  const std::string greek = "\xce\xbb\xce\xbb\xce\xbb\xce\xbb\xce\xbb\xce\xbb\xce\xbb\xce\xbb";
  const std::string g = elide_middle(greek, ImGui::CalcTextSize(greek.c_str()).x * 0.6f);
  ASSERT_NE(g, greek);
  for (std::size_t i = 0; i + 1 < g.size(); ++i) {
    if (static_cast<unsigned char>(g[i]) == 0xce) {
      EXPECT_EQ(static_cast<unsigned char>(g[i + 1]), 0xbb) << g;
    }
  }
  EXPECT_NE(static_cast<unsigned char>(g.back()), 0xce) << "no half character at the end";
  EXPECT_EQ(elide_middle(name, 1.0f), "...") << "nothing fits: the dots alone";
  end_frame();
}

}  // namespace
}  // namespace headroom::gui

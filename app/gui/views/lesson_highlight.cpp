#include "app/gui/views/lesson_highlight.h"

#include <imgui.h>
#include <imgui_internal.h>  // the window's clip rectangle

#include <algorithm>
#include <cmath>

namespace headroom::gui {
namespace {

std::vector<std::string> g_wanted;
std::vector<std::string> g_drawn;
std::vector<std::string> g_cut_off;
bool g_scrolled = false;  // a highlighted control was scrolled into view this frame

void add_once(std::vector<std::string>& names, const char* name) {
  if (std::find(names.begin(), names.end(), name) == names.end()) names.emplace_back(name);
}

}  // namespace

void begin_highlights(const std::vector<std::string>& controls) {
  g_wanted = controls;
  g_drawn.clear();
  g_cut_off.clear();
  g_scrolled = false;
}

bool is_highlighted(const char* control) {
  return std::find(g_wanted.begin(), g_wanted.end(), control) != g_wanted.end();
}

void highlight_item(const char* control) {
  const ImRect clip = ImGui::GetCurrentWindow()->ClipRect;
  // Starts inside the panel and ends past its right edge (half a pixel for rounding): cut off. A
  // control wholly outside (scrolled away sideways) or below the fold (scrolling shows it) is not.
  const float left = ImGui::GetItemRectMin().x, right = ImGui::GetItemRectMax().x;
  if (left < clip.Max.x && right > clip.Max.x + 0.5f) add_once(g_cut_off, control);
  if (!is_highlighted(control)) return;
  // Recorded only when wholly on screen: a control cut off at the panel's edge was not shown.
  const bool shown = clip.Contains(ImRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax()));
  if (shown) add_once(g_drawn, control);
  // Below the fold (a column of controls in large type): scroll it into view, the first one a frame.
  if (!shown && !g_scrolled) {
    ImGui::SetScrollHereY(0.25f);
    g_scrolled = true;
  }
  // A frame that breathes slowly: visible from the back of a room, never flashing.
  const float pulse = 0.75f + 0.25f * std::sin(static_cast<float>(ImGui::GetTime()) * 3.0f);
  ImVec4 accent = ImGui::GetStyle().Colors[ImGuiCol_CheckMark];
  accent.w = pulse;
  const float pad = ImGui::GetStyle().FramePadding.y;
  // Kept inside the panel by the line's half width: a control at its top or left edge lost that
  // side of its frame to the clip rectangle.
  const float thickness = 3.0f, inset = thickness * 0.5f;
  const ImVec2 lo(std::max(ImGui::GetItemRectMin().x - pad, clip.Min.x + inset),
                  std::max(ImGui::GetItemRectMin().y - pad, clip.Min.y + inset));
  const ImVec2 hi(std::min(ImGui::GetItemRectMax().x + pad, clip.Max.x - inset),
                  std::min(ImGui::GetItemRectMax().y + pad, clip.Max.y - inset));
  ImGui::GetWindowDrawList()->AddRect(lo, hi, ImGui::GetColorU32(accent), 4.0f, 0, thickness);
}

const std::vector<std::string>& highlights_drawn() { return g_drawn; }

const std::vector<std::string>& controls_cut_off() { return g_cut_off; }

}  // namespace headroom::gui

#include "app/gui/ui_util.h"

#include <imgui_internal.h>  // FindRenderedTextEnd: the label without its "##id"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>

#include "widgets/text_wrap.h"

namespace headroom::gui {

namespace {
std::string g_last_tooltip;
float g_last_tooltip_width_em = 0.0f;
int g_last_tooltip_frame = -1;
}  // namespace

void show_tooltip(const char* text) {
  // As ImGui::SetTooltip (it replaces a tooltip shown earlier in the frame), but a text wider than
  // 30 em wraps at spaces instead of running off the window.
  ImGui::BeginTooltipEx(ImGuiTooltipFlags_OverridePreviousTooltip, ImGuiWindowFlags_None);
  const float wrap = ImGui::GetFontSize() * 30.0f;
  if (ImGui::CalcTextSize(text).x > wrap) {
    ImGui::PushTextWrapPos(wrap);
    widgets::TextWrappedAtSpaces(text);
    ImGui::PopTextWrapPos();
  } else {
    ImGui::TextUnformatted(text);
  }
  // The window's width as its last frame laid it out (a tooltip shown for a while has settled).
  g_last_tooltip_width_em = ImGui::GetWindowWidth() / ImGui::GetFontSize();
  ImGui::EndTooltip();
  g_last_tooltip = text;
  g_last_tooltip_frame = ImGui::GetFrameCount();
}

void tooltip(const char* text) {
  if (ImGui::IsItemHovered()) show_tooltip(text);
}

std::string last_tooltip() {
  return g_last_tooltip_frame >= ImGui::GetFrameCount() - 1 ? g_last_tooltip : std::string();
}

float last_tooltip_width_em() {
  return g_last_tooltip_frame >= ImGui::GetFrameCount() - 1 ? g_last_tooltip_width_em : 0.0f;
}

void help_marker(const char* text) {
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  tooltip(text);
}

namespace {
std::string vformat(const char* fmt, va_list args) {
  va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, fmt, again);
  va_end(again);
  std::string text(n > 0 ? static_cast<size_t>(n) : 0, '\0');
  if (n > 0) std::vsnprintf(text.data(), text.size() + 1, fmt, args);
  return text;
}
}  // namespace

bool wrapped_unformatted(std::string_view text, int max_lines) { return widgets::TextWrappedAtSpaces(text, max_lines); }

std::string glued(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 8);
  for (const char c : text) out += c == ' ' ? std::string_view("\xC2\xA0") : std::string_view(&c, 1);
  return out;
}

namespace {
// The formatted text, wrapped at spaces, in `color` (nullptr: the current text colour).
void wrapped_in(const ImVec4* color, const char* fmt, va_list args) {
  const std::string text = vformat(fmt, args);
  if (color) ImGui::PushStyleColor(ImGuiCol_Text, *color);
  widgets::TextWrappedAtSpaces(text);
  if (color) ImGui::PopStyleColor();
}
}  // namespace

void wrapped_text(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  wrapped_in(nullptr, fmt, args);
  va_end(args);
}

void wrapped_text_disabled(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  wrapped_in(&ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled), fmt, args);
  va_end(args);
}

void wrapped_text_colored(const ImVec4& color, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  wrapped_in(&color, fmt, args);
  va_end(args);
}

bool item_runs_past_edge() {
  return ImGui::GetItemRectMax().x > ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x + 0.5f;
}

FittingTabs fitting_tab_labels(const TabLabel* tabs, int count, float avail) {
  float full = 0.0f;
  for (int i = 0; i < count; ++i)
    full += ImGui::TabItemCalcSize(tabs[i].full, false).x + (i > 0 ? ImGui::GetStyle().ItemInnerSpacing.x : 0.0f);
  FittingTabs out;
  out.brief = full > avail;
  out.labels.reserve(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i)
    out.labels.push_back(std::string(out.brief ? tabs[i].brief : tabs[i].full) + "###" + tabs[i].full);
  return out;
}

bool tab_label_cut(const char* label) {
  return ImGui::GetItemRectSize().x + 0.5f < ImGui::TabItemCalcSize(label, false).x;
}

void problem_text(const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, kProblem);
  ImGui::PushTextWrapPos(0.0f);
  widgets::TextWrappedAtSpaces(text);
  ImGui::PopTextWrapPos();
  ImGui::PopStyleColor();
}

std::string human_count(double v) {
  char buf[32];
  const double a = std::abs(v);
  if (a >= 1e9) std::snprintf(buf, sizeof buf, "%.3gG", v / 1e9);
  else if (a >= 1e6) std::snprintf(buf, sizeof buf, "%.3gM", v / 1e6);
  else if (a >= 1e4) std::snprintf(buf, sizeof buf, "%.3gk", v / 1e3);
  else std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

std::string format_number(double v, const char* fmt) {
  if (!std::isfinite(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string elide_middle(const std::string& text, float width) { return widgets::elide_middle(text, width); }

void same_line_if_fits(float width) {
  const float right = ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x;
  float limit = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  // Inside PushTextWrapPos (a column narrower than the window), text wraps at that position: an
  // item that only fits the window would be split there ("0." / "959").
  const ImGuiWindow* window = ImGui::GetCurrentWindowRead();
  if (window->DC.TextWrapPos > 0.0f) limit = std::min(limit, window->Pos.x - window->Scroll.x + window->DC.TextWrapPos);
  if (right + width <= limit) ImGui::SameLine();
}

float labelled_width(float frame_width, const char* label) {
  const char* end = ImGui::FindRenderedTextEnd(label);
  const float text = ImGui::CalcTextSize(label, end).x;
  return frame_width + (text > 0 ? ImGui::GetStyle().ItemInnerSpacing.x + text : 0.0f);
}

float combo_width(const char* const* items, int count) {
  float widest = 0.0f;
  for (int i = 0; i < count; ++i) widest = std::max(widest, ImGui::CalcTextSize(items[i]).x);
  return widest + 2.0f * ImGui::GetStyle().FramePadding.x + ImGui::GetFrameHeight();
}

}  // namespace headroom::gui

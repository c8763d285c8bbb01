// Small ImGui helpers every view uses: hover tooltips, "(?)" help markers, the problem colour,
// and compact number formats.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace headroom::gui {

// Text that explains what is wrong (bad input, a failed run, a file that is not ours).
inline const ImVec4 kProblem(1.0f, 0.45f, 0.40f, 1.0f);

// A tooltip on the item drawn last, when it is hovered; a text wider than 30 em wraps at spaces.
void tooltip(const char* text);
inline void tooltip(const std::string& text) { tooltip(text.c_str()); }
// A tooltip now, whatever is hovered (the caller has decided), wrapped and recorded like tooltip()'s.
void show_tooltip(const char* text);
// The text tooltip() or show_tooltip() showed in the latest frame, "" if none: --state-out
// reports it, so a test can hover an item and read what it said.
std::string last_tooltip();
// That tooltip's width in em (its font's size), 0 if none: long texts wrap at 30 em.
float last_tooltip_width_em();

// A grey "(?)" after the item drawn last, with `text` wrapped in its tooltip.
void help_marker(const char* text);

// SameLine() when an item `width` pixels wide (its label included) still fits on the row, else a
// new row: a row of controls wraps on a narrow window (or at a PushTextWrapPos) instead of running
// off its edge.
void same_line_if_fits(float width);
// The width of a framed item of `frame_width` with `label` beside it.
float labelled_width(float frame_width, const char* label);
// The width of a combo box whose widest item shows whole (text, padding and the arrow).
float combo_width(const char* const* items, int count);

// Wrapped text, as ImGui::TextWrapped (at the pushed PushTextWrapPos, else the window's edge), whose
// lines break only at spaces (widgets/text_wrap.h): "5.607" and "§5.2" are never split.
void wrapped_text(const char* fmt, ...) IM_FMTARGS(1);
void wrapped_text_disabled(const char* fmt, ...) IM_FMTARGS(1);
void wrapped_text_colored(const ImVec4& color, const char* fmt, ...) IM_FMTARGS(2);
// In at most `max_lines` lines (<= 0: all), the last ending in "…" where more were left out;
// returns whether they were (show the whole text in a tooltip, say).
bool wrapped_unformatted(std::string_view text, int max_lines = 0);
// Whether the item drawn last runs past the window's content edge (a label cut off there).
bool item_runs_past_edge();
// `text` with its spaces made no-break spaces (U+00A0): a wrapped line never breaks inside it
// ("model params 470k" stays together).
std::string glued(std::string_view text);

// A tab's label, and a shorter one for a tab bar too narrow for the full labels.
struct TabLabel {
  const char* full;
  const char* brief;
};
// The labels to give a tab bar `avail` pixels wide: the full ones where they all fit, else the brief
// ones (ImGui would shrink every tab and cut each label: "Attentio..."). Each comes back as
// "shown###full", so that a tab keeps its identity, and its selection, when its label changes.
struct FittingTabs {
  std::vector<std::string> labels;
  bool brief = false;  // the brief labels were chosen (a tab's tooltip should name it in full)
};
FittingTabs fitting_tab_labels(const TabLabel* tabs, int count, float avail);
// Whether the tab item drawn last (call just after BeginTabItem) shows `label` cut short.
bool tab_label_cut(const char* label);

// Multi-line text in the problem colour, wrapped at the window's edge.
void problem_text(const std::string& text);

// 950, 12.3k, 4.56M, 7.89G (3 significant digits above 10,000).
std::string human_count(double v);

// printf with one number; "-" for NaN and infinities.
std::string format_number(double v, const char* fmt);

// `text` as it fits `width` pixels in the current font: whole, or its start and end with "..."
// between them (run names differ at both ends: a suite's prefix, a config's tail). ASCII-safe
// cuts: a UTF-8 character is never split.
std::string elide_middle(const std::string& text, float width);

}  // namespace headroom::gui

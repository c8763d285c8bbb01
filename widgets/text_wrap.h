// Word wrap that breaks lines at spaces only. Dear ImGui 1.86's wrapped text also breaks after
// '.', ',', ';', '!', '?' and '"', which splits numbers and section numbers across lines
// ("loss 5." / "607", "VB §5." / "2"); every wrapped text in Headroom goes through here instead.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace headroom::widgets {

// `text` with line breaks ('\n') where a greedy fill of lines `width` wide puts them: at a run of
// spaces, which the break replaces; hard '\n's are kept. A word wider than a whole line is cut
// where it stops fitting, between UTF-8 characters (at least one character a line). `measure` is
// the width of a piece of text; widths add up (no kerning), as in ImGui's fonts. width <= 0 leaves
// the text as it is.
std::string wrap_at_spaces(std::string_view text, float width, const std::function<float(std::string_view)>& measure);

// The first `max_lines` lines of `wrapped` (wrap_at_spaces' output for `width`); where there are
// more, the last one kept ends in "…", its last words dropped until that fits. `max_lines` <= 0
// keeps them all. *cut, when given, says whether lines were left out.
std::string keep_lines(const std::string& wrapped, int max_lines, float width,
                       const std::function<float(std::string_view)>& measure, bool* cut = nullptr);

// The width of `text` in the current ImGui font and size: the `measure` of the two above.
float current_font_width(std::string_view text);
// wrap_at_spaces, then keep_lines (max_lines <= 0: all), measured in the current font.
std::string wrap_in_current_font(std::string_view text, float width, int max_lines = 0, bool* cut = nullptr);

// `text` as it fits `width` in the current font: whole, or its start and end with "..." between
// them (names differ at both ends: a suite's prefix, a config's tail such as "seed=3"). A UTF-8
// character is never split; about log2(length) text measurements.
std::string elide_middle(std::string_view text, float width);

// ImGui::TextUnformatted wrapped at spaces, in the current font and text colour, at the current
// wrap position (PushTextWrapPos; where none is pushed, the window's edge, as ImGui::TextWrapped),
// in at most `max_lines` lines (keep_lines; <= 0: all). Returns whether lines were left out.
bool TextWrappedAtSpaces(std::string_view text, int max_lines = 0);

}  // namespace headroom::widgets

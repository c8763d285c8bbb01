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

// ImGui::TextUnformatted wrapped at spaces, in the current font and text colour, at the current
// wrap position (PushTextWrapPos; where none is pushed, the window's edge, as ImGui::TextWrapped).
void TextWrappedAtSpaces(std::string_view text);

}  // namespace headroom::widgets

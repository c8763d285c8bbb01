// Highlighted controls in a lesson step: a panel calls highlight_item("heads") right after drawing
// the control a lesson may point at; when the step highlights it, a frame in the accent colour is
// drawn around it and the name is recorded, so a lesson check can tell the control was on screen.
// Every named control is also checked for being cut off at its panel's right edge.
// One frame's set at a time (ImGui is single-threaded: these are UI-thread state).
#pragma once

#include <string>
#include <vector>

namespace headroom::gui {

// Starts a frame's highlights (an empty list: nothing is highlighted).
void begin_highlights(const std::vector<std::string>& controls);
// After drawing the control named `control` (a scene key: "heads", "theorem_dp", ...).
void highlight_item(const char* control);
// The highlighted controls drawn since begin_highlights, in drawing order, each once.
const std::vector<std::string>& highlights_drawn();
// The named controls, highlighted or not, that this frame drew running past the right edge of their
// panel (a row of buttons whose wrapping measured it too narrow): what a person sees cut off. Each
// once; the lab's --state-out lists them and the screenshot tests require none.
const std::vector<std::string>& controls_cut_off();
// True when the step highlights `control` (panels show a control they would otherwise fold away).
bool is_highlighted(const char* control);

}  // namespace headroom::gui

// Look of the GUI: fonts (DejaVu at a real pixel size for the display's scale) and
// the two themes, the default dark one and a high-contrast one for --presentation.
#pragma once

#include <string>

struct ImFont;

namespace headroom::gui {

constexpr float kBaseFontPx = 16.0f;
constexpr float kPresentationScale = 1.75f;

struct Fonts {
  ImFont* sans = nullptr;
  ImFont* mono = nullptr;  // null when DejaVuSansMono.ttf is missing
  // A lesson's text (only when asked for): DejaVu Sans regular, bold and oblique, and a title size.
  // Null where a file is missing (the text then falls back to `sans`).
  ImFont* lesson_body = nullptr;
  ImFont* lesson_bold = nullptr;
  ImFont* lesson_italic = nullptr;
  ImFont* lesson_title = nullptr;
};

// Clears the atlas and loads DejaVu Sans (default) and DejaVu Sans Mono at
// kBaseFontPx * pixel_scale, and with lesson_px > 0 the lesson fonts at that size (the title 1.2x).
// Missing files: ImGui's built-in font and a one-line warning on stderr naming the file and the
// package to install.
Fonts load_fonts(float pixel_scale, float lesson_px = 0.0f);

// The presentation scale (a lesson, or presentation mode): the UI grows with the window's height
// (1.75 at 1080 pixels, about 1.25 on a 768-pixel projector), so that a letter takes the same share
// of the wall and a 4:3 projector still fits a lesson step's panel, or the lab's maps.
float presentation_scale(int window_height);

// Resets ImGui's style to the chosen theme and scales every size by `scale`.
void apply_theme(bool presentation, float scale);

}  // namespace headroom::gui

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
};

// Clears the atlas and loads DejaVu Sans (default) and DejaVu Sans Mono at
// kBaseFontPx * pixel_scale. Missing files: ImGui's built-in font and a one-line
// warning on stderr naming the file and the package to install.
Fonts load_fonts(float pixel_scale);

// Resets ImGui's style to the chosen theme and scales every size by `scale`.
void apply_theme(bool presentation, float scale);

}  // namespace headroom::gui

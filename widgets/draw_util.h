// Drawing helpers shared by the widgets (not a public widget API): rotated text,
// label clipping, the series palette, theme-derived colors, axis ticks and grids.
#pragma once

#include <imgui.h>
#include <imgui_internal.h>

#include <vector>

#include "widgets/axis_ticks.h"
#include "widgets/plot_math.h"

namespace headroom::widgets::detail {

// Text rotated 90 degrees counter-clockwise (reads bottom-to-top), its END at
// top_center.y and centered on top_center.x: the look of rotated matplotlib tick labels.
void AddTextVertical(ImDrawList* dl, const ImFont* font, float font_size, const ImVec2& top_center, ImU32 col,
                     const char* text, const char* text_end = nullptr);

// The y-axis label a plot `plot_height` pixels tall shows, read along the axis: `label` where it
// fits, else `short_label` (a symbol such as sigma) where given, it fits and the font has its
// glyphs, else none (nullptr), so that the plot keeps no margin for a label it does not draw.
const char* fitting_y_label(const char* label, const char* short_label, float plot_height);

// `label` cut to max_chars UTF-8 code points with ".." appended when longer.
// Returns buf (or label itself when it already fits). max_chars <= 0: no limit.
const char* clip_label(const char* label, int max_chars, char* buf, int buf_size);

// Ten distinguishable series colors (matplotlib's tab10), cycling.
ImU32 palette_color(int i);

// Colors derived from the current ImGui style so widgets follow the theme.
ImU32 text_color(float alpha = 1.0f);
ImU32 grid_color();
ImU32 plot_bg_color();
ImU32 accent_color(float alpha = 1.0f);

// An interactive item of `size` at the cursor: lays it out, and runs a button's behaviour on it
// (hovered, pressed this frame). false when it is clipped: then there is nothing to draw.
bool item_box(ImGuiID id, const ImVec2& size, ImRect* bb, bool* hovered, bool* pressed);

// Widest label among ticks, in the current font.
float max_tick_label_width(const std::vector<AxisTick>& ticks);

// Grid lines + tick marks + labels below (x) or left of (y) `plot`.
// Labels that would overlap the previous one are skipped.
void draw_x_axis(ImDrawList* dl, const ImRect& plot, const AxisMap& xm, const std::vector<AxisTick>& ticks, bool grid);
void draw_y_axis(ImDrawList* dl, const ImRect& plot, const AxisMap& ym, const std::vector<AxisTick>& ticks, bool grid);

// Dashed vertical line from y0 to y1 at x.
void dashed_vline(ImDrawList* dl, float x, float y0, float y1, ImU32 col, float thickness = 1.0f, float dash = 5.0f,
                  float gap = 3.0f);

// A one-line title centered on center_x at y, kept inside [min_x, max_x] and
// ellipsized ("...") when it is wider than that.
void draw_title(ImDrawList* dl, float min_x, float max_x, float center_x, float y, ImU32 col, const char* text,
                const char* text_end = nullptr);

// Splits "Title##id" into its visible part; returns the end of the visible text.
const char* visible_text_end(const char* label);

}  // namespace headroom::widgets::detail

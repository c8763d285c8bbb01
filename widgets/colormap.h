// Colormaps for attention maps and matrices.
//
// A colormap turns a scalar into a color. Heatmaps upload thousands of cells per
// frame, so besides the per-value colormap_color() there is a bulk
// colormap_to_rgba() that works from a 256-entry lookup table.
#pragma once

#include <imgui.h>

#include <cstdint>

namespace headroom::widgets {

enum class Colormap {
  Viridis,       // matplotlib's perceptually uniform map: the default for probabilities
  Diverging,     // blue-white-red (ColorBrewer RdBu, reversed): signed values, 0 = white
  HighContrast,  // black -> white: maximum luminance range, for projectors and print
};

constexpr int kColormapCount = 3;

// Name shown in combos ("viridis", "diverging", ...).
const char* colormap_name(Colormap map);

// Parses a colormap_name(); returns false (and leaves *out alone) on an unknown name.
bool colormap_from_name(const char* name, Colormap* out);

// Color for t in [0,1] (clamped), interpolated from the map's anchor table.
// NaN maps to kColormapNanColor so missing values are visible, not black.
ImU32 colormap_color(Colormap map, float t);

// Same, as floats in [0,1] (r,g,b).
void colormap_rgb(Colormap map, float t, float rgb[3]);

constexpr ImU32 kColormapNanColor = IM_COL32(128, 128, 128, 255);

// Bulk conversion: rgba receives 4*n bytes. Values are normalized with (v-lo)/(hi-lo)
// and clamped; hi <= lo maps everything to the middle of the map. NaN -> kColormapNanColor.
// Uses a 256-step lookup table, so results may differ from colormap_color() by one step.
void colormap_to_rgba(Colormap map, const float* v, int n, float lo, float hi, uint8_t* rgba);

// Finite min/max over n values, ignoring NaN/Inf. Returns false when none is finite.
bool finite_range(const float* v, int n, float* lo, float* hi);

// Robust range: the (100 - pct)th and pct-th percentiles of the finite values
// (pct in (50, 100]; 100 = finite_range). One stray 1.0 (e.g. the first query of a
// causal map, which can only attend to itself) then does not wash out the rest.
// O(n) selection on a copy. Returns false when no value is finite.
bool percentile_range(const float* v, int n, float pct, float* lo, float* hi);

}  // namespace headroom::widgets

// Singular-value spectra of attention/projection matrices, as a bar chart with the
// two numbers the rank-bottleneck story is about:
//   - "rank": the numerical rank measured from the spectrum (bars beyond it are dimmed),
//   - "cap":  the rank theory allows (e.g. d_head for a low-rank attention logit matrix).
// When rank < cap the gap between them is shaded and labelled "k below cap".
#pragma once

#include <imgui.h>

namespace headroom::widgets {

struct SpectrumStyle {
  bool log_y = true;  // spectra span decades; linear hides the tail
  const char* x_label = "index i";
  const char* y_label = "singular value";
  const char* y_label_short = "\u03c3";  // sigma, where y_label is longer than the plot is tall
  const char* value_format = "%.4g";     // tooltip format for one singular value
  float tolerance = 0.0f;                // > 0: dashed horizontal line (the rank threshold)
  ImU32 bar_color = 0;                   // 0: the theme's accent
  ImU32 tail_color = 0;                  // bars beyond `rank`; 0: grey
};

// Bars for sv[0..n) (descending singular values; NaN/negative bars are skipped).
// rank / cap < 0 omit that marker. `title_id` uses "Title##id" like BeginPlot().
// size as in BeginPlot(). Returns the index under the mouse, or -1.
int SpectrumBars(const char* title_id, const float* sv, int n, int rank, int cap, const ImVec2& size = ImVec2(0, 0),
                 const SpectrumStyle& style = {});

}  // namespace headroom::widgets

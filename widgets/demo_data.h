// Synthetic data for the widgets demo (and for tests that need realistic input):
// causal attention maps with the textbook head patterns, a talking-heads mixing
// matrix, noisy training curves and a rank-deficient singular spectrum.
// Deterministic for a given seed. No drawing here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace headroom::widgets {

struct DemoData {
  int tokens = 0;
  std::vector<std::string> token_text;
  std::vector<const char*> token_labels;  // points into token_text

  int heads = 0;
  std::vector<std::vector<float>> head_maps;  // heads x (tokens*tokens), rows sum to 1
  std::vector<const float*> head_ptrs;
  std::vector<std::string> head_names;   // "h3 previous"
  std::vector<const char*> head_titles;  // points into head_names
  std::vector<std::string> head_short;   // "h3"
  std::vector<const char*> head_labels;

  std::vector<float> mixing;  // heads x heads, values in [-1, 1]

  int points = 0;
  std::vector<float> steps;             // 1..points (positive, so log-x works)
  std::vector<float> train;             // raw training loss
  std::vector<float> train_ema;         // smoothed
  std::vector<float> val;               // validation loss
  std::vector<float> band_lo, band_hi;  // train_ema +- rolling std

  std::vector<float> spectrum;  // descending singular values
  int rank = 0, cap = 0;
};

// tokens <= 64 (the demo sentence's length), heads >= 1, points >= 2.
DemoData make_demo_data(int tokens = 64, int heads = 16, int points = 20000, uint32_t seed = 7);

// `count` causal n x n attention maps (rows sum to 1) with varied diagonal/sink/local
// patterns: the stress test of "32 heads of 256 x 256".
std::vector<std::vector<float>> make_stress_maps(int count, int n);

// Animates the head maps in place (phase in radians); callers bump their heatmap version.
void animate_demo_maps(DemoData& d, float phase);

}  // namespace headroom::widgets

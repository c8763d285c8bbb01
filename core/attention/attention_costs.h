// Parameters and scalar multiplications of one attention layer, by TH §5 and the conventions of
// the "parameters per att. layer" and "multiplies per att. layer (n=m=512)" columns of TH
// Tables 1, 2, 3, 8 and 9 (unit tests reproduce every row).
//
// Conventions (all read off those tables):
// - self-attention with d_X = d_M = d_Y = d_model; n queries, m memory positions;
// - no biases (TH's pseudo-code has none);
// - multiplies are the naive einsum costs written beside TH's pseudo-code (§3.3, §4, app. A);
// - dynamic projections (TH app. A) count only generating R = X·P_X* / M·P_M* (n·d_X·h_k·h ...);
//   applying R to J or W is not counted — that is how Tables 8 and 9 add up;
// - general bilinear (TH §6, Table 1 last row, 7.650e9): see general_bilinear_note().
#pragma once

#include <cstdint>
#include <string>

#include "core/attention/attention_spec.h"

namespace headroom::core {

struct AttentionCosts {
  int64_t params = 0;      // parameters per attention layer
  int64_t multiplies = 0;  // scalar multiplications per layer, one sequence (batch 1)
  // The multiplies broken down the way TH's pseudo-code comments do.
  int64_t mult_projections = 0;  // Q, K, V and output projections
  int64_t mult_attention = 0;    // J = QK^T and O = UV (the n·m terms)
  int64_t mult_talking = 0;      // P_l, P_w across heads (n·m·h·h_k, n·m·h·h_v)
  int64_t mult_dynamic = 0;      // generating the dynamic projections
};

// Throws std::invalid_argument if the spec is invalid or n, m < 1.
AttentionCosts attention_costs(const AttentionSpec& spec, int64_t n, int64_t m);

// How Headroom reads TH Table 1's general-bilinear row (one paragraph, for docs and --help).
const char* general_bilinear_note();

}  // namespace headroom::core

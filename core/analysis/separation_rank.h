// VB appendix A, eq. 9: an upper bound on the separation rank of a depth-L Transformer whose
// token embedding has rank r and positional embedding rank r_e:
//   sep <= ((r + r_e multichoose 3^L)) · ((4 multichoose 3^L)) · (3^L + 1)^(r + r_e)
// where ((n multichoose k)) = C(n + k - 1, k). Its log grows like L·(r + r_e) (VB Thm 1:
// log sep = O~(L · min(r, d_x))): depth multiplies, width beyond the embedding rank adds nothing.
#pragma once

namespace headroom::core {

struct ModelSpec;

// Natural log of the eq. 9 bound. r is clipped to d_x (VB Thm 1 uses min(r, d_x)); pass
// d_x <= 0 to use r as given. Requires depth >= 1, r >= 1, r_e >= 0.
double vb_log_separation_rank_bound(int depth, int embed_rank, int pos_rank, int d_x = 0);

// Eq. 9 for a model like `spec` at width d_x and `depth`, natural log: token rank min(r, d_x, V,
// the symbols that occur in its data) -- rows never trained add no rank the data can use, VB §5.2;
// symbols <= 0: not known, V -- and positional rank min(r_pos (d_x unfactorised), d_x, n), 0
// without positions. What the lab's Depth vs width tab plots.
double model_log_separation_rank_bound(const ModelSpec& spec, int d_x, int depth, int symbols = 0);

// log of the multiset coefficient ((n multichoose k)) = C(n + k - 1, k), for real k (3^L is huge).
double log_multichoose(double n, double k);

}  // namespace headroom::core

// VB appendix A, eq. 9: an upper bound on the separation rank of a depth-L Transformer whose
// token embedding has rank r and positional embedding rank r_e:
//   sep <= ((r + r_e multichoose 3^L)) · ((4 multichoose 3^L)) · (3^L + 1)^(r + r_e)
// where ((n multichoose k)) = C(n + k - 1, k). Its log grows like L·(r + r_e) (VB Thm 1:
// log sep = O~(L · min(r, d_x))): depth multiplies, width beyond the embedding rank adds nothing.
#pragma once

namespace headroom::core {

// Natural log of the eq. 9 bound. r is clipped to d_x (VB Thm 1 uses min(r, d_x)); pass
// d_x <= 0 to use r as given. Requires depth >= 1, r >= 1, r_e >= 0.
double vb_log_separation_rank_bound(int depth, int embed_rank, int pos_rank, int d_x = 0);

// log of the multiset coefficient ((n multichoose k)) = C(n + k - 1, k), for real k (3^L is huge).
double log_multichoose(double n, double k);

}  // namespace headroom::core

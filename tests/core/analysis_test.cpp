#include <gtest/gtest.h>
#include <torch/torch.h>

#include <Eigen/Dense>
#include <cmath>
#include <optional>

#include "core/analysis/bottleneck_report.h"
#include "core/analysis/head_analysis.h"
#include "core/analysis/separation_rank.h"
#include "core/analysis/spectrum.h"

using namespace headroom::core;

TEST(Spectrum, NumericalRankOfAProductIsItsInnerSize) {
  Eigen::MatrixXd a = Eigen::MatrixXd::Random(20, 3) * Eigen::MatrixXd::Random(3, 20);
  auto s = singular_spectrum(a, kFloat64Epsilon);
  EXPECT_EQ(s.rank, 3);
  EXPECT_EQ(s.singular_values.size(), 20u);
  EXPECT_GE(s.singular_values[0], s.singular_values[1]);
  EXPECT_EQ(singular_spectrum(Eigen::MatrixXd::Identity(5, 5)).rank, 5);
  EXPECT_EQ(singular_spectrum(Eigen::MatrixXd::Zero(4, 4)).rank, 0);
}

TEST(HeadAnalysis, EachHeadsLogitRankIsCappedByItsHeadSize) {
  torch::NoGradGuard g;
  torch::manual_seed(0);
  AttentionSpec s{AttentionKind::MultiHead, 32, 8, 8, 8, 4, 4};  // d_k = 4 < n = 16
  AttentionLayer layer(s);
  AttentionTrace t;
  layer(torch::randn({1, 16, 32}), &t);
  auto spectra = logit_spectra(t, LogitStage::J);
  ASSERT_EQ(spectra.size(), 8u);
  for (const auto& sp : spectra) EXPECT_EQ(sp.rank, 4);
  EXPECT_EQ(logit_rank_cap(s, 16, 16), 4);
  for (const auto& sp : query_key_spectra(*layer)) EXPECT_EQ(sp.rank, 4);
}

TEST(HeadAnalysis, TalkingHeadsMixedLogitsExceedTheHeadSize) {
  // TH §4: L_h = sum_k P_l[k,h] J_k can reach rank h_k*d_k, beyond one head's d_k.
  torch::NoGradGuard g;
  torch::manual_seed(0);
  AttentionSpec s{AttentionKind::TalkingHeads, 32, 4, 4, 4, 2, 2};
  AttentionLayer layer(s);
  layer->set_th_parameter("P_l", torch::randn({4, 4}));
  AttentionTrace t;
  layer(torch::randn({1, 12, 32}), &t);
  for (const auto& sp : logit_spectra(t, LogitStage::J)) EXPECT_EQ(sp.rank, 2);
  for (const auto& sp : logit_spectra(t, LogitStage::L)) EXPECT_EQ(sp.rank, 8);
  EXPECT_EQ(logit_rank_cap(s, 12, 12), 8);
}

TEST(BottleneckReport, LowRankBottleneckAppearsWhenHeadSizeDropsBelowN) {
  AttentionSpec s{AttentionKind::MultiHead, 64, 16, 16, 16, 4, 4};
  auto r = attention_bottlenecks(s, 32);
  ASSERT_FALSE(r.empty());
  EXPECT_EQ(r[0].paper, "LRB");
  EXPECT_NE(r[0].message.find("deficit of 28"), std::string::npos) << r[0].message;
  EXPECT_TRUE(attention_bottlenecks(s, 4).empty());
}

TEST(BottleneckReport, VocabularyAndWidthRules) {
  ModelSpec m;
  m.vocab = 50;
  m.width = 64;
  m.embed_rank = 16;
  m.attention = AttentionSpec{AttentionKind::FixedHead, 64, 4, 4, 4, 32, 32};  // h*d_p = 128 > 64
  auto r = model_bottlenecks(m, 8);
  auto has = [&](const std::string& id) {
    for (const auto& b : r)
      if (b.id == id) return true;
    return false;
  };
  EXPECT_TRUE(has("vb-vocab"));
  EXPECT_TRUE(has("vb-embed-rank"));
  EXPECT_TRUE(has("vb-attention-width"));
  EXPECT_FALSE(has("lrb-head-rank"));  // d_p = 32 >= n = 8
  for (const auto& b : r) EXPECT_FALSE(b.section.empty());
}

namespace {
// A copy, not a pointer: the tests pass the report as a temporary (ASan found the pointers dangling).
std::optional<Bottleneck> find_bottleneck(const std::vector<Bottleneck>& r, const std::string& id) {
  for (const auto& b : r)
    if (b.id == id) return b;
  return std::nullopt;
}
}  // namespace

TEST(BottleneckReport, FullAttentionReachesEveryPatternFromNMinusOne) {
  // Softmax ignores a constant per query: d_p = n - 1 is enough (docs/causal_threshold.md).
  AttentionSpec s{AttentionKind::FixedHead, 64, 4, 4, 4, 15, 15};
  EXPECT_EQ(find_bottleneck(attention_bottlenecks(s, 16), "lrb-head-rank"), std::nullopt);  // d_p = n - 1
  s.d_k = s.d_v = 14;
  const auto b = find_bottleneck(attention_bottlenecks(s, 16), "lrb-head-rank");
  ASSERT_TRUE(b.has_value());
  EXPECT_NE(b->message.find("most patterns are out of reach"), std::string::npos) << b->message;
  EXPECT_NE(b->message.find("from n - 1 = 15"), std::string::npos) << b->message;
}

TEST(BottleneckReport, CausalHeadsReachAlmostEveryPatternFromHalfN) {
  AttentionSpec s{AttentionKind::FixedHead, 64, 4, 4, 4, 8, 8};
  s.causal = true;
  EXPECT_EQ(find_bottleneck(attention_bottlenecks(s, 16), "lrb-head-rank"), std::nullopt);  // floor(16/2) = 8
  s.d_k = s.d_v = 7;
  const auto low = find_bottleneck(attention_bottlenecks(s, 16), "lrb-head-rank");
  ASSERT_TRUE(low.has_value());
  EXPECT_NE(low->message.find("most patterns are out of reach, even approximately"), std::string::npos) << low->message;
  EXPECT_NE(low->message.find("floor(n/2) = 8"), std::string::npos) << low->message;
  EXPECT_NE(low->message.find("causal"), std::string::npos);
  // The same head without the mask is a bottleneck up to n - 2.
  s.causal = false;
  s.d_k = s.d_v = 14;
  EXPECT_NE(find_bottleneck(attention_bottlenecks(s, 16), "lrb-head-rank"), std::nullopt);
  // Multi-head at n = 32: the remedy names the causal threshold, not n.
  AttentionSpec m{AttentionKind::MultiHead, 64, 16, 16, 16, 4, 4};
  m.causal = true;
  const auto mh = find_bottleneck(attention_bottlenecks(m, 32), "lrb-head-rank");
  ASSERT_TRUE(mh.has_value());
  EXPECT_NE(mh->message.find("fixed head size d_p >= 16"), std::string::npos) << mh->message;
  // Talking-heads: J is capped at d_k = 4, the mixed logits at h_k d_k = 16 = floor(32/2).
  AttentionSpec th{AttentionKind::TalkingHeads, 64, 4, 4, 4, 4, 4};
  th.causal = true;
  const auto mixed = find_bottleneck(attention_bottlenecks(th, 32), "th-mixed-rank");
  ASSERT_TRUE(mixed.has_value());
  EXPECT_NE(mixed->message.find("= 16 >= floor(n/2)"), std::string::npos) << mixed->message;
  // LRB's badge speaks of J, the raw logits, and does not say patterns are out of reach: the
  // softmax sees the mixed logits, which reach them.
  const auto raw = find_bottleneck(attention_bottlenecks(th, 32), "lrb-head-rank");
  ASSERT_TRUE(raw.has_value());
  EXPECT_NE(raw->message.find("raw logits J (before P_l) have rank <= d_k = 4"), std::string::npos) << raw->message;
  EXPECT_EQ(raw->message.find("so most patterns are out of reach"), std::string::npos) << raw->message;
}

TEST(BottleneckReport, RankCapsIncludeTheWidth) {
  // A head's logits are X M X^T with X d wide: d caps them whatever d_k or h_k d_k is.
  AttentionSpec fixed{AttentionKind::FixedHead, 32, 2, 2, 2, 64, 64};
  EXPECT_EQ(logit_rank_cap(fixed, 128, 128), 32);
  AttentionSpec th{AttentionKind::TalkingHeads, 32, 8, 8, 8, 8, 8};  // h_k d_k = 64 > d = 32
  EXPECT_EQ(logit_rank_cap(th, 128, 128), 32);
  EXPECT_EQ(logit_rank_cap(th, 20, 20), 20);
  AttentionSpec dyn{AttentionKind::DynamicProj, 32, 2, 2, 2, 8, 8};  // 2 min(d, h_k d_k) = 32
  EXPECT_EQ(logit_rank_cap(dyn, 128, 128), 32);
  dyn.heads_k = 8;  // h_k d_k = 64: 2 min(32, 64) = 64
  EXPECT_EQ(logit_rank_cap(dyn, 128, 128), 64);
  dyn.dynamic_terms = kDynamicAll & ~kDynamicMl;  // no key-side term: min(d, h_k d_k)
  EXPECT_EQ(logit_rank_cap(dyn, 128, 128), 32);
  AttentionSpec gb{AttentionKind::GeneralBilinear, 32, 2, 2, 2, 32, 32};
  EXPECT_EQ(logit_rank_cap(gb, 128, 128), 32);
}

TEST(BottleneckReport, VocabularyBadgeCountsTheTokensThatOccur) {
  ModelSpec m;
  m.vocab = 256;
  m.width = 128;
  m.attention = AttentionSpec{AttentionKind::MultiHead, 128, 2, 2, 2, 64, 64};
  EXPECT_EQ(find_bottleneck(model_bottlenecks(m, 8), "vb-vocab"), std::nullopt);  // V = 256 >= d, symbols unknown
  const auto r = model_bottlenecks(m, 8, VocabularyUse{63, "KJV"});
  const auto b = find_bottleneck(r, "vb-vocab");
  ASSERT_TRUE(b.has_value());
  EXPECT_NE(b->message.find("only 63 of the V = 256 tokens occur in KJV"), std::string::npos) << b->message;
  // VB's theorem bounds expressivity (separation rank), not loss: the badge says which.
  EXPECT_NE(b->message.find("adds little to VB's bound on log separation rank, L*min(r, d)"), std::string::npos)
      << b->message;
  EXPECT_EQ(b->message.find("helps more"), std::string::npos) << b->message;
  EXPECT_EQ(find_bottleneck(model_bottlenecks(m, 8, VocabularyUse{200, "KJV"}), "vb-vocab"), std::nullopt);
  // The embedding-rank badge names VB's rank-1 positional assumption.
  m.embed_rank = 16;
  const auto e = find_bottleneck(model_bottlenecks(m, 8), "vb-embed-rank");
  ASSERT_TRUE(e.has_value());
  EXPECT_NE(e->message.find("rank-1 positional embedding"), std::string::npos) << e->message;
  EXPECT_NE(e->message.find("this model's positional rank is 64"), std::string::npos) << e->message;  // min(d, n)
  // Without positions the badge says so, and the embedding-rank badge counts r_e = 0.
  EXPECT_EQ(find_bottleneck(model_bottlenecks(m, 8), "no-positions"), std::nullopt);
  m.attention.causal = true;
  m.positions = Positions::None;
  const auto none = model_bottlenecks(m, 8);
  ASSERT_TRUE(find_bottleneck(none, "no-positions").has_value());
  EXPECT_NE(find_bottleneck(none, "no-positions")->message.find("only the causal mask"), std::string::npos);
  EXPECT_NE(find_bottleneck(none, "vb-embed-rank")->message.find("this model's positional rank is 0"),
            std::string::npos);
}

TEST(SeparationRank, BoundGrowsLinearlyInDepthTimesRank) {
  // VB eq. 9: log sep = O(L * (r + r_e)).
  const double a = vb_log_separation_rank_bound(4, 16, 1);
  const double b = vb_log_separation_rank_bound(8, 16, 1);
  const double c = vb_log_separation_rank_bound(8, 32, 1);
  EXPECT_GT(b, a);
  EXPECT_GT(c, b);
  // Asymptotically (r + r_e) * L * 2 log 3: the ratio of bounds at large L tends to the rank ratio.
  const double big1 = vb_log_separation_rank_bound(30, 16, 1), big2 = vb_log_separation_rank_bound(30, 33, 1);
  EXPECT_NEAR(big2 / big1, 34.0 / 17.0, 0.1);
  // Width beyond r: clipping r to d_x.
  EXPECT_DOUBLE_EQ(vb_log_separation_rank_bound(6, 500, 1, 100), vb_log_separation_rank_bound(6, 100, 1));
  // Exact small case: ((n multichoose k)) = C(n + k - 1, k); ((2 multichoose 3)) = 4.
  EXPECT_NEAR(std::exp(log_multichoose(2, 3)), 4.0, 1e-9);
  EXPECT_THROW(vb_log_separation_rank_bound(0, 4, 1), std::invalid_argument);
}

TEST(SeparationRank, AModelsBoundCountsOnlyTheSymbolsThatOccur) {
  // The lab's Depth vs width tab: eq. 9 with r = min(r, d_x, V, symbols that occur) (VB §5.2) and
  // r_e = min(r_pos or d_x, d_x, n).
  ModelSpec m;
  m.vocab = 256;
  m.width = 64;
  m.depth = 2;
  m.context = 128;
  m.embed_rank = 0;  // unfactorised: r = min(d_x, V)
  m.pos_rank = 1;
  EXPECT_DOUBLE_EQ(model_log_separation_rank_bound(m, 64, 2), vb_log_separation_rank_bound(2, 64, 1));
  EXPECT_DOUBLE_EQ(model_log_separation_rank_bound(m, 64, 2, 29), vb_log_separation_rank_bound(2, 29, 1));
  // Flat past the symbols that occur; below them, width still counts.
  EXPECT_DOUBLE_EQ(model_log_separation_rank_bound(m, 128, 2, 29), model_log_separation_rank_bound(m, 64, 2, 29));
  EXPECT_LT(model_log_separation_rank_bound(m, 16, 2, 29), model_log_separation_rank_bound(m, 29, 2, 29));
  // More symbols than V (or none known) leave V; depth is the one asked for.
  EXPECT_DOUBLE_EQ(model_log_separation_rank_bound(m, 512, 3, 1000), vb_log_separation_rank_bound(3, 256, 1));
  m.embed_rank = 8;
  EXPECT_DOUBLE_EQ(model_log_separation_rank_bound(m, 64, 2, 29), vb_log_separation_rank_bound(2, 8, 1));
  m.embed_rank = 0;
  m.pos_rank = 0;  // full positional rank: min(d_x, n)
  EXPECT_DOUBLE_EQ(model_log_separation_rank_bound(m, 256, 2, 29), vb_log_separation_rank_bound(2, 29, 128));
  m.positions = Positions::None;
  EXPECT_DOUBLE_EQ(model_log_separation_rank_bound(m, 256, 2, 29), vb_log_separation_rank_bound(2, 29, 0));
}

TEST(HeadAnalysis, LogitFactorsRebuildEveryKindsLogitsExactly) {
  // L_h = A_h B_h^T with the inner size the theory names; factored spectra match a direct one.
  torch::NoGradGuard g;
  for (auto kind : all_attention_kinds()) {
    torch::manual_seed(3);
    AttentionRequest r{kind, 16, 4};
    if (kind == AttentionKind::TalkingHeads || kind == AttentionKind::DynamicProj) r.heads_k = 2, r.heads_v = 3;
    AttentionLayer layer(*make_attention_spec(r, nullptr));
    if (layer->p_l.defined()) layer->p_l.copy_(torch::randn_like(layer->p_l));
    auto x = torch::randn({1, 20, 16});
    AttentionTrace t;
    layer(x, &t);
    const auto f = logit_factors(*layer, x[0]);
    const auto rebuilt = torch::matmul(f.A, f.B.transpose(1, 2));
    EXPECT_TRUE(torch::allclose(rebuilt, t.L[0], 1e-4, 1e-4)) << to_string(kind);
    const auto fast = factored_spectra(f.A, f.B);
    const auto direct = logit_spectra(t, LogitStage::L);
    ASSERT_EQ(fast.size(), direct.size());
    for (size_t h = 0; h < fast.size(); ++h) {
      EXPECT_EQ(fast[h].rank, direct[h].rank) << to_string(kind) << " head " << h;
      EXPECT_NEAR(fast[h].singular_values[0], direct[h].singular_values[0], 1e-3 * direct[h].singular_values[0]);
    }
  }
}

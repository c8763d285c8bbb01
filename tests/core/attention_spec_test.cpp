#include <gtest/gtest.h>

#include "core/attention/attention_spec.h"
#include "core/io/spec_json.h"

using namespace headroom::core;

namespace {
std::optional<AttentionSpec> make(AttentionRequest r, std::vector<SpecProblem>* p) { return make_attention_spec(r, p); }
}  // namespace

TEST(AttentionSpec, KindNamesRoundTrip) {
  for (auto k : all_attention_kinds()) EXPECT_EQ(parse_attention_kind(to_string(k)), k);
  EXPECT_FALSE(parse_attention_kind("multihead").has_value());
  EXPECT_EQ(all_attention_kinds().size(), 7u);
}

TEST(AttentionSpec, MultiHeadDefaultsToDOverH) {
  std::vector<SpecProblem> p;
  auto s = make({AttentionKind::MultiHead, 768, 12}, &p);
  ASSERT_TRUE(s) << p.front().message;
  EXPECT_EQ(s->d_k, 64);
  EXPECT_EQ(s->d_v, 64);
  EXPECT_EQ(s->heads_k, 12);
  EXPECT_EQ(s->heads_v, 12);
}

TEST(AttentionSpec, RefusesZeroHeadsNamingTheField) {
  std::vector<SpecProblem> p;
  EXPECT_FALSE(make({AttentionKind::MultiHead, 64, 0}, &p));
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(p.front().field, "heads");
  EXPECT_NE(p.front().message.find("at least 1"), std::string::npos);
}

TEST(AttentionSpec, MultiHeadNeedsDivisibleWidth) {
  std::vector<SpecProblem> p;
  EXPECT_FALSE(make({AttentionKind::MultiHead, 100, 3}, &p));
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].field, "heads");
  EXPECT_NE(p[0].message.find("not divisible"), std::string::npos);
  EXPECT_NE(p[0].message.find("fixed-head"), std::string::npos);  // says what would work
}

TEST(AttentionSpec, MultiHeadRefusesAFreeHeadSize) {
  std::vector<SpecProblem> p;
  AttentionRequest r{AttentionKind::MultiHead, 64, 4};
  r.d_k = 32;
  EXPECT_FALSE(make(r, &p));
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(p[0].field, "d_k");
  EXPECT_NE(p[0].message.find("fixed-head"), std::string::npos);
}

TEST(AttentionSpec, FixedHeadTakesAnyHeadSize) {
  std::vector<SpecProblem> p;
  AttentionRequest r{AttentionKind::FixedHead, 256, 70};
  r.d_k = 32;
  r.d_v = 32;
  auto s = make(r, &p);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->heads, 70);
}

TEST(AttentionSpec, HeadCountsMustMatchWhereTheKindNeedsIt) {
  std::vector<SpecProblem> p;
  AttentionRequest r{AttentionKind::MultiHead, 64, 4};
  r.heads_k = 8;
  EXPECT_FALSE(make(r, &p));
  EXPECT_EQ(p.at(0).field, "heads_k");
  AttentionRequest lp{AttentionKind::LogitsProj, 64, 4};
  lp.heads_v = 8;
  EXPECT_FALSE(make(lp, &p));
  EXPECT_EQ(p.at(0).field, "heads_v");
  AttentionRequest wp{AttentionKind::WeightsProj, 64, 4};
  wp.heads_k = 2;
  EXPECT_FALSE(make(wp, &p));
  EXPECT_EQ(p.at(0).field, "heads_k");
  AttentionRequest th{AttentionKind::TalkingHeads, 64, 4};
  th.heads_k = 2;
  th.heads_v = 8;
  EXPECT_TRUE(make(th, &p));
}

TEST(AttentionSpec, AnImpossibleHeadCountIsSaidOnceNotAgainForTheCountsCopiedFromIt) {
  std::vector<SpecProblem> p;
  EXPECT_FALSE(make({AttentionKind::TalkingHeads, 64, -2}, &p));
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].field, "heads");
  EXPECT_EQ(p[0].message, "heads = -2 is impossible: it must be at least 1");
  // Counts the user gave are their own: each is said.
  AttentionRequest r{AttentionKind::TalkingHeads, 64, -2};
  r.heads_k = 0;
  EXPECT_FALSE(make(r, &p));
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[1].field, "heads_k");
}

TEST(AttentionSpec, GeneralBilinearUsesFullWidth) {
  std::vector<SpecProblem> p;
  auto s = make({AttentionKind::GeneralBilinear, 48, 3}, &p);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->d_k, 48);
  EXPECT_EQ(logit_scale(*s), 1.0);
}

TEST(AttentionSpec, JsonRoundTripAndStrictErrors) {
  AttentionRequest r{AttentionKind::DynamicProj, 64, 4};
  r.dynamic_terms = kDynamicXl | kDynamicMw;
  auto s = make_attention_spec(r, nullptr);
  ASSERT_TRUE(s);
  EXPECT_EQ(attention_spec_from_json(to_json(*s)), *s);
  auto j = to_json(*s);
  j["heads"] = "four";
  EXPECT_THROW(
      {
        try {
          attention_spec_from_json(j, "suite.toml:attention");
        } catch (const std::invalid_argument& e) {
          EXPECT_NE(std::string(e.what()).find("suite.toml:attention.heads"), std::string::npos) << e.what();
          throw;
        }
      },
      std::invalid_argument);
  auto k = to_json(*s);
  k["head"] = 3;
  EXPECT_THROW(attention_spec_from_json(k), std::invalid_argument);
}

// Reproduces every row of TH Tables 1, 2, 3, 8 and 9 (assets/reference/th_t5.csv, transcribed
// from the paper): the parameter column exactly, the multiplies column to its printed digits.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "core/attention/attention_costs.h"

using namespace headroom::core;

namespace {

struct Row {
  int table;
  std::string variant;
  int hk, h, hv, dk, dv;
  int64_t params;
  std::string multiplies;  // as printed, e.g. "1.611e9"
};

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) out.push_back(cell), cell.clear();
    else cell.push_back(c);
  }
  out.push_back(cell);
  return out;
}

std::vector<Row> load_rows() {
  std::ifstream in(std::string(HEADROOM_ASSETS_DIR) + "/reference/th_t5.csv");
  EXPECT_TRUE(in) << "missing assets/reference/th_t5.csv";
  std::vector<Row> rows;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      header = false;
      continue;
    }
    auto c = split(line);
    rows.push_back({std::stoi(c[0]), c[1], std::stoi(c[2]), std::stoi(c[3]), std::stoi(c[4]), std::stoi(c[5]),
                    std::stoi(c[6]), std::stoll(c[13]), c[14]});
  }
  return rows;
}

// The spec each row describes (T5-base: d_model = 768).
AttentionSpec spec_of(const Row& r) {
  AttentionSpec s;
  s.d_model = 768;
  s.heads_k = r.hk;
  s.heads = r.h;
  s.heads_v = r.hv;
  s.d_k = r.dk;
  s.d_v = r.dv;
  const auto& v = r.variant;
  if (v == "multi-head" || v.rfind("Raffel", 0) == 0) s.kind = AttentionKind::MultiHead;
  else if (v.rfind("multi-head (", 0) == 0) s.kind = AttentionKind::FixedHead;  // 24 heads at d_k = 64 != d/h
  else if (v == "talking-heads") s.kind = AttentionKind::TalkingHeads;
  else if (v == "general bilinear") s.kind = AttentionKind::GeneralBilinear;
  else if (v == "project logits") s.kind = AttentionKind::LogitsProj;
  else if (v == "project weights") s.kind = AttentionKind::WeightsProj;
  else if (v == "dynamic projections") s.kind = AttentionKind::DynamicProj;
  else if (v.rfind("dyn. proj. P_", 0) == 0) {
    s.kind = AttentionKind::DynamicProj;
    const std::string which = v.substr(std::string("dyn. proj. P_").size(), 2);
    s.dynamic_terms = which == "Xl" ? kDynamicXl : which == "Ml" ? kDynamicMl : which == "Xw" ? kDynamicXw : kDynamicMw;
  } else {
    ADD_FAILURE() << "unmapped variant " << v;
  }
  return s;
}

// "1.611e9" -> mantissa digits 1611 and exponent 9; compare the value rounded to those digits.
bool matches_printed(int64_t value, const std::string& printed) {
  const auto e = printed.find('e');
  const std::string mant = printed.substr(0, e);
  const int exponent = std::stoi(printed.substr(e + 1));
  const auto dot = mant.find('.');
  const int decimals = dot == std::string::npos ? 0 : int(mant.size() - dot - 1);
  const double scale = std::pow(10.0, exponent - decimals);
  const long long digits = std::llround(std::stod(mant) * std::pow(10.0, decimals));
  return std::llround(double(value) / scale) == digits;
}

}  // namespace

TEST(AttentionCosts, ReproducesEveryRowOfThTables) {
  const auto rows = load_rows();
  std::map<int, int> per_table;
  for (const auto& r : rows) {
    const auto spec = spec_of(r);
    ASSERT_TRUE(validate(spec).empty()) << r.variant << ": " << validate(spec).front().message;
    const auto c = attention_costs(spec, 512, 512);
    EXPECT_EQ(c.params, r.params) << "Table " << r.table << " " << r.variant << " h=" << r.h;
    EXPECT_TRUE(matches_printed(c.multiplies, r.multiplies)) << "Table " << r.table << " " << r.variant << " h=" << r.h
                                                             << ": " << c.multiplies << " vs printed " << r.multiplies;
    ++per_table[r.table];
  }
  // Every table's rows were checked (rows repeated across tables appear once in the CSV).
  EXPECT_EQ(per_table[1], 11);
  EXPECT_EQ(per_table[2], 4);
  EXPECT_EQ(per_table[3], 2);
  EXPECT_EQ(per_table[8], 2);
  EXPECT_EQ(per_table[9], 4);
}

TEST(AttentionCosts, MultiHeadMatchesClosedForm) {
  // TH §5: h (d_k + d_v)(n d_X + m d_M + n m).
  AttentionSpec s{AttentionKind::MultiHead, 256, 8, 8, 8, 32, 32};
  const auto c = attention_costs(s, 100, 70);
  EXPECT_EQ(c.multiplies, int64_t(8) * (32 + 32) * (100 * 256 + 70 * 256 + 100 * 70));
}

TEST(AttentionCosts, RejectsBadLengths) {
  AttentionSpec s{AttentionKind::MultiHead, 64, 4, 4, 4, 16, 16};
  EXPECT_THROW(attention_costs(s, 0, 5), std::invalid_argument);
}

// `headroom-worker represent`, checked from outside.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "cli_runner.h"

using nlohmann::json;

TEST(RepresentCli, ConstructionReachesThTargetExactly) {
  const auto x = temp_path("X.csv"), p = temp_path("P.csv");
  // d = 3 rows, n = 3 tokens (columns).
  write_text(x, "1, 0.5, -1\n0, 2, 1\n0.3, 0, 1\n");
  write_text(p, "# a positive column-stochastic target\n0.7,0.2,0.1\n0.2,0.5,0.3\n0.1,0.3,0.6\n");
  auto r = run_worker({"represent", "--input", x, "--target", p, "--head-size", "3", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["method"], "construction");
  EXPECT_LT(j["max_abs_error"].get<double>(), 1e-6);
  ASSERT_EQ(j["reached"].size(), 3u);
  EXPECT_NEAR(j["reached"][0][0].get<double>(), 0.7, 1e-6);
}

TEST(RepresentCli, CounterExampleIsFittedWithAnError) {
  const auto x = temp_path("X1.csv"), p = temp_path("P1.csv");
  write_text(x, "1,0\n");
  write_text(p, "0.5,0.75\n0.5,0.25\n");
  auto r = run_worker({"represent", "--input", x, "--target", p, "--head-size", "1", "--seed", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["method"], "fit");
  EXPECT_GE(j["max_abs_error"].get<double>(), 0.25 - 1e-9);
}

TEST(RepresentCli, BadInputsAreRefusedClearly) {
  const auto x = temp_path("X2.csv"), p = temp_path("P2.csv"), ragged = temp_path("R.csv"), word = temp_path("W.csv");
  write_text(x, "1,0\n0,1\n");
  write_text(p, "0.5,0.6\n0.5,0.5\n");  // column 1 sums to 1.1
  write_text(ragged, "0.5,0.5\n0.5\n");
  write_text(word, "0.5,half\n0.5,0.5\n");
  const auto nan = temp_path("N.csv");
  write_text(nan, "1,nan\n0,1\n");  // strtod reads it; a matrix of it is meaningless
  struct Case {
    std::vector<std::string> args;
    std::string expect;
  };
  std::vector<Case> cases = {
      {{"represent", "--input", x, "--target", p, "--head-size", "2", "--json"}, "divide each column by its sum"},
      {{"represent", "--input", x, "--target", ragged, "--head-size", "2"}, "same number of columns"},
      {{"represent", "--input", x, "--target", word, "--head-size", "2"}, "'half', not a finite number"},
      {{"represent", "--input", nan, "--target", x, "--head-size", "2"}, "'nan', not a finite number"},
      {{"represent", "--input", temp_path("nope.csv"), "--target", p, "--head-size", "2"}, "cannot open"},
      {{"represent", "--input", x, "--target", x, "--head-size", "0"}, "head size"},
      {{"represent", "--input", p, "--target", temp_path("X1.csv"), "--head-size", "2"}, "must be square"},
  };
  write_text(temp_path("X1.csv"), "1,0\n");
  for (const auto& c : cases) {
    auto r = run_worker(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.expect << ": " << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << "stderr lacks '" << c.expect << "': " << r.err;
  }
}

TEST(RepresentCli, CausalTargetIsReachedAtNMinusOneAndRefusedIfItSeesTheFuture) {
  const auto x = temp_path("Xc.csv"), p = temp_path("Pc.csv"), leak = temp_path("Pleak.csv");
  // d = 3, n = 3; a causal target: column j (query j) over keys 0..j, zeros below.
  write_text(x, "1, 0.5, -1\n0, 2, 1\n0.3, 0, 1\n");
  write_text(p, "1,0.4,0.2\n0,0.6,0.3\n0,0,0.5\n");
  auto r = run_worker({"represent", "--causal", "--input", x, "--target", p, "--head-size", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["mask"], "causal");
  EXPECT_EQ(j["method"], "construction");  // d_p = n - 1
  EXPECT_LT(j["max_abs_error"].get<double>(), 1e-9);
  EXPECT_EQ(j["every_pattern_threshold"], 2);
  EXPECT_EQ(j["generic_threshold"], 1);
  EXPECT_NEAR(j["reached"][1][0].get<double>(), 0.0, 0.0);  // key 1 is masked for query 0
  // The same target without --causal is refused: its zeros are not a softmax's.
  r = run_worker({"represent", "--input", x, "--target", p, "--head-size", "2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("positive"), std::string::npos) << r.err;
  write_text(leak, "1,0.4,0.2\n0,0.6,0.3\n0,0.1,0.5\n");  // column 1 puts weight on key 2
  r = run_worker({"represent", "--causal", "--input", x, "--target", leak, "--head-size", "2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("P[2,1]"), std::string::npos) << r.err;
}

TEST(RepresentCli, CausalRandomTargetIsConstructedAtHalfNAndATiedOneIsNot) {
  // n = 6 tokens, d = 6; a random causal target (query j's weights over keys 0..j).
  const auto x = temp_path("Xh.csv"), p = temp_path("Ph.csv"), tied = temp_path("Ptied.csv");
  write_text(x,
             "1,0.5,-1,0.2,0,0.3\n0,2,1,-0.5,0.4,0\n0.3,0,1,1,-1,0.2\n0.1,0.2,0.3,2,0.5,-0.7\n"
             "-0.4,0.1,0,0.3,1.5,0.6\n0.2,-0.3,0.5,0,0.1,1.2\n");
  write_text(p,
             "1,0.3,0.2,0.1,0.4,0.05\n0,0.7,0.5,0.2,0.1,0.25\n0,0,0.3,0.3,0.2,0.1\n0,0,0,0.4,0.1,0.3\n"
             "0,0,0,0,0.2,0.2\n0,0,0,0,0,0.1\n");
  auto r = run_worker({"represent", "--causal", "--input", x, "--target", p, "--head-size", "3", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["method"], "construction");
  EXPECT_EQ(j["construction_rank"], 3);
  EXPECT_EQ(j["minimal_head_size"], 3);  // this P's own least rank: floor(n/2), as a random one's
  EXPECT_LT(j["max_abs_error"].get<double>(), 1e-9);
  EXPECT_NE(j["theorem"].get<std::string>().find("rank floor(n/2)"), std::string::npos) << j["theorem"];
  // Forcing the fit still runs it.
  r = run_worker(
      {"represent", "--causal", "--input", x, "--target", p, "--head-size", "3", "--method", "fit", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["method"], "fit");
  // Ties in the past (queries 3..5 spread evenly over their past): the block of log-ratios is
  // singular, so no construction at 3 < n - 1; auto fits, construction says why.
  write_text(tied,
             "1,0.5,0.25,0.2,0.1,0.1\n0,0.5,0.25,0.2,0.1,0.1\n0,0,0.5,0.2,0.1,0.1\n0,0,0,0.4,0.1,0.1\n"
             "0,0,0,0,0.6,0.1\n0,0,0,0,0,0.5\n");
  r = run_worker(
      {"represent", "--causal", "--input", x, "--target", tied, "--head-size", "3", "--method", "construction"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("not generic"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("d_p >= n - 1 constructs every causal P"), std::string::npos) << r.err;
  r = run_worker({"represent", "--causal", "--input", x, "--target", tied, "--head-size", "3", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = json::parse(r.out);
  EXPECT_EQ(j["method"], "perturbed construction");  // a nearby pattern's construction beats the fit
  // Queries 2..5 put a weight of their own on themselves against a uniform past; query 1 is
  // uniform. The log-ratio triangle is diagonal with 4 non-zero entries: least rank 4 = n - 2.
  EXPECT_EQ(j["minimal_head_size"], 4);
  EXPECT_GT(j["perturbation"].get<double>(), 0.0);
  EXPECT_LT(j["max_log_error"].get<double>(), 1e-3);
  EXPECT_GT(j["max_logit"].get<double>(), 100.0);
  // One size of the nearby pattern by hand: closer costs larger logits.
  double logit_before = 0;
  for (const char* eps : {"1e-2", "1e-5"}) {
    r = run_worker(
        {"represent", "--causal", "--input", x, "--target", tied, "--head-size", "3", "--perturbation", eps, "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    j = json::parse(r.out);
    EXPECT_EQ(j["perturbation"].get<double>(), std::stod(eps));
    EXPECT_LT(j["max_log_error"].get<double>(), 10 * std::stod(eps)) << eps;
    EXPECT_GT(j["max_logit"].get<double>(), logit_before) << eps;
    logit_before = j["max_logit"].get<double>();
  }
  const auto uniform = temp_path("Puniform.csv");  // a full-attention target
  std::string rows;
  for (int i = 0; i < 6; ++i)
    rows +=
        "0.1666666666666667,0.1666666666666667,0.1666666666666667,0.1666666666666667,"
        "0.1666666666666667,0.1666666666666667\n";
  write_text(uniform, rows);
  r = run_worker({"represent", "--input", x, "--target", uniform, "--head-size", "3", "--perturbation", "1e-3"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("causal attention only"), std::string::npos) << r.err;
  r = run_worker({"represent", "--causal", "--input", x, "--target", tied, "--head-size", "3", "--perturbation", "1e-3",
                  "--method", "fit"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("give one of them"), std::string::npos) << r.err;
  r = run_worker({"represent", "--causal", "--input", x, "--target", p, "--head-size", "3", "--method", "proof"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("use auto"), std::string::npos) << r.err;
}

TEST(RepresentCli, ConstructionSweepRunsToLargeContextsAtTheSmallestHead) {
  const auto csv = temp_path("construct.csv");
  auto r = run_worker(
      {"represent", "--sweep", "8:64:28", "--method", "construction", "--targets", "3", "--json", "--csv", csv});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["method"], "construction");
  ASSERT_EQ(j["thresholds"].size(), 6u);  // n = 8, 36, 64 for each mask
  for (const auto& t : j["thresholds"]) {
    EXPECT_EQ(t["d_p"], t["theory_generic"]) << t.dump();
    EXPECT_EQ(t["reached"], 3) << t.dump();
  }
  std::ifstream in(csv);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header.rfind("mask,pattern,method,n,d_p,targets,reached,constructed,", 0), 0u) << header;
  int lines = 0;
  for (std::string line; std::getline(in, line);) {
    ++lines;
    EXPECT_NE(line.find(",construction,"), std::string::npos) << line;
  }
  EXPECT_EQ(lines, 6);  // one d_p per (mask, n)
}

TEST(RepresentCli, SweepMeasuresTheCausalAndFullThresholds) {
  const auto csv = temp_path("sweep.csv");
  auto r = run_worker({"represent", "--sweep", "5:6", "--targets", "2", "--json", "--csv", csv});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  ASSERT_EQ(j["thresholds"].size(), 4u);
  for (const auto& t : j["thresholds"]) {
    const int n = t["n"];
    EXPECT_EQ(t["measured"], t["mask"] == "causal" ? n / 2 : n - 1) << t.dump();
    EXPECT_EQ(t["measured"], t["theory_generic"]) << t.dump();
  }
  // One CSV line per (mask, n, d_p = 1..n) after the header.
  std::ifstream in(csv);
  int lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  EXPECT_EQ(lines, 1 + 2 * (5 + 6));
}

TEST(RepresentCli, SweepAndMissingArgumentsAreExplained) {
  struct Case {
    std::vector<std::string> args;
    std::string expect;
  };
  std::vector<Case> cases = {
      {{"represent", "--sweep", "9:4"}, "N_MIN:N_MAX"},
      {{"represent", "--sweep", "1:4"}, "2 <= N_MIN"},
      {{"represent", "--sweep", "4:8:0"}, "STEP >= 1"},
      {{"represent", "--sweep", "4:8x"}, "N_MIN:N_MAX:STEP"},
      {{"represent", "--sweep", "4:60"}, "256 with --method construction"},
      {{"represent", "--sweep", "4:300", "--method", "construction"}, "N_MAX <= 256"},
      {{"represent", "--sweep", "4:5", "--method", "exact"}, "use auto"},
      {{"represent", "--sweep", "4:5", "--perturbation", "1e-3"}, "not to --sweep"},
      {{"represent", "--sweep", "4:5", "--masks", "full,sideways"}, "'sideways' is not a mask"},
      {{"represent", "--sweep", "4:5", "--pattern", "stripes"}, "use random or self-vs-past"},
      {{"represent", "--input", temp_path("X.csv")}, "give --input X.csv, --target P.csv and --head-size"},
      // The other mode's options are refused, not ignored (the sweep drew its own X while the user
      // believed it measured theirs).
      {{"represent", "--sweep", "4:5", "--input", temp_path("X.csv")}, "--input is for one target; --sweep draws"},
      {{"represent", "--sweep", "4:5", "--head-size", "2"}, "--head-size is for one target"},
      {{"represent", "--sweep", "4:5", "--causal"}, "--masks causal"},
      {{"represent", "--pattern", "random", "--head-size", "2"}, "--pattern is a --sweep option"},
      {{"represent", "--csv", temp_path("s.csv")}, "--csv is a --sweep option"},
  };
  for (const auto& c : cases) {
    auto r = run_worker(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.expect << ": " << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << "stderr lacks '" << c.expect << "': " << r.err;
  }
}

TEST(RepresentCli, AnAttentionSinkIsConstructedAtItsLeastRankOne) {
  // The first token (0.7) against a uniform rest, causal, n = 5: its logits need rank 1, far below
  // floor(n/2) = 2, and `--method construction` builds it there; the full version too.
  const auto x = temp_path("Xs.csv"), p = temp_path("Ps.csv"), full = temp_path("Pf.csv");
  write_text(x,
             "1,0.5,-1,0.2,0\n0,2,1,-0.5,0.4\n0.3,0,1,1,-1\n0.1,0.2,0.3,2,0.5\n-0.4,0.1,0,0.3,1.5\n"
             "0.2,-0.3,0.5,0,0.1\n");
  write_text(p, "1,0.7,0.7,0.7,0.7\n0,0.3,0.15,0.1,0.075\n0,0,0.15,0.1,0.075\n0,0,0,0.1,0.075\n0,0,0,0,0.075\n");
  auto r = run_worker(
      {"represent", "--causal", "--input", x, "--target", p, "--head-size", "1", "--method", "construction", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["method"], "least-rank construction");
  EXPECT_EQ(j["construction_rank"], 1);
  EXPECT_EQ(j["minimal_head_size"], 1);
  EXPECT_LT(j["max_abs_error"].get<double>(), 1e-9);
  write_text(full,
             "0.7,0.7,0.7,0.7,0.7\n0.075,0.075,0.075,0.075,0.075\n0.075,0.075,0.075,0.075,0.075\n"
             "0.075,0.075,0.075,0.075,0.075\n0.075,0.075,0.075,0.075,0.075\n");
  r = run_worker({"represent", "--input", x, "--target", full, "--head-size", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("method: least-rank construction (logits of rank 1)"), std::string::npos) << r.out;
  // A random causal target below its least rank: refused, naming it.
  write_text(p, "1,0.3,0.2,0.1,0.4\n0,0.7,0.5,0.2,0.1\n0,0,0.3,0.3,0.2\n0,0,0,0.4,0.1\n0,0,0,0,0.2\n");
  r = run_worker(
      {"represent", "--causal", "--input", x, "--target", p, "--head-size", "1", "--method", "construction"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("own smallest head is d_p = 2"), std::string::npos) << r.err;
}

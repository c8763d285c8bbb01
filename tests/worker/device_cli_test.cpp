// --device and --precision from outside (issue 11): where a run trains is recorded in its config
// and is not part of what it computes (a run moves and resumes); its precision is. Runs on the
// CPU everywhere; the CUDA case skips without a GPU.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <torch/cuda.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli_runner.h"

using nlohmann::json;

namespace {

// Every run's config_json, by name, read straight from the file.
std::map<std::string, json> stored_configs(const std::string& db) {
  std::map<std::string, json> out;
  sqlite3* h = nullptr;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) return out;
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(h, "SELECT name, config_json FROM runs", -1, &s, nullptr);
  while (sqlite3_step(s) == SQLITE_ROW)
    out[reinterpret_cast<const char*>(sqlite3_column_text(s, 0))] =
        json::parse(reinterpret_cast<const char*>(sqlite3_column_text(s, 1)));
  sqlite3_finalize(s);
  sqlite3_close(h);
  return out;
}

// The lowest and highest tokens_per_s window a run logged.
std::pair<double, double> window_rates(const std::string& db, const std::string& run) {
  std::pair<double, double> out{NAN, NAN};
  sqlite3* h = nullptr;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) return out;
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(h,
                     "SELECT min(m.value), max(m.value) FROM metrics m JOIN metric_series s ON m.series_id = s.id "
                     "JOIN runs r ON s.run_id = r.id WHERE r.name = ?1 AND s.name = 'tokens_per_s'",
                     -1, &s, nullptr);
  sqlite3_bind_text(s, 1, run.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(s) == SQLITE_ROW) out = {sqlite3_column_double(s, 0), sqlite3_column_double(s, 1)};
  sqlite3_finalize(s);
  sqlite3_close(h);
  return out;
}

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

std::vector<std::string> short_run(const std::string& db, const std::string& name) {
  auto args = train_args(db, name);
  args[args.size() - 12] = "60";  // --steps 300 -> 60 (index of the steps value from the end)
  return args;
}

}  // namespace

TEST(DeviceCli, ARunRecordsWhereItTrainedAndInWhichPrecision) {
  const std::string db = temp_path("device_record.sqlite");
  std::remove(db.c_str());
  ASSERT_EQ(run_worker(with(short_run(db, "fp32"), {"--device", "cpu"})).exit_code, 0);
  auto r = run_worker(with(short_run(db, "bf16"), {"--precision", "bf16"}));  // --device auto
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto configs = stored_configs(db);
  EXPECT_EQ(configs.at("fp32")["train"]["device"], "cpu");
  EXPECT_EQ(configs.at("fp32")["train"]["precision"], "fp32");
  EXPECT_EQ(configs.at("bf16")["train"]["device"], torch::cuda::is_available() ? "cuda:0" : "cpu");
  EXPECT_EQ(configs.at("bf16")["train"]["precision"], "bf16");
  const auto runs = json::parse(run_worker({"status", "--db", db, "--json"}).out)["runs"];
  ASSERT_EQ(runs.size(), 2u);
  for (const auto& run : runs) {
    EXPECT_EQ(run["status"], "done") << run.dump();
    // The run's mean rate is a seconds-weighted mean of its windows' rates, so it lies between them.
    const auto [lo, hi] = window_rates(db, run["name"].get<std::string>());
    ASSERT_TRUE(run["mean_tokens_per_s"].is_number()) << run.dump();
    const double mean = run["mean_tokens_per_s"].get<double>();
    EXPECT_GE(mean, lo * (1 - 1e-9)) << run.dump();
    EXPECT_LE(mean, hi * (1 + 1e-9)) << run.dump();
  }
}

TEST(DeviceCli, ADeviceThisMachineLacksIsRefusedBeforeTheDbIsTouched) {
  const std::string db = temp_path("device_missing.sqlite");
  std::remove(db.c_str());
  auto r = run_worker(with(short_run(db, "x"), {"--device", "cuda:9"}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--device cuda:9"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(db)) << "a refused command created the DB";
  r = run_worker(with(short_run(db, "x"), {"--device", "gpu"}));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("use auto, cpu, cuda or cuda:N"), std::string::npos) << r.err;
  r = run_worker(with(short_run(db, "x"), {"--precision", "fp16"}));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("fp16"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(db));
  if (!torch::cuda::is_available()) {
    r = run_worker(with(short_run(db, "x"), {"--device", "cuda"}));
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("--device cuda: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--device cpu"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(db));
  }
}

// The same run in another precision is another run; on another device it is the same run.
TEST(DeviceCli, ANameKeepsItsPrecisionButMayMoveBetweenDevices) {
  const std::string db = temp_path("device_identity.sqlite");
  std::remove(db.c_str());
  ASSERT_EQ(run_worker(with(short_run(db, "x"), {"--device", "cpu"})).exit_code, 0);
  const size_t before = file_hash(db);
  auto r = run_worker(with(short_run(db, "x"), {"--precision", "bf16"}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("train.precision is \"fp32\" in the DB, \"bf16\" here"), std::string::npos) << r.err;
  EXPECT_EQ(file_hash(db), before);
  r = run_worker(with(short_run(db, "x"), {"--device", "auto"}));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "run x already finished (60 steps); nothing to do\n");
}

// A run last trained on a GPU (its stored config says cuda:0, as a GPU worker's claim writes it)
// is resumed by a CPU worker, and ends with the metrics of a run never interrupted nor moved.
TEST(DeviceCli, ARunStartedElsewhereResumesOnThisDeviceAndEndsAsIfUninterrupted) {
  const std::string straight = temp_path("device_straight.sqlite"), moved = temp_path("device_moved.sqlite");
  std::remove(straight.c_str());
  std::remove(moved.c_str());
  ASSERT_EQ(run_worker(with(short_run(straight, "copy"), {"--device", "cpu"})).exit_code, 0);
  auto r = run_worker(with(short_run(moved, "copy"), {"--device", "cpu", "--crash-after-step", "45"}));
  ASSERT_EQ(r.exit_code, 137) << r.err;
  exec_sql(moved, "UPDATE runs SET config_json = json_set(config_json, '$.train.device', 'cuda:0')");
  r = run_worker(with(short_run(moved, "copy"), {"--device", "cpu"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(stored_configs(moved).at("copy")["train"]["device"], "cpu");
  EXPECT_EQ(deterministic_metrics(straight), deterministic_metrics(moved));
}

// `run --precision` makes every run of a suite in that precision; the same suite in another
// precision on the same DB is refused, naming the run and the difference.
TEST(DeviceCli, ASuiteInAnotherPrecisionOnTheSameDbIsRefused) {
  const std::string db = temp_path("device_suite.sqlite"), suite = temp_path("device_suite.toml");
  std::remove(db.c_str());
  write_text(suite, tiny_suite("prec", R"(steps = 6
eval_every = 3
checkpoint_every = 3
[[grid]]
label = "a"
"train.seed" = [0, 1]
)"));
  auto r = run_worker({"enqueue", suite, "--db", db, "--precision", "bf16", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& [name, config] : stored_configs(db)) {
    EXPECT_EQ(config["train"]["precision"], "bf16") << name;
    EXPECT_EQ(config["train"]["device"], "auto") << name << ": not claimed yet";
  }
  const size_t before = file_hash(db);
  r = run_worker({"run", suite, "--db", db, "--quiet"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("was enqueued with a different configuration (train.precision"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("prec/a/"), std::string::npos) << r.err;
  EXPECT_EQ(file_hash(db), before);
  r = run_worker({"run", suite, "--db", db, "--precision", "bf16", "--device", "cpu", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& [name, config] : stored_configs(db)) EXPECT_EQ(config["train"]["device"], "cpu") << name;
}

TEST(DeviceCli, OnAGpuARunTrainsThereAndResumesOnTheCpu) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA GPU in this process";
  const std::string db = temp_path("device_gpu.sqlite");
  std::remove(db.c_str());
  auto r = run_worker(with(short_run(db, "copy"), {"--device", "cuda", "--crash-after-step", "45"}));
  ASSERT_EQ(r.exit_code, 137) << r.err;
  EXPECT_EQ(stored_configs(db).at("copy")["train"]["device"], "cuda:0");
  r = run_worker(with(short_run(db, "copy"), {"--device", "cpu"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(stored_configs(db).at("copy")["train"]["device"], "cpu");
}

// A run killed with SIGKILL on the GPU resumes there and ends with the metrics of an uninterrupted
// GPU run. Not bit for bit: cuBLAS and the attention kernels may pick other algorithms in a fresh
// process and some backward kernels add with atomics, so every metric within 1e-4 relative.
TEST(DeviceCli, OnAGpuARunKilledMidwayResumesAndEndsAsIfUninterrupted) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA GPU in this process";
  const std::string straight = temp_path("device_gpu_straight.sqlite"), killed = temp_path("device_gpu_killed.sqlite");
  std::remove(straight.c_str());
  std::remove(killed.c_str());
  ASSERT_EQ(run_worker(with(short_run(straight, "copy"), {"--device", "cuda"})).exit_code, 0);
  auto r = run_worker(with(short_run(killed, "copy"), {"--device", "cuda", "--crash-after-step", "45"}));
  ASSERT_EQ(r.exit_code, 137) << r.err;
  r = run_worker(with(short_run(killed, "copy"), {"--device", "cuda"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto a = deterministic_metrics(straight), b = deterministic_metrics(killed);
  ASSERT_EQ(a.size(), b.size());
  size_t compared = 0;
  for (const auto& [metric, values] : a) {
    ASSERT_EQ(values.size(), b.at(metric).size()) << metric;
    for (const auto& [step, value] : values) {
      const double x = std::stod(value), y = std::stod(b.at(metric).at(step));
      EXPECT_NEAR(x, y, 1e-4 * std::max(1.0, std::abs(x))) << metric << " at step " << step;
      ++compared;
    }
  }
  EXPECT_GE(compared, 40u);  // 12 logged steps x 3 metrics + 4 validations
}

// The paper scale is sized for a GPU: `--dry-run` gives a suite's training arithmetic, and `run`
// on the CPU says so (with that arithmetic) before it trains anyway.
TEST(DeviceCli, PaperScaleOnTheCpuWarnsWithTheSuitesArithmeticAndStillRuns) {
  const std::string db = temp_path("device_paper.sqlite"), suite = temp_path("device_paper.toml");
  std::remove(db.c_str());
  write_text(suite, tiny_suite("paper-test", R"(steps = 4
batch = 2
eval_every = 2
checkpoint_every = 2
[scale.paper]
"train.steps" = 5
[[grid]]
label = "a"
"train.seed" = { quick = [0], full = [0], paper = [0, 1] }
)"));
  auto r = run_worker({"run", suite, "--scale", "paper", "--dry-run"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("training arithmetic: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" PFLOP (6 x parameters x tokens"), std::string::npos) << r.out;
  r = run_worker({"run", suite, "--scale", "paper", "--db", db, "--device", "cpu", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: the paper scale is sized for one GPU (--device cuda)"), std::string::npos) << r.err;
  EXPECT_EQ(stored_configs(db).size(), 2u);
  // Quick and full on the CPU: no warning.
  std::remove(db.c_str());
  r = run_worker({"run", suite, "--db", db, "--device", "cpu", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;

  // enqueue + serve (what the GUI's Start worker runs): serve warns of the queued paper runs.
  std::remove(db.c_str());
  r = run_worker({"enqueue", suite, "--scale", "paper", "--db", db, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_worker({"serve", "--db", db, "--device", "cpu"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("serve: warning: 2 queued runs of paper-scale suites (paper-test) are sized for one GPU"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(" PFLOP of training arithmetic"), std::string::npos) << r.err;
  // Nothing queued any more: no warning.
  r = run_worker({"serve", "--db", db, "--device", "cpu"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
}

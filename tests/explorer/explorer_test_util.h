// Shared fixtures of the headroom_explorer tests: a scratch experiments DB filled through
// RunStore the way the worker fills it (suite TOML, run names, JSON configs, metrics, end states).
#pragma once

#include <fstream>
#include <iterator>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "experiments_db/connection.h"
#include "experiments_db/run_store.h"
#include "tests/db/db_test_util.h"

namespace headroom::explorer::testing {

// A config shaped like the worker's run_config JSON (quick-scale defaults of the LM suites).
struct ConfigSpec {
  std::string kind = "multi-head";
  int width = 32, heads = 2, d_k = 16, d_v = 16, embed_rank = 0, pos_rank = 0, depth = 1, vocab = 256, context = 16;
  std::string tokenizer = "bytes";
  std::string positions;  // model.positions ("none"); empty: left out, as the worker stores "learned"
  std::int64_t seed = 0;
  double lr = 0.003;
};

inline std::string config_json(const ConfigSpec& c) {
  nlohmann::json j;
  j["model"] = {{"attention",
                 {{"causal", true},
                  {"d_k", c.d_k},
                  {"d_model", c.width},
                  {"d_v", c.d_v},
                  {"heads", c.heads},
                  {"heads_k", c.heads},
                  {"heads_v", c.heads},
                  {"kind", c.kind}}},
                {"context", c.context},
                {"depth", c.depth},
                {"embed_rank", c.embed_rank},
                {"mlp_ratio", 4},
                {"pos_rank", c.pos_rank},
                {"vocab", c.vocab},
                {"width", c.width}};
  if (!c.positions.empty()) j["model"]["positions"] = c.positions;
  j["train"] = {{"batch", 8},     {"corpus", "kjv"}, {"lr", c.lr},
                {"seed", c.seed}, {"steps", 30},     {"tokenizer", c.tokenizer}};
  return j.dump();
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline std::string suite_toml(const std::string& file) {
  return read_text(std::string(HEADROOM_SOURCE_DIR) + "/assets/suites/" + file);
}
inline std::string reference_dir() { return std::string(HEADROOM_SOURCE_DIR) + "/assets/reference"; }

// A fresh DB file in a temp dir with a RunStore on it.
class ScratchDb {
 public:
  ScratchDb() : connection_(db::Connection::open(dir_.path("x.sqlite"), db::OpenMode::Create)), store_(connection_) {}
  db::RunStore& store() { return store_; }
  std::string dir_path(const std::string& name) const { return dir_.path(name); }

  std::int64_t add_run(std::optional<std::int64_t> suite_id, const std::string& name, const ConfigSpec& config,
                       std::int64_t param_count = 1000) {
    db::NewRun run;
    run.suite_id = suite_id;
    run.name = name;
    run.config_json = config_json(config);
    run.seed = config.seed;
    run.param_count = param_count;
    return store_.enqueue_run(run);
  }

  // val_loss at steps 0, 10, ... (one per value); tokens 128 per step, wall 0.01 s per step.
  void log(std::int64_t run_id, const std::string& metric, const std::vector<double>& values, std::int64_t every = 10) {
    std::vector<db::MetricRow> rows;
    for (std::size_t i = 0; i < values.size(); ++i) {
      const auto step = static_cast<std::int64_t>(i) * every;
      rows.push_back(db::MetricRow{metric, step, step * 128, static_cast<double>(step) * 0.01, values[i]});
    }
    store_.append_metrics(run_id, rows);
  }

  void start(const std::string& name) { store_.claim_by_name(name, "w", 60); }
  void finish(const std::string& name) {
    const auto run = store_.claim_by_name(name, "w", 60);
    store_.finish(run->id, "w");
  }
  void fail(const std::string& name) {
    const auto run = store_.claim_by_name(name, "w", 60);
    store_.fail(run->id, "w", "diverged");
  }

 private:
  db::testing::TempDir dir_{"explorer"};
  db::Connection connection_;
  db::RunStore store_;
};

}  // namespace headroom::explorer::testing

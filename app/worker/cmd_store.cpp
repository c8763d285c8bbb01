// `headroom-worker status`, `export` and `merge`: reading and folding experiments databases.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "app/worker/worker_cli.h"
#include "experiments_db/connection.h"
#include "experiments_db/run_store.h"

namespace headroom::worker {
namespace {

bool require_existing(const std::string& cmd, const std::string& path) {
  if (access(path.c_str(), F_OK) == 0) return true;
  std::cerr << "headroom-worker " << cmd << ": " << path << ": no such experiments database\n";
  return false;
}

nlohmann::json finite_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

int run_status(const std::string& path, bool json) {
  if (!require_existing("status", path)) return kExitBadInput;
  auto conn = db::Connection::open(path, db::OpenMode::ReadOnly);
  db::RunStore store(conn);
  nlohmann::ordered_json out;
  out["runs"] = nlohmann::ordered_json::array();
  const auto runs = store.list_runs();
  for (const auto& r : runs) {
    nlohmann::ordered_json metrics = nlohmann::ordered_json::object();
    for (const auto& [name, value] : store.latest_metrics(r.id)) metrics[name] = finite_or_null(value);
    nlohmann::ordered_json j = {{"id", r.id},       {"name", r.name},
                                {"suite", r.suite_name}, {"status", db::to_string(r.status)},
                                {"step", r.current_step}, {"metrics", metrics},
                                {"worker", r.worker}, {"attempts", r.attempts},
                                {"param_count", r.param_count}};
    if (!r.error_text.empty()) j["error"] = r.error_text;
    out["runs"].push_back(j);
  }
  if (json) {
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::printf("%-4s %-44s %-10s %8s %10s %10s\n", "id", "name", "status", "step", "train", "val");
  for (const auto& r : out["runs"]) {
    auto metric = [&](const char* k) {
      const auto& m = r["metrics"];
      return m.contains(k) && m[k].is_number() ? m[k].get<double>() : NAN;
    };
    std::printf("%-4lld %-44s %-10s %8lld %10.4f %10.4f\n", static_cast<long long>(r["id"].get<int64_t>()),
                r["name"].get<std::string>().c_str(), r["status"].get<std::string>().c_str(),
                static_cast<long long>(r["step"].get<int64_t>()), metric("train_loss"), metric("val_loss"));
  }
  return kExitOk;
}

int run_export(const std::string& path, std::optional<int64_t> run) {
  if (!require_existing("export", path)) return kExitBadInput;
  auto conn = db::Connection::open(path, db::OpenMode::ReadOnly);
  db::RunStore store(conn);
  if (run && !store.get_run(*run)) {
    std::cerr << "headroom-worker export: " << path << " has no run with id " << *run << " (see `status`)\n";
    return kExitBadInput;
  }
  std::cout << "run,metric,step,value\n";
  store.export_rows(run, [](const db::ExportRow& r) {
    std::printf("%lld,%s,%lld,%.9g\n", static_cast<long long>(r.run_id), r.metric.c_str(), static_cast<long long>(r.step), r.value);
  });
  return kExitOk;
}

int run_merge(const std::string& out, const std::vector<std::string>& inputs) {
  for (const auto& in : inputs)
    if (!require_existing("merge", in)) return kExitBadInput;
  auto conn = db::Connection::open(out, db::OpenMode::Create);
  db::RunStore store(conn);
  for (const auto& in : inputs) {
    const auto report = store.merge_from(in);
    std::cout << "merged " << in << ": " << report.runs_added << " runs added, " << report.runs_replaced
              << " replaced, " << report.runs_skipped << " kept as they were\n";
  }
  return kExitOk;
}

}  // namespace

Command register_status(CLI::App& root) {
  auto db = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto* app = root.add_subcommand("status", "Every run with its status, step and latest metrics");
  app->add_option("--db", *db, "Experiments database")->required();
  app->add_flag("--json", *json, "Print one JSON object {\"runs\": [...]}");
  return {app, [db, json] { return run_status(*db, *json); }};
}

Command register_export(CLI::App& root) {
  auto db = std::make_shared<std::string>();
  auto run = std::make_shared<std::optional<int64_t>>();
  auto csv = std::make_shared<bool>(false);
  auto* app = root.add_subcommand("export", "Metrics as CSV rows run,metric,step,value on stdout");
  app->add_option("--db", *db, "Experiments database")->required();
  app->add_option("--run", *run, "Only this run id");
  app->add_flag("--csv", *csv, "CSV output (the only format)");
  return {app, [db, run] { return run_export(*db, *run); }};
}

Command register_merge(CLI::App& root) {
  auto out = std::make_shared<std::string>();
  auto inputs = std::make_shared<std::vector<std::string>>();
  auto* app = root.add_subcommand("merge", "Fold experiments databases (e.g. cluster shards) into one");
  app->add_option("out", *out, "Output database (created if missing)")->required();
  app->add_option("inputs", *inputs, "Databases to fold in")->required();
  return {app, [out, inputs] { return run_merge(*out, *inputs); }};
}

}  // namespace headroom::worker

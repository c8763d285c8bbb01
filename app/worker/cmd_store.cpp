// `headroom-worker status`, `export` and `merge`: reading and folding experiments databases.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "app/worker/worker_cli.h"
#include "app/worker/worker_common.h"
#include "core/io/safetensors.h"
#include "core/io/tensor_bridge.h"
#include "experiments_db/connection.h"
#include "experiments_db/db_error.h"
#include "experiments_db/evenly_spaced.h"
#include "experiments_db/run_liveness.h"
#include "experiments_db/run_store.h"
#include "experiments_db/transaction.h"

namespace headroom::worker {
namespace {

// The series a shared DB keeps whole under --aux-series-points: the curves the write-ups and the
// explorer's figures read.
const std::set<std::string> kLossSeries = {"train_loss", "val_loss"};

nlohmann::json finite_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

// What `status` narrows its table to, or sums it into.
struct StatusOptions {
  std::vector<std::string> suites;  // --suite: only these suites' runs (a suite's name or file stem)
  bool summary = false;             // --summary: one line per suite instead of one per run
};

// The suite names `given` picks among the DB's: each by its name ("lrb-heads") or its file's stem
// ("lrb_heads"). False, with one message naming the DB's suites, for a name that is not there.
bool resolve_status_suites(const std::vector<std::string>& given, const std::vector<std::string>& present,
                           const std::string& path, std::set<std::string>* picked) {
  for (const std::string& name : given) {
    std::string dashed = name;
    std::replace(dashed.begin(), dashed.end(), '_', '-');
    const auto it =
        std::find_if(present.begin(), present.end(), [&](const std::string& p) { return p == name || p == dashed; });
    if (it != present.end()) {
      picked->insert(*it);
      continue;
    }
    std::string have;
    for (const std::string& p : present) have += (have.empty() ? "" : ", ") + p;
    std::cerr << "headroom-worker status: --suite " << name << ": no runs of such a suite in " << path << " ("
              << (have.empty() ? "it has no suites" : "its suites: " + have) << ")\n";
    return false;
  }
  return true;
}

// --summary: a line per suite, in the order the suites first appear among the runs: how many runs,
// how many in each status shown (a running run no worker trains counts as interrupted or stalled),
// and the run with the lowest latest validation loss, per corpus and tokenizer (losses per byte and
// per BPE token of different vocabularies are not comparable: the line names the lowest only where
// a suite's runs share one).
int print_status_summary(const nlohmann::ordered_json& runs, bool json) {
  struct Lowest {
    double loss = NAN;
    std::string run;
  };
  struct SuiteSum {
    int runs = 0;
    std::map<std::string, int> by_status;
    std::vector<std::pair<std::string, std::string>> data;  // (corpus, tokenizer), in order of appearance
    std::map<std::pair<std::string, std::string>, Lowest> lowest;
  };
  auto text_or = [](const nlohmann::ordered_json& v, const char* unknown) {
    return v.is_string() ? v.get<std::string>() : std::string(unknown);
  };
  std::vector<std::string> order;
  std::map<std::string, SuiteSum> sums;
  for (const auto& r : runs) {
    const std::string suite = r["suite"].get<std::string>().empty() ? "(no suite)" : r["suite"].get<std::string>();
    if (!sums.count(suite)) order.push_back(suite);
    SuiteSum& sum = sums[suite];
    ++sum.runs;
    ++sum.by_status[r.value("shown_status", r["status"].get<std::string>())];
    const std::pair<std::string, std::string> data = {text_or(r["corpus"], "?"), text_or(r["tokenizer"], "?")};
    if (std::find(sum.data.begin(), sum.data.end(), data) == sum.data.end()) sum.data.push_back(data);
    const auto& m = r["metrics"];
    if (m.contains("val_loss") && m["val_loss"].is_number()) {
      const double v = m["val_loss"].get<double>();
      Lowest& low = sum.lowest[data];
      if (!(v >= low.loss)) {  // the first finite value, or a lower one
        low.loss = v;
        low.run = r["name"].get<std::string>();
      }
    }
  }
  // The statuses in their life cycle's order; any other word the DB shows after them.
  const std::vector<std::string> kOrder = {"done",      "running",     "queued", "failed",
                                           "cancelled", "interrupted", "stalled"};
  auto status_words = [&](const SuiteSum& sum) {
    std::vector<std::pair<std::string, int>> out;
    for (const std::string& w : kOrder)
      if (sum.by_status.count(w)) out.emplace_back(w, sum.by_status.at(w));
    for (const auto& [w, n] : sum.by_status)
      if (std::find(kOrder.begin(), kOrder.end(), w) == kOrder.end()) out.emplace_back(w, n);
    return out;
  };
  if (json) {
    nlohmann::ordered_json out = {{"suites", nlohmann::ordered_json::array()}};
    for (const std::string& suite : order) {
      const SuiteSum& sum = sums.at(suite);
      nlohmann::ordered_json by_status = nlohmann::ordered_json::object();
      for (const auto& [w, n] : status_words(sum)) by_status[w] = n;
      nlohmann::ordered_json lowest = nlohmann::ordered_json::array();
      for (const auto& data : sum.data) {
        const auto it = sum.lowest.find(data);
        lowest.push_back(
            {{"corpus", data.first},
             {"tokenizer", data.second},
             {"val_loss", it == sum.lowest.end() ? nlohmann::json(nullptr) : finite_or_null(it->second.loss)},
             {"run", it == sum.lowest.end() ? std::string() : it->second.run}});
      }
      out["suites"].push_back(
          {{"suite", suite}, {"runs", sum.runs}, {"by_status", by_status}, {"lowest_val_loss", lowest}});
    }
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  int suite_width = 20, status_width = 24;
  std::vector<std::string> status_texts;
  for (const std::string& suite : order) {
    std::string text;
    for (const auto& [w, n] : status_words(sums.at(suite)))
      text += (text.empty() ? "" : ", ") + std::to_string(n) + " " + w;
    status_width = std::max(status_width, static_cast<int>(text.size()));
    suite_width = std::max(suite_width, static_cast<int>(suite.size()));
    status_texts.push_back(text);
  }
  std::printf("%-*s %5s  %-*s %10s  %s\n", suite_width, "suite", "runs", status_width, "status", "lowest val", "(run)");
  for (size_t i = 0; i < order.size(); ++i) {
    const SuiteSum& sum = sums.at(order[i]);
    char best[32] = "-";
    std::string run;
    if (sum.data.size() > 1) {
      run = "(" + std::to_string(sum.data.size()) + " corpora / tokenizers, losses in other units: see --json)";
    } else if (!sum.lowest.empty()) {
      std::snprintf(best, sizeof best, "%.4f", sum.lowest.begin()->second.loss);
      run = sum.lowest.begin()->second.run;
    }
    std::printf("%-*s %5d  %-*s %10s  %s\n", suite_width, order[i].c_str(), sum.runs, status_width,
                status_texts[i].c_str(), best, run.c_str());
  }
  return kExitOk;
}

int run_status(const std::string& path, bool json, const StatusOptions& options) {
  if (!require_existing_db(path, "status")) return kExitBadInput;
  auto conn = db::Connection::open(path, db::OpenMode::ReadOnly);
  db::RunStore store(conn);
  nlohmann::ordered_json out;
  out["runs"] = nlohmann::ordered_json::array();
  auto runs = store.list_runs();
  if (!options.suites.empty()) {
    std::vector<std::string> present;
    for (const auto& r : runs)
      if (!r.suite_name.empty() && std::find(present.begin(), present.end(), r.suite_name) == present.end())
        present.push_back(r.suite_name);
    std::set<std::string> picked;
    if (!resolve_status_suites(options.suites, present, path, &picked)) return kExitBadInput;
    runs.erase(std::remove_if(runs.begin(), runs.end(), [&](const auto& r) { return !picked.count(r.suite_name); }),
               runs.end());
  }
  const auto weights = store.artifact_counts(std::string(db::kWeightsArtifact));
  const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  for (const auto& r : runs) {
    nlohmann::ordered_json metrics = nlohmann::ordered_json::object();
    for (const auto& [name, value] : store.latest_metrics(r.id)) metrics[name] = finite_or_null(value);
    // Tokens per second over the whole run, as the explorer's table shows it (the metric
    // tokens_per_s is the last logged window's rate).
    const auto clock = store.last_clock(r.id, db::kClockMetric);
    const double mean_rate = clock ? clock->tokens_per_second() : NAN;
    nlohmann::ordered_json j = {{"id", r.id},
                                {"name", r.name},
                                {"suite", r.suite_name},
                                {"status", db::to_string(r.status)},
                                {"step", r.current_step},
                                {"metrics", metrics},
                                {"mean_tokens_per_s", finite_or_null(mean_rate)},
                                {"worker", r.worker},
                                {"attempts", r.attempts},
                                {"param_count", r.param_count},
                                {"weights", weights.count(r.id) ? weights.at(r.id) : 0}};
    // What its losses are measured on: runs of other corpora or tokenizers have losses in other units.
    const auto config = nlohmann::json::parse(r.config_json, nullptr, /*allow_exceptions=*/false);
    const auto train_key = [&](const char* key) -> nlohmann::ordered_json {
      if (!config.is_object() || !config.contains("train") || !config["train"].is_object()) return nullptr;
      const auto& train = config["train"];
      return train.contains(key) && train[key].is_string() ? nlohmann::ordered_json(train[key].get<std::string>())
                                                           : nlohmann::ordered_json(nullptr);
    };
    j["corpus"] = train_key("corpus");
    j["tokenizer"] = train_key("tokenizer");
    if (!r.error_text.empty()) j["error"] = r.error_text;
    if (r.status == db::RunStatus::Running) {
      // A worker killed outright leaves its run "running": say whether one still trains it.
      const db::WorkerCheck check = db::check_worker(r.worker, r.heartbeat_at, now);
      j["worker_state"] = check.state == db::WorkerState::Gone     ? "gone"
                          : check.state == db::WorkerState::Silent ? "silent"
                                                                   : "alive";
      if (r.heartbeat_at) j["heartbeat_age_s"] = check.heartbeat_age;
      if (const std::string problem = db::worker_problem(r.worker, check, path); !problem.empty()) {
        j["shown_status"] = db::running_word(check.state);
        j["worker_problem"] = problem;
      }
    }
    out["runs"].push_back(j);
  }
  if (options.summary) return print_status_summary(out["runs"], json);
  if (json) {
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  // weights: stored weight snapshots (the explorer's Run tab opens them in the lab).
  // The name column fits the longest name (44 at least), so long names do not shift the columns;
  // on a terminal (or with COLUMNS) a line keeps to its width, longer names shortened in the middle
  // (`--json` always has them whole).
  // Column widths, each column but the last followed by one space; the name's width varies.
  constexpr int kId = 4, kStatus = 11, kStep = 8, kLoss = 10, kWeights = 8;
  constexpr int kOtherColumns = (kId + 1) + (kStatus + 1) + (kStep + 1) + 2 * (kLoss + 1) + kWeights;
  int name_width = 44;
  for (const auto& r : out["runs"])
    name_width = std::max(name_width, static_cast<int>(r["name"].get<std::string>().size()));
  if (const int columns = output_columns(); columns > 0)
    name_width = std::min(name_width, std::max(20, columns - kOtherColumns - 1));
  std::printf("%-*s %-*s %-*s %*s %*s %*s %*s\n", kId, "id", name_width, "name", kStatus, "status", kStep, "step",
              kLoss, "train", kLoss, "val", kWeights, "weights");
  for (const auto& r : out["runs"]) {
    auto metric = [&](const char* k) {
      const auto& m = r["metrics"];
      return m.contains(k) && m[k].is_number() ? m[k].get<double>() : NAN;
    };
    auto loss = [&](const char* k) {  // "-" until the run has logged one
      const double v = metric(k);
      if (!std::isfinite(v)) return std::string("-");
      char text[32];
      std::snprintf(text, sizeof text, "%.4f", v);
      return std::string(text);
    };
    std::printf("%-*lld %-*s %-*s %*lld %*s %*s %*lld\n", kId, static_cast<long long>(r["id"].get<int64_t>()),
                name_width, elide_middle(r["name"].get<std::string>(), static_cast<size_t>(name_width)).c_str(),
                kStatus, r.value("shown_status", r["status"].get<std::string>()).c_str(), kStep,
                static_cast<long long>(r["step"].get<int64_t>()), kLoss, loss("train_loss").c_str(), kLoss,
                loss("val_loss").c_str(), kWeights, static_cast<long long>(r["weights"].get<int64_t>()));
  }
  // Why runs failed, under the table (a run's error is its last line of output, kept in the DB).
  for (const auto& r : out["runs"])
    if (r.contains("error") && r["status"] == "failed")
      std::printf("run %lld failed: %s\n", static_cast<long long>(r["id"].get<int64_t>()),
                  r["error"].get<std::string>().c_str());
  // And which "running" runs no worker trains any more.
  for (const auto& r : out["runs"])
    if (r.contains("worker_problem"))
      std::printf("run %lld %s at step %lld: %s\n", static_cast<long long>(r["id"].get<int64_t>()),
                  r["shown_status"].get<std::string>().c_str(), static_cast<long long>(r["step"].get<int64_t>()),
                  r["worker_problem"].get<std::string>().c_str());
  return kExitOk;
}

int run_export(const std::string& path, std::optional<int64_t> run) {
  if (!require_existing_db(path, "export")) return kExitBadInput;
  auto conn = db::Connection::open(path, db::OpenMode::ReadOnly);
  db::RunStore store(conn);
  if (run && !store.get_run(*run)) {
    std::cerr << "headroom-worker export: " << path << " has no run with id " << *run << " (see `status`)\n";
    return kExitBadInput;
  }
  std::cout << "run,metric,step,value\n";
  store.export_rows(run, [](const db::ExportRow& r) {
    std::printf("%lld,%s,%lld,%.9g\n", static_cast<long long>(r.run_id), r.metric.c_str(),
                static_cast<long long>(r.step), r.value);
  });
  return kExitOk;
}

long long file_size(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 ? static_cast<long long>(st.st_size) : -1;
}

// Weights in 16 bits: every F32 / F64 tensor becomes F16 (bf16 would keep the range, but these
// models' weights are small and F16 keeps 3 more bits of mantissa).
db::Blob to_f16(core::StFile f, const std::string& note) {
  for (auto& t : f.tensors)
    if (t.dtype == "F32" || t.dtype == "F64") t = core::to_st_tensor(t.name, core::from_st_tensor(t).to(torch::kHalf));
  f.metadata["exported"] = note;
  return core::encode_safetensors(f);
}

// What `export --results-only` keeps (its flags).
struct ResultsExport {
  int weights_per_suite = 6;
  bool done_only = false;
  std::optional<int> snapshots_per_run;
  std::optional<int> aux_series_points;
  std::vector<std::string> keep_weights_of;    // run names
  std::vector<std::string> keep_snapshots_of;  // run names
};

// A DB for sharing (issue: ship the papers' results): every suite, run, config and metric; no
// checkpoints (model + optimiser state); the final weights of at most `weights_per_suite` runs per
// suite (the runs named in `keep_weights_of` first, then lowest seed first, then enqueue order;
// runs outside a suite count as one suite; weights byte for byte a kept run's are stored once and
// do not count), in 16 bits; with `snapshots_per_run`, at most that many P_l / P_w snapshots per
// run (but the runs named in `keep_snapshots_of`, which keep all of theirs), evenly spaced over
// training, the first and the last always among them; with `aux_series_points`, at most that many
// points of each series but the losses (kLossSeries), spaced the same way. Written into the
// new file `out` from one snapshot of `source`, which is only read: its checkpoints and the
// weights of runs past each suite's quota are never read (a paper-scale DB is gigabytes of them).
int compact_export(db::Connection& source, db::Connection& conn, const ResultsExport& o) {
  const std::string weights_kind(db::kWeightsArtifact);
  const std::string& out = conn.path();
  db::RunStore store(conn), from(source);
  db::Transaction snapshot(source, db::TransactionKind::Read);
  db::Transaction transaction(conn);
  store.copy_from(source, {std::string(db::kCheckpointArtifact), weights_kind});
  int64_t dropped = 0;
  if (o.done_only) {  // the runs still queued, running or failed go, with their metrics and artifacts
    auto del = conn.prepare("DELETE FROM runs WHERE status <> 'done'");
    del.step();
    dropped = conn.changes();
  }
  // Which runs keep weights: their last weights, by step, in 16 bits, under the artifact id they
  // had. A run whose weights are byte for byte a kept run's (the same model by construction: one
  // config and seed in two suites) does not count: they are stored once, and its suite takes its
  // next run instead.
  std::map<std::string, std::vector<db::RunRecord>> by_suite;
  for (const auto& r : store.list_runs()) by_suite[r.suite_name].push_back(r);
  auto read =
      source.prepare("SELECT id, bytes, created_at FROM artifacts WHERE run_id = ?1 AND kind = ?2 AND step = ?3");
  auto insert =
      conn.prepare("INSERT INTO artifacts (id, run_id, step, kind, bytes, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
  struct Weights {
    int64_t artifact_id = 0;
    db::Blob bytes;
    double created_at = 0;
  };
  const auto read_weights = [&](int64_t run_id, int64_t step) {
    read.reset();
    read.bind(1, run_id).bind(2, weights_kind).bind(3, step);
    if (!read.step())
      throw std::runtime_error("the weights of run " + std::to_string(run_id) + " at step " + std::to_string(step) +
                               " vanished while they were read");
    return Weights{read.column_int64(0), read.column_blob(1), read.column_double(2)};
  };
  const auto hash = [](const db::Blob& b) {
    return std::hash<std::string_view>{}(std::string_view(reinterpret_cast<const char*>(b.data()), b.size()));
  };
  std::map<int64_t, int64_t> keep;  // run id -> step of its last weights
  struct Kept {
    const db::RunRecord* run;
    int64_t step;
  };
  std::multimap<size_t, Kept> kept_by_hash;                // by the hash of their source bytes
  std::vector<std::pair<std::string, std::string>> twins;  // (run left without, the run that has them)
  const std::set<std::string> named(o.keep_weights_of.begin(), o.keep_weights_of.end());
  for (auto& [suite, runs] : by_suite) {
    std::stable_sort(runs.begin(), runs.end(), [&named](const db::RunRecord& a, const db::RunRecord& b) {
      return std::make_pair(!named.count(a.name), a.seed) < std::make_pair(!named.count(b.name), b.seed);
    });
    int kept = 0;
    for (const auto& r : runs) {
      if (kept >= o.weights_per_suite) break;
      const auto steps = from.artifact_steps(r.id, weights_kind);
      if (steps.empty()) continue;
      const Weights w = read_weights(r.id, steps.back());
      const size_t h = hash(w.bytes);
      const db::RunRecord* twin = nullptr;  // a hash match is read again and compared whole
      for (auto [it, end] = kept_by_hash.equal_range(h); it != end && !twin; ++it)
        if (read_weights(it->second.run->id, it->second.step).bytes == w.bytes) twin = it->second.run;
      if (twin) {
        twins.emplace_back(r.name, twin->name);
        continue;
      }
      const auto f16 =
          to_f16(core::decode_safetensors(w.bytes.data(), w.bytes.size(), "run " + std::to_string(r.id) + " weights"),
                 "results-only: weights in F16");
      insert.reset();
      insert.bind(1, w.artifact_id).bind(2, r.id).bind(3, steps.back()).bind(4, weights_kind);
      insert.bind(5, db::BlobView(f16.data(), f16.size())).bind(6, w.created_at);
      insert.step();
      keep[r.id] = steps.back();
      kept_by_hash.emplace(h, Kept{&r, steps.back()});
      ++kept;
    }
  }
  int64_t thinned = 0;
  if (o.snapshots_per_run) {
    const auto kind = std::string(db::kTalkingHeadsArtifact);
    auto del = conn.prepare("DELETE FROM artifacts WHERE run_id = ?1 AND kind = ?2 AND step = ?3");
    const std::set<std::string> whole(o.keep_snapshots_of.begin(), o.keep_snapshots_of.end());
    for (const auto& r : store.list_runs()) {
      if (whole.count(r.name)) continue;
      const auto steps = store.artifact_steps(r.id, kind);  // ascending
      const auto keep_n = static_cast<size_t>(*o.snapshots_per_run);
      if (steps.size() <= keep_n) continue;
      const std::set<int64_t> kept = db::evenly_spaced(steps, keep_n);
      for (int64_t step : steps) {
        if (kept.count(step)) continue;
        del.reset();
        del.bind(1, r.id).bind(2, kind).bind(3, step);
        del.step();
        ++thinned;
      }
    }
  }
  // The P_l / P_w snapshots left, in 16 bits too: drawn as maps, they need no more (F16 keeps ~3
  // significant digits; every reader widens it, core::StTensor::as_f32). Half the bytes of the
  // shipped DB's largest artifacts after the weights.
  int64_t halved = 0;
  {
    auto snapshots = conn.prepare("SELECT id, run_id, step, bytes FROM artifacts WHERE kind = ?1 ORDER BY id");
    snapshots.bind(1, std::string(db::kTalkingHeadsArtifact));
    auto update = conn.prepare("UPDATE artifacts SET bytes = ?2 WHERE id = ?1");
    std::vector<std::pair<int64_t, db::Blob>> rewritten;
    while (snapshots.step()) {
      const db::Blob bytes = snapshots.column_blob(3);
      const std::string what = "run " + std::to_string(snapshots.column_int64(1)) + "'s P_l / P_w snapshot at step " +
                               std::to_string(snapshots.column_int64(2));
      auto file = core::decode_safetensors(bytes.data(), bytes.size(), what);
      const bool wide = std::any_of(file.tensors.begin(), file.tensors.end(),
                                    [](const core::StTensor& t) { return t.dtype == "F32" || t.dtype == "F64"; });
      if (wide)
        rewritten.emplace_back(snapshots.column_int64(0), to_f16(std::move(file), "results-only: P_l / P_w in F16"));
    }
    for (const auto& [id, f16] : rewritten) {
      update.reset();
      update.bind(1, id).bind(2, db::BlobView(f16.data(), f16.size()));
      update.step();
    }
    halved = static_cast<int64_t>(rewritten.size());
  }
  const int64_t points_left_out = o.aux_series_points ? store.thin_series(kLossSeries, *o.aux_series_points) : 0;
  transaction.commit();
  snapshot.commit();
  conn.exec("VACUUM");                           // the runs and snapshots left out
  conn.exec("PRAGMA wal_checkpoint(TRUNCATE)");  // the file's size is its size now, not before the VACUUM
  // A rollback-journal file: a WAL file cannot be opened where its reader may not create the -shm
  // beside it (an installed /usr/share/headroom/results, a read-only share).
  conn.exec("PRAGMA journal_mode = DELETE");
  const std::string& path = source.path();
  std::cout << "exported " << path << " (" << file_size(path) << " bytes) to " << out << " (" << file_size(out)
            << " bytes): " << store.list_runs().size()
            << " runs with their configs and metrics, final weights in F16 for " << keep.size() << " of them (at most "
            << o.weights_per_suite << " per suite), no checkpoints";
  if (!twins.empty())
    std::cout << "; " << twins.size() << " runs' weights equal a kept run's and are stored once (below)";
  if (o.done_only) std::cout << "; " << dropped << " runs not done left out";
  if (o.snapshots_per_run) {
    std::cout << "; " << thinned << " P_l / P_w snapshots left out (at most " << *o.snapshots_per_run << " per run";
    const size_t named_runs = std::set<std::string>(o.keep_snapshots_of.begin(), o.keep_snapshots_of.end()).size();
    if (named_runs)
      std::cout << "; " << (named_runs == 1 ? "the run" : std::to_string(named_runs) + " runs")
                << " named in --keep-snapshots-of kept all";
    std::cout << ")";
  }
  if (halved) std::cout << "; " << halved << " P_l / P_w snapshots stored in F16";
  if (o.aux_series_points)
    std::cout << "; " << points_left_out << " points of series other than train_loss and val_loss left out (at most "
              << *o.aux_series_points << " per series)";
  std::cout << "\n";
  for (const auto& [run, holder] : twins)
    std::cout << "  " << run << ": final weights byte for byte " << holder
              << "'s (the same model), stored once, there\n";
  return kExitOk;
}

int run_export_results(const std::string& path, const std::string& out, const ResultsExport& o) {
  if (!require_existing_db(path, "export")) return kExitBadInput;
  if (access(out.c_str(), F_OK) == 0) {
    std::cerr << "headroom-worker export: " << out
              << " already exists; give --out a new file name (nothing is "
                 "overwritten)\n";
    return kExitBadInput;
  }
  auto source =
      db::Connection::open(path, db::OpenMode::Source);  // throws unless a Headroom DB we know (older ones too)
  {
    db::RunStore runs(source);
    // A named run that is missing, left out or without what it should keep is a typo or a wrong
    // DB: said before anything is written.
    const auto check = [&](const std::vector<std::string>& names, const char* flag, const std::string& kind,
                           const char* what) {
      for (const auto& name : names) {
        const auto run = runs.find_run(name);
        if (run && (!o.done_only || run->status == db::RunStatus::Done) && !runs.artifact_steps(run->id, kind).empty())
          continue;
        std::cerr << "headroom-worker export: " << flag << " " << name << ": "
                  << (!run ? "no such run in " + path + " (give run names as `headroom-worker status` lists them)"
                      : run->status != db::RunStatus::Done && o.done_only
                          ? "the run is not done, and --done-only leaves it out"
                          : "the run has no " + std::string(what) + " in " + path + " to keep")
                  << "; nothing was written\n";
        return false;
      }
      return true;
    };
    if (!check(o.keep_weights_of, "--keep-weights-of", std::string(db::kWeightsArtifact), "weights") ||
        !check(o.keep_snapshots_of, "--keep-snapshots-of", std::string(db::kTalkingHeadsArtifact),
               "P_l / P_w snapshots"))
      return kExitBadInput;
  }
  // A half-made export is no export: it goes, so the same command can run again once the cause
  // is fixed.
  const auto remove_out = [&out] {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::remove((out + suffix).c_str());
  };
  std::optional<db::Connection> target;
  try {
    target.emplace(db::Connection::open(out, db::OpenMode::Create));
  } catch (const std::exception& e) {
    remove_out();
    std::cerr << "headroom-worker export: cannot create " << out << " (" << e.what()
              << "); give --out a new file in a folder that exists and that you may write. Nothing was written\n";
    return kExitBadInput;
  }
  try {
    return compact_export(source, *target, o);
  } catch (const std::exception& e) {
    // SQLite reads a damaged source without complaint until it reaches the bad page.
    target.reset();
    remove_out();
    std::cerr << "headroom-worker export: " << path << " could not be exported (" << e.what() << "); if " << path
              << " is damaged, `sqlite3 " << path << " 'PRAGMA integrity_check'` says where. Nothing was written\n";
    // A damaged source is bad input (2, as for every command); a full disk or the like is not.
    const auto* db_error = dynamic_cast<const db::DbError*>(&e);
    const int code = db_error != nullptr ? db_error->sqlite_code() & 0xFF : 0;
    return code == SQLITE_CORRUPT || code == SQLITE_NOTADB ? kExitBadInput : kExitFailure;
  }
}

int run_merge(const std::string& out, const std::vector<std::string>& inputs) {
  for (const auto& in : inputs)
    if (!require_existing_db(in, "merge")) return kExitBadInput;
  // Every input is read before OUT is created or changed: a foreign, damaged or newer file, or
  // two runs of one name that are different experiments, stop the merge with nothing written.
  std::map<std::string, std::pair<std::string, std::string>> configs;  // run name -> (config, file)
  const auto collect = [&](const std::string& path) {
    auto conn = db::Connection::open(path, db::OpenMode::Source);
    db::RunStore store(conn);
    for (const auto& run : store.list_runs()) {
      const auto [it, fresh] = configs.emplace(run.name, std::make_pair(run.config_json, path));
      if (fresh) continue;
      if (const auto difference = db::run_config_difference(it->second.first, run.config_json)) {
        std::cerr << "headroom-worker merge: run " << run.name << " is one experiment in " << it->second.second
                  << " and another in " << path << " (" << *difference
                  << "); nothing was merged. Merge files of the same suites and scales, or keep them apart\n";
        return false;
      }
    }
    return true;
  };
  std::error_code ec;
  for (const auto& in : inputs) {
    if (std::filesystem::equivalent(out, in, ec)) {
      std::cerr << "headroom-worker merge: " << in << " is the database being merged into; merge other files (e.g. "
                << "shard outputs) into it instead\n";
      return kExitBadInput;
    }
  }
  if (std::filesystem::exists(out, ec) && !collect(out)) return kExitBadInput;
  for (const auto& in : inputs)
    if (!collect(in)) return kExitBadInput;
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
  auto options = std::make_shared<StatusOptions>();
  auto* app = root.add_subcommand("status", "Every run with its status, step and latest metrics");
  app->add_option("--db", *db, "Experiments database")->required();
  app->add_flag("--json", *json, "Print one JSON object {\"runs\": [...]} ({\"suites\": [...]} with --summary)");
  app->add_option("--suite", options->suites,
                  "Only the runs of this suite (its name, lrb-heads, or its file's, lrb_heads; repeatable)");
  app->add_flag("--summary", options->summary,
                "One line per suite: its runs, how many in each status, and the lowest latest val loss with its run");
  return {app, [db, json, options] { return run_status(*db, *json, *options); }};
}

Command register_export(CLI::App& root) {
  auto db = std::make_shared<std::string>();
  auto run = std::make_shared<std::optional<int64_t>>();
  auto csv = std::make_shared<bool>(false);
  auto results_only = std::make_shared<bool>(false);
  auto out = std::make_shared<std::string>();
  auto o = std::make_shared<ResultsExport>();
  auto* app =
      root.add_subcommand("export", "Metrics as CSV rows run,metric,step,value on stdout, or a compact DB to share");
  app->add_option("--db", *db, "Experiments database")->required();
  app->add_option("--run", *run, "Only this run id");
  app->add_flag("--csv", *csv, "CSV output (the default)");
  app->add_flag(
      "--results-only", *results_only,
      "Write a compact copy to --out: suites, runs, configs and metrics; no checkpoints; the final weights of "
      "a few runs per suite and the P_l / P_w snapshots in F16");
  app->add_option("--out", *out, "--results-only: the new database file (must not exist)");
  app->add_option("--weights-per-suite", o->weights_per_suite,
                  "--results-only: runs per suite that keep final weights (default 6; weights byte for byte a "
                  "kept run's are stored once and do not count)")
      ->check(CLI::Range(0, 100000));
  app->add_flag("--done-only", o->done_only,
                "--results-only: leave out runs that are not done (queued, running, failed)");
  app->add_option("--snapshots-per-run", o->snapshots_per_run,
                  "--results-only: keep at most this many P_l / P_w snapshots per run, evenly spaced, the first "
                  "and last among them (default: all)")
      ->check(CLI::Range(1, 100000));
  app->add_option("--aux-series-points", o->aux_series_points,
                  "--results-only: keep at most this many points of each series but train_loss and val_loss (lr, "
                  "grad_norm, tokens_per_s), evenly spaced, the first and last among them (default: all)")
      ->check(CLI::Range(1, 100000));
  app->add_option("--keep-weights-of", o->keep_weights_of,
                  "--results-only: these runs (by name; repeatable) keep their final weights first, within their "
                  "suite's --weights-per-suite");
  app->add_option("--keep-snapshots-of", o->keep_snapshots_of,
                  "--results-only: these runs (by name; repeatable) keep every P_l / P_w snapshot whatever "
                  "--snapshots-per-run says (a run whose replay should animate)");
  // Every variable an option writes lives as long as the command: CLI11 writes --csv into *csv
  // while it parses, after this function has returned (ASan found *csv freed by then).
  return {app, [app, db, run, csv, results_only, out, o]() -> int {
            // Options of one output given with the other's would be ignored in silence: refuse them.
            if (*csv && *results_only) {
              std::cerr << "headroom-worker export: --csv and --results-only ask for two different outputs (CSV rows "
                           "on stdout, a compact database in --out); give one\n";
              return kExitBadInput;
            }
            if (!*results_only) {
              size_t compact_options = 0;
              for (const char* name : {"--out", "--weights-per-suite", "--done-only", "--snapshots-per-run",
                                       "--aux-series-points", "--keep-weights-of", "--keep-snapshots-of"})
                compact_options += app->count(name);
              if (compact_options > 0) {
                std::cerr << "headroom-worker export: --out, --weights-per-suite, --done-only, --snapshots-per-run, "
                             "--aux-series-points and --keep-*-of shape the compact database that --results-only "
                             "writes; add --results-only (CSV, the default output, goes to stdout)\n";
                return kExitBadInput;
              }
              return run_export(*db, *run);
            }
            if (out->empty() || run->has_value()) {
              std::cerr << "headroom-worker export --results-only: give --out NEW.sqlite (and no --run: it exports "
                           "every run)\n";
              return kExitBadInput;
            }
            return run_export_results(*db, *out, *o);
          }};
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

// RunStore::merge_from and copy_from: folding another experiments database into this one, and
// copying one into a new file.
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "experiments_db/db_error.h"
#include "experiments_db/evenly_spaced.h"
#include "experiments_db/metric_blocks.h"
#include "experiments_db/run_store.h"
#include "experiments_db/transaction.h"

namespace headroom::db {
namespace {

int status_rank(RunStatus status) {
  switch (status) {
    case RunStatus::Queued: return 0;
    case RunStatus::Running: return 1;
    case RunStatus::Cancelled: return 2;
    case RunStatus::Failed: return 3;
    case RunStatus::Done: return 4;
  }
  return 0;
}

// The merge rule for two runs with the same name, see RunStore::merge_from.
bool got_further(const RunRecord& incoming, const RunRecord& existing) {
  const auto key = [](const RunRecord& run) {
    return std::make_tuple(run.status == RunStatus::Done, run.current_step, status_rank(run.status));
  };
  return key(incoming) > key(existing);
}

std::optional<std::string> nonempty(const std::string& text) {
  if (text.empty()) return std::nullopt;
  return text;
}

void flatten(const nlohmann::json& j, const std::string& prefix, std::map<std::string, nlohmann::json>* out) {
  if (!j.is_object()) {
    (*out)[prefix] = j;
    return;
  }
  for (auto it = j.begin(); it != j.end(); ++it)
    flatten(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), out);
}

}  // namespace

std::optional<std::string> run_config_difference(const std::string& first, const std::string& second,
                                                 const std::string& where_first, const std::string& where_second) {
  auto a_json = nlohmann::json::parse(first, nullptr, /*allow_exceptions=*/false);
  auto b_json = nlohmann::json::parse(second, nullptr, /*allow_exceptions=*/false);
  if (a_json.is_discarded() || b_json.is_discarded()) {
    if (first == second) return std::nullopt;
    return std::string("the configs differ, and one is not JSON");
  }
  std::map<std::string, nlohmann::json> a, b;
  flatten(a_json, "", &a);
  flatten(b_json, "", &b);
  a.erase("train.device");
  b.erase("train.device");
  const auto say = [&](const std::string& key, const std::string& x, const std::string& y) {
    return key + " is " + x + " " + where_first + ", " + y + " " + where_second;
  };
  for (const auto& [key, value] : a) {
    const auto it = b.find(key);
    if (it == b.end()) return say(key, value.dump(), "absent");
    if (it->second != value) return say(key, value.dump(), it->second.dump());
  }
  for (const auto& [key, value] : b)
    if (!a.count(key)) return key + " is absent " + where_first + ", " + value.dump() + " " + where_second;
  return std::nullopt;
}

MergeReport RunStore::merge_from(const std::string& other_path) {
  std::error_code error;
  if (std::filesystem::equivalent(connection_.path(), other_path, error)) {
    throw DbError(other_path +
                  ": is the database being merged into; merge other files (e.g. shard outputs) "
                  "into it instead");
  }
  // Opening as a source refuses foreign, damaged and newer files untouched; an older Headroom's
  // file is read as it is (every column read below is in schema 1).
  Connection source = Connection::open(other_path, OpenMode::Source);
  RunStore incoming(source);
  MergeReport report;

  Transaction snapshot(source, TransactionKind::Read);  // one consistent view, even if a worker writes it
  Transaction transaction(connection_);

  std::map<std::int64_t, std::int64_t> suite_ids;  // source id -> id here
  {
    Statement insert = connection_.prepare(
        "INSERT INTO suites (name, source_toml, scale, created_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (name) DO NOTHING");
    Statement select = connection_.prepare("SELECT id FROM suites WHERE name = ?");
    for (const SuiteRecord& suite : incoming.list_suites()) {
      insert.bind(1, suite.name).bind(2, suite.source_toml).bind(3, suite.scale).bind(4, suite.created_at);
      insert.step();
      insert.reset();
      if (connection_.changes() == 1) ++report.suites_added;
      select.bind(1, suite.name);
      select.step();
      suite_ids[suite.id] = select.column_int64(0);
      select.reset();
    }
  }

  Statement delete_run = connection_.prepare("DELETE FROM runs WHERE id = ?");  // cascades to metrics/artifacts
  Statement insert_run = connection_.prepare(
      "INSERT INTO runs (suite_id, name, config_json, status, worker, seed, shard_key, param_count, current_step, "
      "attempts, software_version, error_text, created_at, started_at, finished_at, heartbeat_at) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  Statement source_series = source.prepare("SELECT id, name FROM metric_series WHERE run_id = ? ORDER BY id");
  Statement insert_series = connection_.prepare("INSERT INTO metric_series (run_id, name) VALUES (?, ?)");
  Statement source_metrics =
      source.prepare("SELECT step, tokens, wall_seconds, value FROM metrics WHERE series_id = ? ORDER BY step");
  Statement insert_metric =
      connection_.prepare("INSERT INTO metrics (series_id, step, tokens, wall_seconds, value) VALUES (?, ?, ?, ?, ?)");
  Statement source_artifacts =
      source.prepare("SELECT step, kind, bytes, created_at FROM artifacts WHERE run_id = ? ORDER BY kind, step");
  Statement insert_artifact =
      connection_.prepare("INSERT INTO artifacts (run_id, step, kind, bytes, created_at) VALUES (?, ?, ?, ?, ?)");

  for (const RunRecord& run : incoming.list_runs()) {
    if (std::optional<RunRecord> existing = find_run(run.name)) {
      if (const auto difference = run_config_difference(existing->config_json, run.config_json)) {
        throw DbError(other_path + ": its run " + run.name + " is another experiment than the run of that name in " +
                      connection_.path() + " (" + *difference +
                      "); nothing of it was merged. Merge files of the same suites and scales, or keep them apart");
      }
      if (!got_further(run, *existing)) {
        ++report.runs_skipped;
        continue;
      }
      delete_run.bind(1, existing->id).step();
      delete_run.reset();
      ++report.runs_replaced;
    } else {
      ++report.runs_added;
    }

    std::optional<std::int64_t> suite_id;
    if (run.suite_id) suite_id = suite_ids.at(*run.suite_id);
    insert_run.bind(1, suite_id)
        .bind(2, run.name)
        .bind(3, run.config_json)
        .bind(4, to_string(run.status))
        .bind(5, nonempty(run.worker))
        .bind(6, run.seed)
        .bind(7, run.shard_key)
        .bind(8, run.param_count)
        .bind(9, run.current_step)
        .bind(10, run.attempts)
        .bind(11, run.software_version)
        .bind(12, nonempty(run.error_text))
        .bind(13, run.created_at)
        .bind(14, run.started_at)
        .bind(15, run.finished_at)
        .bind(16, run.heartbeat_at);
    insert_run.step();
    insert_run.reset();
    const std::int64_t run_id = connection_.last_insert_rowid();

    source_series.bind(1, run.id);
    while (source_series.step()) {
      insert_series.bind(1, run_id).bind(2, source_series.column_text(1)).step();
      insert_series.reset();
      const std::int64_t series_id = connection_.last_insert_rowid();
      source_metrics.bind(1, source_series.column_int64(0));
      while (source_metrics.step()) {
        insert_metric.bind(1, series_id)
            .bind(2, source_metrics.column_int64(0))
            .bind(3, source_metrics.column_int64(1))
            .bind(4, source_metrics.column_optional_double(2))
            .bind(5, source_metrics.column_optional_double(3));
        insert_metric.step();
        insert_metric.reset();
        ++report.metric_rows;
      }
      source_metrics.reset();
      detail::rebuild_metric_blocks(connection_, series_id);
    }
    source_series.reset();

    source_artifacts.bind(1, run.id);
    while (source_artifacts.step()) {
      const Blob bytes = source_artifacts.column_blob(2);
      insert_artifact.bind(1, run_id)
          .bind(2, source_artifacts.column_int64(0))
          .bind(3, source_artifacts.column_text(1))
          .bind(4, BlobView(bytes))
          .bind(5, source_artifacts.column_double(3));
      insert_artifact.step();
      insert_artifact.reset();
      ++report.artifacts;
    }
    source_artifacts.reset();
  }

  transaction.commit();
  snapshot.commit();
  return report;
}

std::int64_t RunStore::copy_from(Connection& source, const std::set<std::string>& artifact_kinds_left_out) {
  Transaction snapshot(source, TransactionKind::Read);
  Transaction transaction(connection_);
  {
    Statement occupied = connection_.prepare("SELECT EXISTS (SELECT 1 FROM suites) OR EXISTS (SELECT 1 FROM runs)");
    if (occupied.step() && occupied.column_int64(0) != 0) {
      throw DbError(connection_.path() + ": already holds suites or runs; copy " + source.path() +
                    " into a new database (use merge to fold it into this one)");
    }
  }
  // Our own tables, in the order they were created: a table's parents come before it. The
  // pyramid is derived data, rebuilt below rather than copied.
  std::vector<std::string> tables;
  {
    Statement list = connection_.prepare(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "AND name <> 'metric_blocks' ORDER BY rowid");
    while (list.step()) tables.push_back(list.column_text(0));
  }
  // The columns an older source has too; the ones it lacks are derived (schema.cpp), made below.
  const auto source_columns = [&source](const std::string& table) {
    std::set<std::string> names;
    Statement info = source.prepare("SELECT name FROM pragma_table_info(?1)");
    info.bind(1, table);
    while (info.step()) names.insert(info.column_text(0));
    return names;
  };
  std::int64_t artifacts = 0;
  for (const std::string& table : tables) {
    std::string columns, parameters;
    int count = 0;
    {
      const std::set<std::string> present = source_columns(table);
      Statement info = connection_.prepare("SELECT name FROM pragma_table_info(?1) ORDER BY cid");
      info.bind(1, table);
      while (info.step()) {
        const std::string name = info.column_text(0);
        if (!present.count(name)) continue;
        columns += (count == 0 ? "\"" : ", \"") + name + "\"";
        parameters += count == 0 ? "?" : ", ?";
        ++count;
      }
    }
    std::string select = "SELECT " + columns + " FROM \"" + table + "\"";
    const bool is_artifacts = table == "artifacts";
    if (is_artifacts && !artifact_kinds_left_out.empty()) {
      select += " WHERE kind NOT IN (";
      for (size_t i = 0; i < artifact_kinds_left_out.size(); ++i) select += i == 0 ? "?" : ", ?";
      select += ")";
    }
    Statement read = source.prepare(select);
    if (is_artifacts) {
      int index = 1;
      for (const std::string& kind : artifact_kinds_left_out) read.bind(index++, kind);
    }
    Statement write =
        connection_.prepare("INSERT INTO \"" + table + "\" (" + columns + ") VALUES (" + parameters + ")");
    while (read.step()) {
      for (int c = 0; c < count; ++c) write.bind_column(c + 1, read, c);
      write.step();
      write.reset();
      if (is_artifacts) ++artifacts;
    }
  }
  std::vector<std::int64_t> series;
  {
    Statement list = connection_.prepare("SELECT id FROM metric_series ORDER BY id");
    while (list.step()) series.push_back(list.column_int64(0));
  }
  for (const std::int64_t id : series) detail::rebuild_metric_blocks(connection_, id);
  transaction.commit();
  snapshot.commit();
  return artifacts;
}

std::int64_t RunStore::thin_series(const std::set<std::string>& kept_whole, int max_points) {
  if (max_points < 1)
    throw DbError("thin_series: keep at least one point per series, not " + std::to_string(max_points));
  Transaction transaction(connection_);
  std::vector<std::int64_t> series;
  {
    Statement list = connection_.prepare("SELECT id, name FROM metric_series ORDER BY id");
    while (list.step())
      if (!kept_whole.count(list.column_text(1))) series.push_back(list.column_int64(0));
  }
  Statement steps_of = connection_.prepare("SELECT step FROM metrics WHERE series_id = ?1 ORDER BY step");
  Statement drop = connection_.prepare("DELETE FROM metrics WHERE series_id = ?1 AND step = ?2");
  const auto keep_n = static_cast<std::size_t>(max_points);
  std::int64_t deleted = 0;
  for (const std::int64_t id : series) {
    std::vector<std::int64_t> steps;
    steps_of.reset();
    steps_of.bind(1, id);
    while (steps_of.step()) steps.push_back(steps_of.column_int64(0));
    if (steps.size() <= keep_n) continue;
    const std::set<std::int64_t> kept = evenly_spaced(steps, keep_n);
    for (const std::int64_t step : steps) {
      if (kept.count(step)) continue;
      drop.reset();
      drop.bind(1, id).bind(2, step);
      drop.step();
      ++deleted;
    }
    detail::rebuild_metric_blocks(connection_, id);
  }
  transaction.commit();
  return deleted;
}

}  // namespace headroom::db

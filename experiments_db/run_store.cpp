// RunStore: suites, runs and the queue. Progress and reading live in
// run_store_progress.cpp, merging in run_store_merge.cpp.
#include "experiments_db/run_store.h"

#include <chrono>
#include <nlohmann/json.hpp>

#include "experiments_db/db_error.h"
#include "experiments_db/run_store_sql.h"
#include "experiments_db/transaction.h"

namespace headroom::db {
namespace {

double system_seconds() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

std::string in_quotes(const std::string& text) { return "'" + text + "'"; }

}  // namespace

namespace detail {

RunRecord read_run(const Statement& row) {
  RunRecord run;
  run.id = row.column_int64(0);
  run.suite_id = row.column_optional_int64(1);
  run.suite_name = row.column_text(2);
  run.name = row.column_text(3);
  run.status = parse_run_status(row.column_text(4));
  run.worker = row.column_text(5);
  run.config_json = row.column_text(6);
  run.seed = row.column_int64(7);
  run.shard_key = row.column_int64(8);
  run.param_count = row.column_int64(9);
  run.current_step = row.column_int64(10);
  run.attempts = row.column_int64(11);
  run.software_version = row.column_text(12);
  run.error_text = row.column_text(13);
  run.created_at = row.column_double(14);
  run.started_at = row.column_optional_double(15);
  run.finished_at = row.column_optional_double(16);
  run.heartbeat_at = row.column_optional_double(17);
  return run;
}

}  // namespace detail

RunStore::RunStore(Connection& connection, Clock clock)
    : connection_(connection), clock_(clock ? std::move(clock) : Clock(system_seconds)) {}

double RunStore::now() const { return clock_(); }

void RunStore::require_run(std::int64_t run_id) {
  Statement statement = connection_.prepare("SELECT 1 FROM runs WHERE id = ?");
  statement.bind(1, run_id);
  if (!statement.step()) {
    throw DbError(connection_.path() + ": there is no run with id " + std::to_string(run_id) +
                  "; list the runs with `headroom-worker status`");
  }
}

// --- suites -----------------------------------------------------------------

std::int64_t RunStore::ensure_suite(const std::string& name, const std::string& source_toml, const std::string& scale) {
  if (name.empty()) throw DbError(connection_.path() + ": a suite needs a non-empty name");
  Transaction transaction(connection_);
  Statement insert = connection_.prepare(
      "INSERT INTO suites (name, source_toml, scale, created_at) VALUES (?, ?, ?, ?) "
      "ON CONFLICT (name) DO NOTHING");
  insert.bind(1, name).bind(2, source_toml).bind(3, scale).bind(4, now()).step();
  Statement select = connection_.prepare("SELECT id FROM suites WHERE name = ?");
  select.bind(1, name);
  select.step();
  const std::int64_t id = select.column_int64(0);
  transaction.commit();
  return id;
}

void RunStore::set_suite_source(std::int64_t id, const std::string& source_toml) {
  Statement update = connection_.prepare("UPDATE suites SET source_toml = ? WHERE id = ?");
  update.bind(1, source_toml).bind(2, id).step();
  if (connection_.changes() != 1)
    throw DbError(connection_.path() + ": there is no suite with id " + std::to_string(id) +
                  "; list the suites with `headroom-worker status --summary`");
}

std::vector<SuiteRecord> RunStore::list_suites() {
  Statement statement = connection_.prepare("SELECT id, name, source_toml, scale, created_at FROM suites ORDER BY id");
  std::vector<SuiteRecord> suites;
  while (statement.step()) {
    suites.push_back({statement.column_int64(0), statement.column_text(1), statement.column_text(2),
                      statement.column_text(3), statement.column_double(4)});
  }
  return suites;
}

// --- runs and the queue -------------------------------------------------------

std::int64_t RunStore::enqueue_run(const NewRun& run) {
  const std::string& path = connection_.path();
  if (run.name.empty()) throw DbError(path + ": a run needs a non-empty name");
  if (!nlohmann::json::accept(run.config_json)) {
    throw DbError(path + ": the config of run " + in_quotes(run.name) +
                  " is not valid JSON; pass the run's full config serialised as a JSON object");
  }
  if (run.shard_key && *run.shard_key < 0) {
    throw DbError(path + ": run " + in_quotes(run.name) + " has shard key " + std::to_string(*run.shard_key) +
                  "; shard keys must be 0 or more");
  }

  Transaction transaction(connection_);
  {
    Statement existing = connection_.prepare("SELECT id FROM runs WHERE name = ?");
    existing.bind(1, run.name);
    if (existing.step()) return existing.column_int64(0);  // idempotent: nothing to commit
  }
  if (run.suite_id) {
    Statement suite = connection_.prepare("SELECT 1 FROM suites WHERE id = ?");
    suite.bind(1, *run.suite_id);
    if (!suite.step()) {
      throw DbError(path + ": run " + in_quotes(run.name) + " refers to suite id " + std::to_string(*run.suite_id) +
                    ", which does not exist; create it with ensure_suite first");
    }
  }
  std::int64_t shard_key = 0;
  if (run.shard_key) {
    shard_key = *run.shard_key;
  } else {
    Statement position = connection_.prepare("SELECT count(*) FROM runs WHERE suite_id IS ?");
    position.bind(1, run.suite_id);
    position.step();
    shard_key = position.column_int64(0);
  }
  Statement insert = connection_.prepare(
      "INSERT INTO runs (suite_id, name, config_json, seed, shard_key, param_count, software_version, created_at) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  insert.bind(1, run.suite_id)
      .bind(2, run.name)
      .bind(3, run.config_json)
      .bind(4, run.seed)
      .bind(5, shard_key)
      .bind(6, run.param_count)
      .bind(7, run.software_version)
      .bind(8, now());
  insert.step();
  const std::int64_t id = connection_.last_insert_rowid();
  transaction.commit();
  return id;
}

std::optional<RunRecord> RunStore::get_run(std::int64_t run_id) {
  Statement statement = connection_.prepare(detail::select_runs_sql() + " WHERE r.id = ?");
  statement.bind(1, run_id);
  if (!statement.step()) return std::nullopt;
  return detail::read_run(statement);
}

std::optional<RunRecord> RunStore::find_run(const std::string& name) {
  Statement statement = connection_.prepare(detail::select_runs_sql() + " WHERE r.name = ?");
  statement.bind(1, name);
  if (!statement.step()) return std::nullopt;
  return detail::read_run(statement);
}

std::vector<RunRecord> RunStore::list_runs() {
  Statement statement = connection_.prepare(detail::select_runs_sql() + " ORDER BY r.id");
  std::vector<RunRecord> runs;
  while (statement.step()) runs.push_back(detail::read_run(statement));
  return runs;
}

std::vector<RunRecord> RunStore::list_runs(std::int64_t first_id, std::int64_t last_id, bool with_config) {
  std::vector<RunRecord> runs;
  for_each_run(first_id, last_id, with_config, [&](RunRecord&& run) { runs.push_back(std::move(run)); });
  return runs;
}

void RunStore::for_each_run(std::int64_t first_id, std::int64_t last_id, bool with_config,
                            const std::function<void(RunRecord&&)>& sink) {
  std::string sql = detail::select_runs_sql(with_config);
  Statement statement = connection_.prepare(sql + " WHERE r.id BETWEEN ?1 AND ?2 ORDER BY r.id");
  statement.bind(1, first_id).bind(2, last_id);
  while (statement.step()) sink(detail::read_run(statement));
}

std::optional<RunStore::RunIds> RunStore::run_ids() {
  Statement statement = connection_.prepare("SELECT min(id), max(id), count(*) FROM runs");
  if (!statement.step() || statement.column_is_null(0)) return std::nullopt;
  return RunIds{statement.column_int64(0), statement.column_int64(1), statement.column_int64(2)};
}

namespace {
// The claim's SET clause for the device: ?D is the device parameter's number. A config that is not
// JSON (a damaged or hand-edited row) is left as it is: json_set would fail the claim, and with it
// every claim after it; claimed, the run fails on its own with a message naming it.
std::string set_device_sql(int parameter) {
  const std::string d = "?" + std::to_string(parameter);
  return "config_json = CASE WHEN " + d + " = '' OR NOT json_valid(config_json) THEN config_json ELSE " +
         "json_set(config_json, '$.train.device', " + d + ") END";
}
}  // namespace

std::optional<RunRecord> RunStore::claim_next(const std::string& worker_id, int shard_index, int shard_count,
                                              double stale_after_seconds, const std::string& device) {
  if (shard_count < 1 || shard_index < 0 || shard_index >= shard_count) {
    throw DbError("shard " + std::to_string(shard_index) + "/" + std::to_string(shard_count) +
                  " does not exist: the count must be 1 or more and the index between 0 and count - 1 "
                  "(shards are numbered from 0, e.g. 0/2 and 1/2)");
  }
  if (worker_id.empty()) throw DbError(connection_.path() + ": a worker needs a non-empty id to claim runs");
  const double t = now();
  Transaction transaction(connection_);
  // One statement finds and takes the run; the transaction's write lock
  // (BEGIN IMMEDIATE) makes it exclusive among processes.
  Statement claim = connection_.prepare(R"sql(
UPDATE runs SET status = 'running', worker = ?1, heartbeat_at = ?2, started_at = coalesce(started_at, ?2),
                finished_at = NULL, error_text = NULL, attempts = attempts + 1, )sql" +
                                        set_device_sql(6) + R"sql(
WHERE id = (SELECT id FROM runs
            WHERE (status = 'queued' OR (status = 'running' AND coalesce(heartbeat_at, 0) < ?3))
              AND shard_key % ?4 = ?5
            ORDER BY id LIMIT 1)
RETURNING id)sql");
  claim.bind(1, worker_id).bind(2, t);
  if (stale_after_seconds > 0) {
    claim.bind(3, t - stale_after_seconds);
  } else {
    claim.bind(3, nullptr);  // "< NULL" is never true: nothing is stolen
  }
  claim.bind(4, shard_count).bind(5, shard_index).bind(6, device);
  if (!claim.step()) return std::nullopt;
  const std::int64_t id = claim.column_int64(0);
  while (claim.step()) {}
  std::optional<RunRecord> run = get_run(id);
  transaction.commit();
  return run;
}

std::optional<RunRecord> RunStore::claim_by_name(const std::string& name, const std::string& worker_id,
                                                 double stale_after_seconds, const std::string& device) {
  if (worker_id.empty()) throw DbError(connection_.path() + ": a worker needs a non-empty id to claim runs");
  const double t = now();
  Transaction transaction(connection_);
  std::optional<RunRecord> run = find_run(name);
  if (!run) {
    throw DbError(connection_.path() + ": there is no run named " + in_quotes(name) +
                  " (names are case-sensitive); enqueue it first, or list the runs with `headroom-worker status`");
  }
  if (run->status == RunStatus::Done) return std::nullopt;
  if (run->status == RunStatus::Running && run->worker != worker_id) {
    const double age = t - run->heartbeat_at.value_or(0);
    if (stale_after_seconds <= 0 || age < stale_after_seconds) {
      throw DbError(connection_.path() + ": run " + in_quotes(name) + " is being trained by worker " +
                    in_quotes(run->worker) + " (last heartbeat " + std::to_string(static_cast<long long>(age)) +
                    " s ago); cancel it first, or wait until its heartbeat is older than " +
                    std::to_string(static_cast<long long>(stale_after_seconds)) + " s");
    }
  }
  Statement claim = connection_.prepare(
      "UPDATE runs SET status = 'running', worker = ?1, heartbeat_at = ?2, started_at = coalesce(started_at, ?2), "
      "finished_at = NULL, error_text = NULL, attempts = attempts + 1, " +
      set_device_sql(4) + " WHERE id = ?3");
  claim.bind(1, worker_id).bind(2, t).bind(3, run->id).bind(4, device).step();
  run = get_run(run->id);
  transaction.commit();
  return run;
}

bool RunStore::update_owned_run(std::int64_t run_id, const std::string& worker_id, const char* set_clause,
                                const std::string* text) {
  Statement update = connection_.prepare(std::string("UPDATE runs SET ") + set_clause +
                                         " WHERE id = ?1 AND worker = ?2 AND status = 'running'");
  update.bind(1, run_id).bind(2, worker_id).bind(3, now());
  if (text != nullptr) update.bind(4, *text);
  update.step();
  return connection_.changes() == 1;
}

bool RunStore::heartbeat(std::int64_t run_id, const std::string& worker_id) {
  return update_owned_run(run_id, worker_id, "heartbeat_at = ?3", nullptr);
}

bool RunStore::finish(std::int64_t run_id, const std::string& worker_id) {
  return update_owned_run(run_id, worker_id, "status = 'done', finished_at = ?3, heartbeat_at = ?3", nullptr);
}

bool RunStore::fail(std::int64_t run_id, const std::string& worker_id, const std::string& error_text) {
  return update_owned_run(run_id, worker_id, "status = 'failed', finished_at = ?3, heartbeat_at = ?3, error_text = ?4",
                          &error_text);
}

bool RunStore::release(std::int64_t run_id, const std::string& worker_id) {
  // heartbeat_at keeps the release time (for "last seen"); a queued run is claimable whatever it says.
  return update_owned_run(run_id, worker_id, "status = 'queued', worker = NULL, heartbeat_at = ?3", nullptr);
}

bool RunStore::cancel(std::int64_t run_id) {
  Statement update = connection_.prepare(
      "UPDATE runs SET status = 'cancelled', finished_at = ?2 WHERE id = ?1 AND status IN ('queued', 'running')");
  update.bind(1, run_id).bind(2, now()).step();
  return connection_.changes() == 1;
}

bool RunStore::requeue(std::int64_t run_id) {
  Statement update = connection_.prepare(
      "UPDATE runs SET status = 'queued', worker = NULL, error_text = NULL, finished_at = NULL, "
      "heartbeat_at = NULL WHERE id = ?1 AND status IN ('failed', 'cancelled')");
  update.bind(1, run_id).step();
  return connection_.changes() == 1;
}

}  // namespace headroom::db

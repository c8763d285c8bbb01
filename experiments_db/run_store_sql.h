// Internal to headroom_db: SQL and row readers shared by the run_store*.cpp
// files. Not part of the public API.
#pragma once

#include <string>
#include <string_view>

#include "experiments_db/run_records.h"
#include "experiments_db/statement.h"

namespace headroom::db::detail {

// Selects every RunRecord column; append a WHERE / ORDER BY clause.
// The run columns read_run reads, in its order; `config` false selects '' for the config (a
// table of 100,000 runs reads ~50 MB less when it already has the configs).
inline std::string select_runs_sql(bool config = true) {
  return std::string("SELECT r.id, r.suite_id, coalesce(s.name, ''), r.name, r.status, coalesce(r.worker, ''), ") +
         (config ? "r.config_json" : "''") +
         ", r.seed, r.shard_key, r.param_count, r.current_step, r.attempts, r.software_version, "
         "coalesce(r.error_text, ''), r.created_at, r.started_at, r.finished_at, r.heartbeat_at "
         "FROM runs r LEFT JOIN suites s ON s.id = r.suite_id";
}

// Reads the current row of a statement built on select_runs_sql().
RunRecord read_run(const Statement& row);

}  // namespace headroom::db::detail

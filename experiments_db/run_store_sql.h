// Internal to headroom_db: SQL and row readers shared by the run_store*.cpp
// files. Not part of the public API.
#pragma once

#include <string_view>

#include "experiments_db/run_records.h"
#include "experiments_db/statement.h"

namespace headroom::db::detail {

// Selects every RunRecord column; append a WHERE / ORDER BY clause.
inline constexpr std::string_view kSelectRun =
    "SELECT r.id, r.suite_id, coalesce(s.name, ''), r.name, r.status, coalesce(r.worker, ''), r.config_json, "
    "r.seed, r.shard_key, r.param_count, r.current_step, r.attempts, r.software_version, "
    "coalesce(r.error_text, ''), r.created_at, r.started_at, r.finished_at, r.heartbeat_at "
    "FROM runs r LEFT JOIN suites s ON s.id = r.suite_id";

// Reads the current row of a statement built on kSelectRun.
RunRecord read_run(const Statement& row);

}  // namespace headroom::db::detail

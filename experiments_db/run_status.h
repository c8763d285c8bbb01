// The life cycle of a run in the queue.
#pragma once

#include <optional>
#include <string_view>

namespace headroom::db {

// queued -> running -> done | failed | cancelled. A running run whose worker
// stops sending heartbeats is claimed again by another worker (it stays
// "running" with a new worker). Failed and cancelled runs can be re-queued.
enum class RunStatus { Queued, Running, Done, Failed, Cancelled };

// "queued", "running", "done", "failed", "cancelled": the strings stored in
// the database and shown to users.
std::string_view to_string(RunStatus status);

// Inverse of to_string; nullopt for anything else.
std::optional<RunStatus> run_status_from_string(std::string_view text);

// Like run_status_from_string but throws a DbError listing the valid names.
RunStatus parse_run_status(std::string_view text);

}  // namespace headroom::db

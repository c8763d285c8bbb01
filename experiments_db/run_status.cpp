#include "experiments_db/run_status.h"

#include <array>
#include <string>
#include <utility>

#include "experiments_db/db_error.h"

namespace headroom::db {
namespace {

constexpr std::array<std::pair<RunStatus, std::string_view>, 5> kNames = {{
    {RunStatus::Queued, "queued"},
    {RunStatus::Running, "running"},
    {RunStatus::Done, "done"},
    {RunStatus::Failed, "failed"},
    {RunStatus::Cancelled, "cancelled"},
}};

}  // namespace

std::string_view to_string(RunStatus status) {
  for (const auto& [value, name] : kNames) {
    if (value == status) return name;
  }
  return "unknown";
}

std::optional<RunStatus> run_status_from_string(std::string_view text) {
  for (const auto& [value, name] : kNames) {
    if (name == text) return value;
  }
  return std::nullopt;
}

RunStatus parse_run_status(std::string_view text) {
  if (auto status = run_status_from_string(text)) return *status;
  throw DbError("unknown run status '" + std::string(text) +
                "'; expected one of queued, running, done, failed, cancelled");
}

}  // namespace headroom::db

#include "experiments_db/run_liveness.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <exception>
#include <fstream>

namespace headroom::db {

std::string local_worker_id() {
  char host[256] = "host";
  gethostname(host, sizeof host - 1);
  host[sizeof host - 1] = '\0';
  return std::string(host) + ":" + std::to_string(getpid());
}

namespace {

std::string host_of(const std::string& worker) {
  const auto colon = worker.rfind(':');
  return colon == std::string::npos ? std::string() : worker.substr(0, colon);
}

// The process id of a "<host>:<pid>" name, or 0.
pid_t pid_of(const std::string& worker) {
  const auto colon = worker.rfind(':');
  if (colon == std::string::npos || colon + 1 >= worker.size()) return 0;
  try {
    std::size_t used = 0;
    const long pid = std::stol(worker.substr(colon + 1), &used);
    return used == worker.size() - colon - 1 && pid > 0 ? static_cast<pid_t>(pid) : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

// /proc/<pid>/stat: "<pid> (<comm>) <state> ..."; the name may hold spaces and parentheses.
bool is_zombie(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return false;
  const auto close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z';
}

std::string minutes(double seconds) {
  char text[48];
  if (seconds < 120) std::snprintf(text, sizeof text, "%.0f s", seconds);
  else if (seconds < 7200) std::snprintf(text, sizeof text, "%.0f min", seconds / 60);
  else std::snprintf(text, sizeof text, "%.1f h", seconds / 3600);
  return text;
}

}  // namespace

WorkerCheck check_worker(const std::string& worker, const std::optional<double>& heartbeat_at, double now,
                         double silent_after) {
  WorkerCheck c;
  c.heartbeat_age = heartbeat_at ? std::max(0.0, now - *heartbeat_at) : 0.0;
  static const std::string here = host_of(local_worker_id());  // once: the explorer asks every second
  const pid_t pid = pid_of(worker);
  if (pid > 0 && host_of(worker) == here) {
    // kill(pid, 0) fails with ESRCH only when no such process exists; EPERM means one does. A
    // zombie (dead, its parent has not reaped it: in a container PID 1 may never) is gone too.
    if ((kill(pid, 0) != 0 && errno == ESRCH) || is_zombie(pid)) c.state = WorkerState::Gone;
    return c;
  }
  if (heartbeat_at && c.heartbeat_age > silent_after) c.state = WorkerState::Silent;
  return c;
}

const char* running_word(WorkerState state) {
  switch (state) {
    case WorkerState::Gone: return "interrupted";
    case WorkerState::Silent: return "stalled";
    case WorkerState::Alive: break;
  }
  return "running";
}

std::string worker_problem(const std::string& worker, const WorkerCheck& check, const std::string& db_path) {
  switch (check.state) {
    case WorkerState::Gone:
      return "its worker (" + worker + ") is gone; `headroom-worker serve --db " + db_path +
             "` resumes it from its last checkpoint (from step 0 if it saved none)";
    case WorkerState::Silent:
      return "no heartbeat from its worker (" + worker + ") for " + minutes(check.heartbeat_age) +
             ": it may have died; `headroom-worker serve --db " + db_path +
             "` takes the run over once it has had none for `--stale-after` seconds (default 300) and resumes it "
             "from its last checkpoint (from step 0 if it saved none)";
    case WorkerState::Alive: break;
  }
  return {};
}

}  // namespace headroom::db

// Whether a run marked running still has a worker training it. A worker killed outright (SIGKILL,
// out of memory, a power cut) leaves its run "running" in the database until another worker
// claims it; `status` and the explorer say so instead of showing it as training.
#pragma once

#include <optional>
#include <string>

namespace headroom::db {

// The name workers give themselves and store with the runs they claim: "<host>:<pid>".
std::string local_worker_id();

enum class WorkerState {
  Alive,   // its process exists on this host, or (another host's) its heartbeat is recent
  Gone,    // it ran on this host and its process no longer exists: the run was interrupted
  Silent,  // another host's worker sent no heartbeat for `silent_after` seconds: it may have died
};

struct WorkerCheck {
  WorkerState state = WorkerState::Alive;
  double heartbeat_age = 0;  // seconds since the run's last heartbeat (0 when it has none)
};

// Judges the worker of a running run as the workers do before they take its run over: one on
// this host by its process id (so a long start-up without heartbeats is not death), one elsewhere
// by its heartbeat's age. `worker` is the run's "<host>:<pid>"; a name of another form is judged by
// its heartbeat. `now` is Unix seconds. It touches no database and no disk: kill(pid, 0) and a read
// of /proc/<pid>/stat (procfs, served from kernel memory) for a local worker, arithmetic otherwise;
// so the GUI may call it on its UI thread, which blocking I/O must never reach.
WorkerCheck check_worker(const std::string& worker, const std::optional<double>& heartbeat_at, double now,
                         double silent_after = 300);

// "interrupted" (Gone), "stalled" (Silent) or "running" (Alive): the word `status` and the
// explorer show in place of "running".
const char* running_word(WorkerState state);

// One sentence for a running run whose worker is gone or silent ("" when it is alive): what
// happened and what resumes it, e.g. "its worker (host:123) is gone; `headroom-worker serve --db
// F` resumes it from its last checkpoint (from step 0 if it saved none)".
std::string worker_problem(const std::string& worker, const WorkerCheck& check, const std::string& db_path);

}  // namespace headroom::db

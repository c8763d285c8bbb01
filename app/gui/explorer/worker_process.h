// A `headroom-worker` child process started from the GUI ("Start worker", "Enqueue suite").
//
// Started with posix_spawn and an argv vector: no shell, so a DB path with spaces or quotes is
// passed through as one argument and never interpreted. Its stdout and stderr go to one pipe
// that poll() drains without blocking; the last lines are kept for the GUI to show. Stopping
// sends SIGTERM, on which the worker checkpoints its run at the current step, hands it back to
// the queue and exits 0 (see app/worker/run_executor.h); the destructor does the same and waits
// a bounded time before SIGKILL, so closing the window never leaves an orphan training.
#pragma once

#include <sys/types.h>

#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace headroom::explorer {

class WorkerProcess {
 public:
  static constexpr size_t kMaxLines = 200;

  WorkerProcess() = default;
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;
  ~WorkerProcess();

  // Starts `program args...`. Fails (false, *error says why) if one is already running or
  // the program cannot be started.
  bool start(const std::string& program, const std::vector<std::string>& args, std::string* error);

  // Reads whatever output is available and reaps the child if it exited. Never blocks.
  void poll();

  bool running() const { return pid_ > 0; }
  // Exit status of the last child once it ended: its exit code, or 128 + signal.
  std::optional<int> exit_code() const { return exit_code_; }
  const std::deque<std::string>& lines() const { return lines_; }
  // The command line as started, for display.
  const std::string& command() const { return command_; }

  // SIGTERM: a clean stop (the worker finishes its step and checkpoints). poll() reaps it.
  void request_stop();
  // Stops and waits up to `seconds`, then SIGKILLs. Returns the exit status.
  std::optional<int> stop_and_wait(double seconds);

 private:
  void take_output(const char* data, size_t size);
  void reap(int status);

  pid_t pid_ = -1;
  int out_fd_ = -1;
  std::string partial_;
  std::deque<std::string> lines_;
  std::optional<int> exit_code_;
  std::string command_;
};

// Where headroom-worker is: $HEADROOM_WORKER if set, else next to this executable (installed
// layout), else the build tree's app/worker/ beside app/gui/, else "headroom-worker" on PATH.
// `self_exe` is this program's path ("" to read /proc/self/exe).
std::string find_worker_program(const std::string& self_exe = "");

}  // namespace headroom::explorer

#include "app/worker/worker_common.h"

#include <signal.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "app/worker/run_executor.h"
#include "core/io/utf8.h"
#include "experiments_db/run_liveness.h"
#include "core/train/blas_threads.h"
#include "core/train/device.h"

namespace headroom::worker {

Shard parse_shard(const std::string& text) {
  Shard s;
  const auto slash = text.find('/');
  try {
    if (slash == std::string::npos) throw std::invalid_argument("");
    size_t a = 0, b = 0;
    s.index = std::stoi(text.substr(0, slash), &a);
    s.count = std::stoi(text.substr(slash + 1), &b);
    if (a != slash || b != text.size() - slash - 1) throw std::invalid_argument("");
  } catch (const std::exception&) {
    throw std::invalid_argument("--shard " + text + ": expected I/N, e.g. 0/4 for the first of four shards");
  }
  if (s.count < 1 || s.index < 0 || s.index >= s.count)
    throw std::invalid_argument("--shard " + text + ": need 0 <= I < N");
  return s;
}

bool stdout_is_tty() { return isatty(STDOUT_FILENO) == 1; }

int output_columns() {
  if (winsize ws{}; stdout_is_tty() && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  if (const char* columns = std::getenv("COLUMNS")) {
    char* end = nullptr;
    const long n = std::strtol(columns, &end, 10);
    if (end != columns && *end == '\0' && n > 0 && n < 100000) return static_cast<int>(n);
  }
  return 0;
}

std::string elide_middle(const std::string& text, size_t width) {
  if (text.size() <= width) return text;
  if (width <= 3) return std::string(width, '.');
  return io::elide_middle_bytes(text, width - 3);
}

bool require_existing_db(const std::string& path, const char* command) {
  if (access(path.c_str(), F_OK) == 0 || errno != ENOENT) return true;
  std::cerr << "headroom-worker " << command << ": " << path
            << ": no such experiments database; check the path, or create one with `headroom-worker run SUITE --db "
            << path << "` or `train`\n";
  return false;
}

bool output_file_ok(const std::string& path, const char* command, const char* flag) {
  namespace fs = std::filesystem;
  const auto fail = [&](const std::string& why) {
    std::cerr << "headroom-worker " << command << ": " << flag << " " << path << ": " << why << "\n";
    return false;
  };
  std::error_code ec;
  if (fs::is_directory(path, ec)) return fail("is a folder; give a file path inside it");
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec))
    return fail("the folder " + parent.string() + " does not exist; create it or give another path");
  if (std::ifstream in(path, std::ios::binary); in) {
    char head[16] = {};
    in.read(head, sizeof head);
    if (in.gcount() == 16 && std::string(head, 16) == std::string("SQLite format 3\0", 16))
      return fail("is an SQLite database (an experiments DB?), which this would overwrite; give a new path");
  }
  return true;
}

int lower_priority(int niceness) {
  // On Linux niceness belongs to each thread, and threads inherit it when created. Some exist
  // already (OpenBLAS starts its pool when it loads), so every thread of the process is set.
  niceness = std::min(niceness, 19);
  errno = 0;
  const int now = getpriority(PRIO_PROCESS, 0);
  if (errno != 0) return 0;
  if (niceness <= now) return now;
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", ec)) {
    const id_t tid = static_cast<id_t>(std::atol(task.path().filename().c_str()));
    if (tid > 0) setpriority(PRIO_PROCESS, tid, niceness);
  }
  if (setpriority(PRIO_PROCESS, 0, niceness) != 0) return now;  // no /proc: this thread at least
  return niceness;
}

void add_nice_option(CLI::App* app, int* niceness) {
  app->add_option("--nice", *niceness,
                  "Train at this niceness or nicer (default 10: a window on the same cores stays responsive; "
                  "0 keeps the shell's)")
      ->check(CLI::Range(0, 19));
}

void add_device_option(CLI::App* app, std::string* device, const std::string& help) {
  app->add_option("--device", *device, help)
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            return core::is_device_request(v) ? "" : "--device " + v + ": use auto, cpu, cuda or cuda:N";
          },
          "DEVICE"));
}

void add_precision_option(CLI::App* app, std::string* precision) {
  app->add_option("--precision", *precision,
                  "fp32, tf32 (TF32 matmuls on CUDA; fp32 on the CPU) or bf16 (autocast, fp32 weights and AdamW)")
      ->check(CLI::IsMember({"fp32", "tf32", "bf16"}));
}

std::optional<std::string> resolve_device_flag(const std::string& request, const char* command) {
  try {
    return core::resolve_device(request);
  } catch (const std::invalid_argument& e) {
    std::cerr << "headroom-worker " << command << ": --" << e.what() << "\n";
    return std::nullopt;
  }
}

void note_cpu_kernels(const std::string& device, const char* command) {
  if (core::is_cuda_device(device)) return;
  if (const auto advice = core::openblas_kernel_advice(); !advice.empty())
    std::cerr << "headroom-worker " << command << ": note: " << advice << "\n";
}

std::vector<std::string> given_options(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* option : app.get_options())
    if (option->count() > 0) names.push_back(option->get_name());
  return names;
}

bool refuse_given(const std::vector<std::string>& given, const std::vector<std::string>& names, const char* command,
                  const std::string& why) {
  for (const auto& name : names)
    if (std::find(given.begin(), given.end(), name) != given.end()) {
      std::cerr << "headroom-worker " << command << ": " << name << " " << why << "\n";
      return true;
    }
  return false;
}

CLI::Validator finite_range(double lo, double hi) {
  std::ostringstream r;
  r << "[" << lo << ", " << hi << "]";
  const std::string range = r.str();
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = text.empty() ? NAN : std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !std::isfinite(v))
          return "'" + text + "' is not a finite number: give one in " + range;
        if (v < lo || v > hi) return text + " is outside " + range;
        return "";
      },
      "FLOAT in " + range);
}

namespace {
constexpr double kWeekS = 7 * 24 * 3600.0;
}

void add_lock_wait_option(CLI::App* app, double* seconds) {
  app->add_option("--lock-wait", *seconds,
                  "Seconds to wait when another program holds the DB locked, before stopping (default 600)")
      ->check(finite_range(0.0, kWeekS));
}

void add_stale_after_option(CLI::App* app, double* seconds) {
  app->add_option("--stale-after", *seconds,
                  "Seconds without a heartbeat before another host's run counts as dead and is taken over "
                  "(default 300; 0: never)")
      ->check(finite_range(0.0, kWeekS));
}

void add_checkpoint_interval_option(CLI::App* app, double* seconds) {
  app->add_option("--checkpoint-interval", *seconds,
                  "Write a run's full, resumable checkpoint (weights + AdamW state) at most every this many seconds: "
                  "at its checkpoint_every steps once that long has passed, and always at its last step and when "
                  "stopped; the weights alone are stored at every checkpoint_every step either way. For fast runs "
                  "side by side on a GPU, whose checkpoints queue on the one DB (default 0: at every "
                  "checkpoint_every step)")
      ->check(finite_range(0.0, kWeekS));
}

void wait_for_locks(db::Connection& conn, double seconds) {
  const std::string path = conn.path();
  const int wait_ms = static_cast<int>(seconds * 1000);
  conn.set_lock_wait(wait_ms, 5000, [path, wait_ms](int waited_ms) {
    std::cerr << "headroom-worker: " << path << " has been locked by another program for " << waited_ms / 1000
              << " s; waiting up to " << wait_ms / 1000 << " s in all (--lock-wait), then stopping\n"
              << std::flush;
  });
}

db::Connection open_waiting(const std::string& path, db::OpenMode mode, double seconds) {
  auto conn = db::Connection::open(path, mode, static_cast<int>(seconds * 1000));
  wait_for_locks(conn, seconds);
  return conn;
}

std::optional<db::RunRecord> reclaim_dead_local_run(db::RunStore& store, const std::string& worker_id,
                                                    const std::string& device,
                                                    const std::optional<std::string>& only_name) {
  for (const auto& run : store.list_runs()) {
    if (run.status != db::RunStatus::Running || (only_name && run.name != *only_name)) continue;
    // Only this host's workers are judged by their process; another host's by their heartbeat.
    if (db::check_worker(run.worker, run.heartbeat_at, 0, HUGE_VAL).state != db::WorkerState::Gone) continue;
    // Its worker is gone: any heartbeat age counts as stale.
    if (auto claimed = store.claim_by_name(run.name, worker_id, 1e-9, device)) return claimed;
  }
  return std::nullopt;
}

}  // namespace headroom::worker

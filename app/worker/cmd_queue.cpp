// `headroom-worker run SUITE.toml` (enqueue a suite, then work until it is done) and
// `headroom-worker serve` (work the queue, including runs whose worker died).
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <memory>
#include <set>
#include <thread>

#include "app/worker/run_executor.h"
#include "app/worker/suite.h"
#include "app/worker/worker_cli.h"
#include "app/worker/worker_common.h"
#include "core/train/device.h"
#include "experiments_db/connection.h"
#include "experiments_db/db_error.h"
#include "experiments_db/run_liveness.h"
#include "experiments_db/run_store.h"
#include "experiments_db/transaction.h"

extern char** environ;

namespace headroom::worker {
namespace {

struct QueueOptions {
  std::string db, suite, scale = "quick", shard = "0/1";
  int workers = 1;
  int niceness = kDefaultNiceness;
  bool follow = false, quiet = false, dry_run = false;
  bool enqueue_only = false;  // `enqueue`: stop after queueing (the GUI's "Enqueue suite")
  double stale_after = 300;
  double lock_wait = kDefaultLockWaitS;
  double checkpoint_interval = 0;  // ExecOptions::checkpoint_interval_s
  int64_t crash_after_step = -1;   // testing: this process dies (like a lost node) after this step
  std::string device = "auto";
  std::string precision;  // `run`: every run of the suite in this precision; empty: the suite's
};

// Claims and trains runs on `device` (resolved) until none is left (or forever with --follow).
int work_queue(const QueueOptions& o, const Shard& shard, const std::string& device) {
  auto conn = open_waiting(o.db, db::OpenMode::ReadWrite, o.lock_wait);
  db::RunStore store(conn);
  ExecOptions exec;
  exec.worker_id = db::local_worker_id();
  exec.device = device;
  exec.quiet = o.quiet;
  exec.tty = stdout_is_tty();
  exec.crash_after_step = o.crash_after_step;
  exec.checkpoint_interval_s = o.checkpoint_interval;
  const bool follow = o.follow;
  const double stale_after = o.stale_after;
  int failed = 0;
  while (!stop_requested()) {
    auto run = reclaim_dead_local_run(store, exec.worker_id, device);
    if (!run) run = store.claim_next(exec.worker_id, shard.index, shard.count, stale_after, device);
    if (!run) {
      if (!follow) break;
      for (int i = 0; i < 20 && !stop_requested(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    std::string error;
    if (execute_run(store, *run, exec, &error) == RunOutcome::Failed) ++failed;
  }
  return failed ? kExitFailure : kExitOk;
}

// Starts `headroom-worker serve` children (argv, no shell) so N processes share the queue.
std::vector<pid_t> spawn_workers(int count, const QueueOptions& o, const Shard& shard, int niceness,
                                 const std::string& device) {
  std::vector<pid_t> pids;
  char self[4096];
  const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0) throw std::runtime_error("cannot find this program's path to start more workers");
  self[len] = 0;
  for (int i = 0; i < count; ++i) {
    std::vector<std::string> args = {self,
                                     "serve",
                                     "--db",
                                     o.db,
                                     "--quiet",
                                     "--shard",
                                     std::to_string(shard.index) + "/" + std::to_string(shard.count),
                                     "--stale-after",
                                     std::to_string(o.stale_after),
                                     "--nice",
                                     std::to_string(niceness),
                                     "--lock-wait",
                                     std::to_string(o.lock_wait),
                                     "--checkpoint-interval",
                                     std::to_string(o.checkpoint_interval),
                                     "--device",
                                     device};
    if (o.follow) args.push_back("--follow");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    if (posix_spawn(&pid, self, nullptr, nullptr, argv.data(), environ) != 0)
      throw std::runtime_error("cannot start a worker process");
    pids.push_back(pid);
  }
  return pids;
}

// This process and o.workers - 1 `serve` children work the queue side by side (on one GPU: one
// CUDA context each). Exit status: failure when any of them had a run fail.
int work_queue_in_processes(const QueueOptions& o, const Shard& shard, const std::string& device) {
  // N processes share the cores: each trains on cores / N threads (children inherit the setting).
  const long cores = std::max<long>(1, sysconf(_SC_NPROCESSORS_ONLN));
  if (o.workers > 1) setenv("OMP_NUM_THREADS", std::to_string(std::max<long>(1, cores / o.workers)).c_str(), 1);
  const int niceness = lower_priority(o.niceness);  // before torch's threads and the children
  configure_training_process(0);
  install_stop_handlers();
  const auto children = spawn_workers(o.workers - 1, o, shard, niceness, device);
  forward_stop_to(std::vector<int>(children.begin(), children.end()));
  if (!o.quiet && o.workers > 1)
    std::cout << o.workers << " worker processes on " << device << " (this one and " << children.size()
              << " more), each on " << std::getenv("OMP_NUM_THREADS") << " CPU thread(s)" << std::endl;
  int rc = work_queue(o, shard, device);
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) rc = kExitFailure;
  }
  return rc;
}

std::string workers_problem(int workers) {
  if (workers >= 1 && workers <= 64) return {};
  return "--workers " + std::to_string(workers) + ": use 1..64 worker processes";
}

// The suite's training arithmetic as 6 x parameters x tokens summed over its runs (the dense
// layers' share; attention's n^2 terms and evaluation come on top): what `--dry-run` prints and
// what the paper scale's warning on a CPU quotes.
double run_flops(const RunConfig& c, std::int64_t parameters, std::int64_t steps) {
  const int n = c.train.seq_len > 0 ? c.train.seq_len : c.model.context;
  return 6.0 * static_cast<double>(parameters) * static_cast<double>(steps) * c.train.batch * n;
}

double suite_flops(const Suite& suite) {
  double flops = 0;
  for (const auto& r : suite.runs)
    flops += run_flops(r.parsed, core::parameter_count(r.parsed.model), r.parsed.train.steps);
  return flops;
}

std::string petaflop_text(double flops) {
  std::ostringstream s;
  s << std::setprecision(flops < 1e15 ? 2 : 3) << flops / 1e15 << " PFLOP";
  return s.str();
}

// "38.1 PFLOP of training arithmetic, which a CPU at 100 GFLOP/s would need 4.4 days for": the
// paper scale's warning on a CPU, from `run` and from `serve`.
std::string cpu_days_text(double flops) {
  std::ostringstream s;
  s << petaflop_text(flops) << " of training arithmetic, which a CPU at 100 GFLOP/s would need " << std::setprecision(2)
    << flops / 100e9 / 86400.0 << " days for";
  return s.str();
}

// The warning `run` gives before a CPU starts on a paper-scale suite, for `serve` (and the GUI's
// Start worker, which serves): the queued runs of paper-scale suites, their arithmetic, the days.
void warn_of_paper_runs_on_a_cpu(const std::string& db_path, const std::string& device) {
  if (core::is_cuda_device(device)) return;
  try {
    auto conn = db::Connection::open(db_path, db::OpenMode::ReadOnly);
    db::RunStore store(conn);
    std::set<std::int64_t> paper;
    for (const auto& s : store.list_suites())
      if (s.scale == "paper") paper.insert(s.id);
    if (paper.empty()) return;
    std::set<std::string> suites;
    int runs = 0;
    double flops = 0;
    for (const auto& r : store.list_runs()) {
      if (!r.suite_id || !paper.count(*r.suite_id) || r.status != db::RunStatus::Queued) continue;
      const auto config = run_config_from_json(nlohmann::json::parse(r.config_json), r.name);
      flops += run_flops(config, r.param_count, std::max<std::int64_t>(0, config.train.steps - r.current_step));
      suites.insert(r.suite_name);
      ++runs;
    }
    if (runs == 0) return;
    std::string names;
    for (const auto& name : suites) names += (names.empty() ? "" : ", ") + name;
    std::cerr << "headroom-worker serve: warning: " << runs << " queued run" << (runs == 1 ? "" : "s")
              << " of paper-scale suites (" << names << ") are sized for one GPU (--device cuda) and this worker is on "
              << device << ": " << cpu_days_text(flops) << ". They run anyway.\n";
  } catch (const std::exception&) {
    // The DB's problem, if any, is reported when the worker opens it to work.
  }
}

// Whether `suite` clashes with what `store` holds, said on stderr: a run of one of its names with
// another configuration, or a suite of its name that is another suite or at another scale.
// *new_text: the store's suite of this name is an earlier text of this one, which these runs join.
// *stored (when given): the suite's runs the store already holds.
bool refuse_clashes(db::RunStore& store, const Suite& suite, const QueueOptions& o, const std::string& command,
                    bool* new_text, std::vector<db::RunRecord>* stored_runs = nullptr) {
  // A run of the same name already in the DB must be the same run: enqueueing is idempotent by
  // name, so a changed suite (or another --precision) would otherwise be ignored in silence.
  bool adds = false;  // a run of the suite is not in the store yet
  for (const auto& r : suite.runs) {
    const auto existing = store.find_run(r.name);
    adds = adds || !existing;
    if (!existing) continue;
    if (stored_runs) stored_runs->push_back(*existing);
    if (const auto difference = config_difference(existing->config_json, r.parsed)) {
      std::cerr << "headroom-worker " << command << ": run " << r.name << " in " << o.db
                << " was enqueued with a different configuration (" << *difference
                << "); use another --db, or the suite as it was\n";
      return true;
    }
  }
  // A suite of this name in the DB takes these runs: refuse where they would mix two suites (or
  // two scales), and where this is an edit of it (runs in common), store the new text, which the
  // explorer's figure reads, and say so.
  *new_text = false;
  for (const auto& stored : store.list_suites()) {
    if (stored.name != suite.name) continue;
    if (!adds) break;
    if (!stored.scale.empty() && stored.scale != suite.scale) {
      std::cerr << "headroom-worker " << command << ": suite " << suite.name << " in " << o.db
                << " holds its runs at scale " << stored.scale << "; enqueue scale " << suite.scale
                << " into another --db (runs of one name at two scales would share one figure)\n";
      return true;
    }
    if (stored.source_toml == suite.source) break;
    std::set<std::string> names;
    for (const auto& r : suite.runs) names.insert(r.name);
    bool has_runs = false, shared = false;
    for (const auto& r : store.list_runs()) {
      if (r.suite_id != stored.id) continue;
      has_runs = true;
      shared = shared || names.count(r.name) > 0;
    }
    if (has_runs && !shared) {
      std::cerr << "headroom-worker " << command << ": " << o.db << " already holds another suite named " << suite.name
                << " (none of its runs is one of " << suite.path
                << "'s); give this suite another [suite] name, or use another --db\n";
      return true;
    }
    *new_text = true;
  }
  return false;
}

int run_suite(const QueueOptions& o) {
  const char* command = o.enqueue_only ? "enqueue" : "run";  // the subcommand the user typed
  Shard shard;
  Suite suite;
  try {
    if (o.db.empty() && !o.dry_run) throw std::invalid_argument("--db is required (or --dry-run to only validate)");
    shard = parse_shard(o.shard);
    if (const auto problem = workers_problem(o.workers); !problem.empty()) throw std::invalid_argument(problem);
    suite = load_suite(o.suite, o.scale);  // every problem surfaces before the DB is touched
    if (!o.precision.empty()) {
      for (auto& r : suite.runs) {
        r.parsed.train.precision = *core::parse_precision(o.precision);  // CLI checked the spelling
        r.config["train"]["precision"] = o.precision;
      }
    }
  } catch (const std::invalid_argument& e) {
    std::cerr << "headroom-worker " << command << ": " << e.what() << "\n";
    return kExitBadInput;
  }
  if (o.dry_run) {  // validated above; list what would be enqueued, touch nothing
    std::cout << "suite " << suite.name << " (" << suite.scale << "): " << suite.runs.size() << " runs\n";
    for (const auto& r : suite.runs)
      std::cout << "  " << r.name << "  " << core::parameter_count(r.parsed.model) << " parameters, "
                << r.parsed.train.steps << " steps\n";
    for (const auto& m : suite.matches) {
      const auto [lo, hi] = std::minmax_element(m.params.begin(), m.params.end());
      std::cout << "  matched (within " << m.tolerance * 100 << "%, spread "
                << (static_cast<double>(*hi) / static_cast<double>(*lo) - 1.0) * 100 << "%):";
      for (size_t i = 0; i < m.runs.size(); ++i) std::cout << " " << m.runs[i] << " (" << m.params[i] << ")";
      std::cout << "\n";
    }
    std::cout << "  training arithmetic: " << petaflop_text(suite_flops(suite))
              << " (6 x parameters x tokens over the runs; attention's n^2 terms on top)\n";
    return kExitOk;
  }
  std::optional<std::string> device;
  if (!o.enqueue_only && !(device = resolve_device_flag(o.device, "run"))) return kExitBadInput;
  if (device && !core::is_cuda_device(*device) && suite.scale == "paper") {
    // Sized for one GPU: say so before a CPU starts on what would take it days.
    std::cerr << "headroom-worker run: warning: the paper scale is sized for one GPU (--device cuda); this suite is "
              << cpu_days_text(suite_flops(suite)) << ". It runs anyway; --scale full is the CPU's.\n";
  }
  // The clashes are looked for through a read-only connection first: a refused suite leaves the file
  // byte for byte as it was (a writing open turns a shared results file's journal into WAL).
  if (std::error_code missing; std::filesystem::exists(o.db, missing)) {
    try {
      auto reader = db::Connection::open(o.db, db::OpenMode::ReadOnly, static_cast<int>(o.lock_wait * 1000));
      db::RunStore store(reader);
      bool new_text = false;
      if (refuse_clashes(store, suite, o, command, &new_text)) return kExitBadInput;
    } catch (const db::DbError&) {
      // An older schema, a foreign or damaged file: the writing open below says what is wrong.
    }
  }
  {
    auto conn = open_waiting(o.db, db::OpenMode::Create, o.lock_wait);
    db::RunStore store(conn);
    bool new_text = false;
    std::vector<db::RunRecord> stored_runs;
    if (refuse_clashes(store, suite, o, command, &new_text, &stored_runs)) return kExitBadInput;
    std::vector<db::RunRecord> failed;  // this shard's runs that failed before: `run` retries them
    for (const auto& run : stored_runs)
      if (run.status == db::RunStatus::Failed && run.shard_key % shard.count == shard.index) failed.push_back(run);
    db::Transaction tx(conn);
    const auto suite_id = store.ensure_suite(suite.name, suite.source, suite.scale);
    if (new_text) {
      store.set_suite_source(suite_id, suite.source);
      std::cerr << "headroom-worker " << command << ": suite " << suite.name << " in " << o.db
                << " was enqueued from an earlier text of " << suite.path
                << "; its new runs join it, and the DB now keeps this text\n";
    }
    for (const auto& r : suite.runs) {
      db::NewRun n;
      n.suite_id = suite_id;
      n.name = r.name;
      n.config_json = r.config.dump();
      n.seed = static_cast<int64_t>(r.parsed.train.seed);
      n.shard_key = r.shard_key;
      n.param_count = core::parameter_count(r.parsed.model);
      n.software_version = HEADROOM_VERSION;
      store.enqueue_run(n);
    }
    tx.commit();
    if (!o.quiet)
      std::cout << "suite " << suite.name << " (" << suite.scale << "): " << suite.runs.size() << " runs in " << o.db
                << "\n  reproduces: " << suite.reproduces << "\n";
    // Running a suite again retries its failed runs (this shard's), from their last checkpoints:
    // otherwise a second `run` would find nothing queued and exit 0 over a suite that never
    // finished. Cancelled runs stay cancelled: someone chose that.
    if (!o.enqueue_only) {
      for (const auto& run : failed)
        if (store.requeue(run.id))
          std::cerr << "headroom-worker run: " << run.name << " failed before (" << run.error_text
                    << "); trying it again\n";
    }
  }
  if (o.enqueue_only) return kExitOk;
  if (!o.quiet) note_cpu_kernels(*device, "run");
  return work_queue_in_processes(o, shard, *device);
}

}  // namespace

Command register_run(CLI::App& root) {
  auto o = std::make_shared<QueueOptions>();
  auto* app = root.add_subcommand("run", "Enqueue a suite (assets/suites/*.toml), then work until it is done");
  app->add_option("suite", o->suite, "Suite file")->required();
  app->add_option("--scale", o->scale,
                  "quick (seconds), full (overnight on 2 cores) or paper (the papers' sizes; suites that have it)")
      ->check(CLI::IsMember({"quick", "full", "paper"}));
  auto* db = app->add_option("--db", o->db, "Experiments database (created if missing)");
  app->add_flag("--dry-run", o->dry_run, "Validate the suite and list its runs; touch no database");
  db->required(false);
  app->add_option("--workers", o->workers, "Worker processes on this machine (default 1)");
  app->add_option("--shard", o->shard, "Train only shard I of N (I/N), e.g. one per cluster node");
  add_stale_after_option(app, &o->stale_after);
  add_device_option(app, &o->device);
  add_precision_option(app, &o->precision);
  add_nice_option(app, &o->niceness);
  add_lock_wait_option(app, &o->lock_wait);
  add_checkpoint_interval_option(app, &o->checkpoint_interval);
  app->add_flag("--quiet", o->quiet, "No progress output");
  app->add_option("--crash-after-step", o->crash_after_step, "Testing: exit abruptly after this step")->group("");
  return {app, [o] { return run_suite(*o); }};
}

Command register_enqueue(CLI::App& root) {
  auto o = std::make_shared<QueueOptions>();
  o->enqueue_only = true;
  // No --lock-wait here: the GUI runs `enqueue` and waits for it; a lock held past this is reported.
  o->lock_wait = db::Connection::kBusyTimeoutMs / 1000.0;
  auto* app =
      root.add_subcommand("enqueue", "Validate a suite and add its runs to the DB's queue; train nothing (see serve)");
  app->add_option("suite", o->suite, "Suite file")->required();
  app->add_option("--scale", o->scale,
                  "quick (seconds), full (overnight on 2 cores) or paper (the papers' sizes; suites that have it)")
      ->check(CLI::IsMember({"quick", "full", "paper"}));
  app->add_option("--db", o->db, "Experiments database (created if missing)")->required();
  add_precision_option(app, &o->precision);
  app->add_flag("--quiet", o->quiet, "No output");
  return {app, [o] { return run_suite(*o); }};
}

Command register_serve(CLI::App& root) {
  auto o = std::make_shared<QueueOptions>();
  auto* app = root.add_subcommand("serve", "Work the DB's queue: queued runs and runs whose worker died");
  app->add_option("--db", o->db, "Experiments database")->required();
  app->add_flag("--follow", o->follow, "Keep waiting for new work instead of exiting when the queue is empty");
  app->add_option("--workers", o->workers,
                  "Worker processes on this machine (default 1; on one GPU, several small runs side by side)");
  app->add_option("--shard", o->shard, "Train only shard I of N (I/N)");
  add_stale_after_option(app, &o->stale_after);
  add_device_option(app, &o->device);
  add_nice_option(app, &o->niceness);
  add_lock_wait_option(app, &o->lock_wait);
  add_checkpoint_interval_option(app, &o->checkpoint_interval);
  app->add_flag("--quiet", o->quiet, "No progress output");
  app->add_option("--crash-after-step", o->crash_after_step, "Testing: exit abruptly after this step")->group("");
  return {app, [o] {
            Shard shard;
            try {
              shard = parse_shard(o->shard);
              if (const auto problem = workers_problem(o->workers); !problem.empty())
                throw std::invalid_argument(problem);
            } catch (const std::invalid_argument& e) {
              std::cerr << "headroom-worker serve: " << e.what() << "\n";
              return kExitBadInput;
            }
            if (!require_existing_db(o->db, "serve")) return kExitBadInput;
            const auto device = resolve_device_flag(o->device, "serve");
            if (!device) return kExitBadInput;
            if (!o->quiet) {  // once: the children are quiet
              note_cpu_kernels(*device, "serve");
              warn_of_paper_runs_on_a_cpu(o->db, *device);
            }
            return work_queue_in_processes(*o, shard, *device);
          }};
}

}  // namespace headroom::worker

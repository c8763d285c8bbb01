// Runs headroom-worker as a user would and captures its exit code, stdout and stderr; and the
// small training run and DB probes the worker's CLI tests share.
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

struct CliResult {
  int exit_code = -1;
  std::string out, err;
};

// `in_child` runs in the forked child just before exec (a resource limit, another user).
CliResult run_worker(const std::vector<std::string>& args, const std::function<void()>& in_child = {});
// Starts headroom-worker without waiting; its stdout/stderr go to the given files.
pid_t spawn_worker(const std::vector<std::string>& args, const std::string& out = "/dev/null",
                   const std::string& err = "/dev/null", const std::function<void()>& in_child = {});
// A path in this test process's own temporary directory, which goes when all its tests pass.
std::string temp_path(const std::string& name);
void write_text(const std::string& path, const std::string& text);

// The flags of a small talking-heads run on the copy task: 300 steps, a checkpoint every 40,
// a few seconds on one core.
extern const std::vector<std::string> kSmallTrainFlags;
// The text of a suite of one multi-head width-16 model on the copy task, named `name`, whose
// [base.train] table goes on with `train_rest` (its keys, then any further tables).
std::string tiny_suite(const std::string& name, const std::string& train_rest);
// `train --db DB --name NAME` with kSmallTrainFlags.
std::vector<std::string> train_args(const std::string& db, const std::string& name);
// Runs `sql` on the DB file (a test's way to leave a run as a dead or failing worker would);
// a failure is a test failure.
void exec_sql(const std::string& db, const std::string& sql);

// metric -> step -> value of every run, for the metrics that must not depend on timing (all but
// tokens_per_s), through `export --csv`.
std::map<std::string, std::map<long, std::string>> deterministic_metrics(const std::string& db);
// SQLite's PRAGMA integrity_check: "ok" for a sound file.
std::string integrity(const std::string& db);
std::string file_bytes(const std::string& path);
// Compared as hashes so a failure prints two numbers, not a whole database.
size_t file_hash(const std::string& path);
// The highest step with a committed metric, or -1 (no file, no table, nothing logged yet). Read
// while the worker writes (WAL), so the tests can act at a point in the run, not at a guessed time.
long logged_step(const std::string& db);
// Waits until worker `pid` has logged a step beyond `after` (it is past start-up and owns the
// run). False if the process exited first, or after a minute.
bool wait_for_progress(pid_t pid, const std::string& db, long after);

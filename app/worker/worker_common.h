// Pieces several worker commands share: model/training flags, shards, opening the DB.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "app/worker/run_config.h"
#include "experiments_db/connection.h"
#include "experiments_db/run_store.h"

namespace headroom::worker {

struct Shard {
  int index = 0, count = 1;
};
// "I/N" with 0 <= I < N; throws std::invalid_argument naming the flag.
Shard parse_shard(const std::string& text);

// If a run is marked running by a worker on this host whose process no longer exists, claim it
// for `worker_id` to train on `device` (the worker died: SIGKILL, OOM, power). Returns the claimed
// run, if any.
std::optional<db::RunRecord> reclaim_dead_local_run(db::RunStore& store, const std::string& worker_id,
                                                    const std::string& device,
                                                    const std::optional<std::string>& only_name = std::nullopt);

// Training is a background job: it runs at niceness `niceness` or nicer (never less nice than it
// was started), so a window or shell on the same cores stays responsive. Idempotent across exec,
// so children that re-apply it stay at the same level. Returns the niceness now in effect.
constexpr int kDefaultNiceness = 10;
int lower_priority(int niceness);
// Adds --nice to a training command.
void add_nice_option(CLI::App* app, int* niceness);

// A training worker waits this long for a lock another program holds on the DB (a backup, an
// sqlite3 shell) before it gives up; the DB layer alone waits Connection::kBusyTimeoutMs.
constexpr double kDefaultLockWaitS = 600;
// Adds --lock-wait to a training command.
void add_lock_wait_option(CLI::App* app, double* seconds);
// Adds --checkpoint-interval (ExecOptions::checkpoint_interval_s) to a training command.
void add_checkpoint_interval_option(CLI::App* app, double* seconds);
// Adds --stale-after: seconds without a heartbeat before another host's run counts as dead and is
// taken over (0: never).
void add_stale_after_option(CLI::App* app, double* seconds);
// A number in [lo, hi], NaN and infinities refused (CLI::Range lets NaN through: it fails no comparison).
CLI::Validator finite_range(double lo, double hi);
// The long names ("--input") of the options given on `app`'s command line, once it has parsed.
std::vector<std::string> given_options(const CLI::App& app);
// Says on stderr, as `command: NAME ...why`, the first of `names` that `given` holds; true when
// it said one. For options of another mode, refused rather than ignored.
bool refuse_given(const std::vector<std::string>& given, const std::vector<std::string>& names, const char* command,
                  const std::string& why);
// Makes `conn` wait up to `seconds` for locks, saying on stderr when a wait passes 5 s.
void wait_for_locks(db::Connection& conn, double seconds);
// Opens `path` for a command with --lock-wait: the open itself waits up to `seconds` for a lock,
// and so does every statement after it (wait_for_locks).
db::Connection open_waiting(const std::string& path, db::OpenMode mode, double seconds);

// Adds --device (auto, cpu, cuda, cuda:N) to a command; `help` says what runs there and the default.
void add_device_option(
    CLI::App* app, std::string* device,
    const std::string& help = "Train on auto (CUDA when present), cpu, cuda or cuda:N (default auto)");
// Adds --precision (fp32, tf32, bf16) to a command that makes runs; empty: the runs' own.
void add_precision_option(CLI::App* app, std::string* precision);
// The device --device names on this machine ("cpu", "cuda:0"), or nullopt after saying on stderr,
// as `command: ...`, why there is none (no CUDA in this build, no GPU, an index too high).
std::optional<std::string> resolve_device_flag(const std::string& request, const char* command);
// Before training on a CPU: says once on stderr, as `command: note: ...`, when OpenBLAS runs kernels
// older than the CPU supports and which OPENBLAS_CORETYPE would not (core::openblas_kernel_advice).
void note_cpu_kernels(const std::string& device, const char* command);

// True when stdout is a terminal (progress lines redraw in place).
bool stdout_is_tty();
// How many columns a line of stdout may take: the terminal's width when stdout is one, else
// COLUMNS when it holds a positive number (as `ls` reads it), else 0 (no limit: a pipe or file
// gets whole lines).
int output_columns();
// `text` in at most `width` bytes: when longer, its middle is replaced by "..." (never splitting a
// UTF-8 character), keeping its start and its end, where run names differ (a seed, a size).
std::string elide_middle(const std::string& text, size_t width);

// Whether `path` may take a new output file (`flag`'s, e.g. "--dump"): not a folder, in a folder
// that exists, and not an SQLite file, which holds runs and must never be overwritten by a JSON
// or CSV (any other file is replaced, as a re-run expects). Otherwise says why on stderr as
// `headroom-worker command: ...` and returns false.
bool output_file_ok(const std::string& path, const char* command, const char* flag);

// Whether the experiments DB a command reads (`status`, `export`, `merge`, `serve`) may exist:
// false only when `path` is missing (ENOENT), after saying so on stderr as `headroom-worker
// command: PATH: no such experiments database; ...`. Any other lookup failure (a name too long, a
// file used as a directory) passes, for the DB's own open to explain.
bool require_existing_db(const std::string& path, const char* command);

}  // namespace headroom::worker

// The worker's training commands from outside: resume after SIGKILL, suites, two workers, bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <signal.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "../db/db_test_util.h"
#include "cli_runner.h"
#include "core/io/safetensors.h"
#include "core/train/blas_threads.h"

using nlohmann::json;

TEST(TrainCli, SigkillAtRandomMomentsThenResumeEqualsAnUninterruptedRun) {
  const std::string straight = temp_path("straight.sqlite"), killed = temp_path("killed.sqlite");
  std::remove(straight.c_str());
  std::remove(killed.c_str());
  const auto t0 = std::chrono::steady_clock::now();
  auto r = run_worker(train_args(straight, "copy"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const int run_ms = static_cast<int>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count());

  // Each attempt is killed at a random moment after it has logged a step of its own (so it owns the
  // run and has trained), up to an eighth of an uninterrupted run later: between checkpoints or
  // inside one, early enough that several kills fit in one run, on a slow machine and a fast one.
  std::mt19937 rng(20261122);
  std::uniform_int_distribution<int> delay_ms(0, std::max(1, run_ms / 8));
  int kills = 0;
  for (int attempt = 0; attempt < 25; ++attempt) {
    const pid_t pid = spawn_worker(train_args(killed, "copy"));
    int status = 0;
    if (!wait_for_progress(pid, killed, logged_step(killed))) {
      if (waitpid(pid, &status, WNOHANG) != pid) {  // stuck for a minute: do not leave it behind
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
      }
      break;  // finished before it could be killed mid-run
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(rng)));
    if (waitpid(pid, &status, WNOHANG) == pid) break;  // finished before the kill
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    ++kills;
    ASSERT_EQ(integrity(killed), "ok") << "after kill " << kills;
    if (kills >= 4) break;
  }
  EXPECT_GE(kills, 2) << "the run finished too fast to be interrupted";
  r = run_worker(train_args(killed, "copy"));  // resume to the end
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(integrity(killed), "ok");

  const auto a = deterministic_metrics(straight), b = deterministic_metrics(killed);
  ASSERT_EQ(a.size(), 4u);  // train_loss, val_loss, lr, grad_norm
  EXPECT_EQ(a.at("train_loss").size(), 60u);
  EXPECT_EQ(a.at("val_loss").size(), 13u);  // step 0 and every 25
  EXPECT_EQ(a, b);

  auto status = json::parse(run_worker({"status", "--db", killed, "--json"}).out);
  EXPECT_EQ(status["runs"][0]["status"], "done");
  // Every kill landed after its worker had claimed the run, so it cost an attempt, and so does the
  // final resume, unless the last kill landed after the run had already committed "done".
  EXPECT_GE(status["runs"][0]["attempts"].get<int>(), 2);
  EXPECT_LE(status["runs"][0]["attempts"].get<int>(), kills + 1);

  auto again = run_worker(train_args(killed, "copy"));
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_NE(again.out.find("already finished"), std::string::npos) << again.out;
}

TEST(TrainCli, SigtermStopsCleanlyAndServeResumesWhereItStopped) {
  const std::string straight = temp_path("term_straight.sqlite"), stopped = temp_path("term_stopped.sqlite");
  std::remove(straight.c_str());
  std::remove(stopped.c_str());
  auto r = run_worker(train_args(straight, "copy"));
  ASSERT_EQ(r.exit_code, 0) << r.err;

  const std::string out = temp_path("term_stopped.out");
  const pid_t pid = spawn_worker(train_args(stopped, "copy"), out);
  ASSERT_TRUE(wait_for_progress(pid, stopped, -1)) << "the worker ended before logging a step";
  kill(pid, SIGTERM);  // early in the run: it has logged a step, and has 300 to go
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << "the worker died of the signal instead of stopping";
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(integrity(stopped), "ok");
  auto runs = json::parse(run_worker({"status", "--db", stopped, "--json"}).out)["runs"];
  ASSERT_EQ(runs.size(), 1u);
  ASSERT_EQ(runs[0]["status"], "queued") << "a stopped run goes back to the queue";
  const long stopped_at = runs[0]["step"].get<long>();
  EXPECT_GT(stopped_at, 0);
  EXPECT_LT(stopped_at, 300);

  r = run_worker({"serve", "--db", stopped});  // picks the released run up at once
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("resuming copy from step " + std::to_string(stopped_at)), std::string::npos) << r.out;
  EXPECT_EQ(deterministic_metrics(straight), deterministic_metrics(stopped));
  runs = json::parse(run_worker({"status", "--db", stopped, "--json"}).out)["runs"];
  EXPECT_EQ(runs[0]["status"], "done");
  EXPECT_EQ(runs[0]["attempts"].get<int>(), 2);
}

// The niceness of every thread of a process (field 19 of /proc/PID/task/TID/stat).
std::vector<int> thread_niceness(pid_t pid) {
  std::vector<int> out;
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& task : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(task.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto close = stat.rfind(')');  // the command name may hold spaces; fields follow it
    if (close == std::string::npos) continue;
    std::istringstream fields(stat.substr(close + 2));
    std::string f;
    for (int i = 3; i <= 19 && fields >> f; ++i)
      if (i == 19) out.push_back(std::stoi(f));
  }
  return out;
}

TEST(TrainCli, TrainsAsABackgroundJobAtNiceTenOnEveryThreadUnlessToldOtherwise) {
  if (getpriority(PRIO_PROCESS, 0) != 0) GTEST_SKIP() << "the test itself runs niced";
  for (const auto& [flags, want] :
       std::vector<std::pair<std::vector<std::string>, int>>{{{}, 10}, {{"--nice", "0"}, 0}}) {
    const std::string db = temp_path("nice_" + std::to_string(want) + ".sqlite");
    std::remove(db.c_str());
    auto args = train_args(db, "copy");
    args.insert(args.end(), flags.begin(), flags.end());
    const pid_t pid = spawn_worker(args);
    ASSERT_TRUE(wait_for_progress(pid, db, -1)) << "the worker ended before logging a step";
    const auto niceness = thread_niceness(pid);  // training has started: torch's pool exists
    kill(pid, SIGTERM);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_FALSE(niceness.empty());
    for (int n : niceness) EXPECT_EQ(n, want) << "flags: " << (flags.empty() ? "(none)" : flags[1]);
  }
  auto r = run_worker({"train", "--db", temp_path("nice_bad.sqlite"), "--name", "x", "--nice", "25"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--nice"), std::string::npos) << r.err;
}

TEST(TrainCli, SameNameWithOtherFlagsIsRefused) {
  const std::string db = temp_path("rename.sqlite");
  std::remove(db.c_str());
  auto args = train_args(db, "x");
  args[args.size() - 12] = "20";  // --steps 300 -> 20 (index of the steps value from the end)
  ASSERT_EQ(run_worker(args).exit_code, 0);
  auto other = train_args(db, "x");
  other.push_back("--seed");
  other.push_back("5");
  auto r = run_worker(other);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("different configuration"), std::string::npos) << r.err;

  // --data-seed is part of the run: stored, so the same name without it is another run.
  auto data_seeded = train_args(db, "y");
  data_seeded[data_seeded.size() - 12] = "20";
  data_seeded.insert(data_seeded.end(), {"--data-seed", "5"});
  r = run_worker(data_seeded);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto plain = train_args(db, "y");
  plain[plain.size() - 12] = "20";
  r = run_worker(plain);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("data_seed"), std::string::npos) << r.err;
  r = run_worker(data_seeded);  // the same flags again: finished, nothing to do
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("already finished"), std::string::npos) << r.out;
}

TEST(TrainCli, PipedProgressPrintsEachStepOnceAndTheLastStep) {
  const std::string db = temp_path("progress.sqlite");
  std::remove(db.c_str());
  auto args = train_args(db, "progress");
  ASSERT_EQ(args.back(), "--quiet");
  args.pop_back();
  const auto r = run_worker(args);  // stdout is a pipe: a line a decile
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> steps;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    const auto at = line.find("  step ");
    if (at != std::string::npos) steps.push_back(line.substr(at + 7, line.find(' ', at + 7) - at - 7));
  }
  ASSERT_FALSE(steps.empty()) << r.out;
  EXPECT_EQ(steps.back(), "300/300") << r.out;
  EXPECT_LE(steps.size(), 11u) << r.out;
  EXPECT_EQ(std::set<std::string>(steps.begin(), steps.end()).size(), steps.size()) << "a step printed twice:\n"
                                                                                    << r.out;

  // Lines printed before the first logged speed and the second validation show the step-0
  // validation loss and "-" for the speed (they printed "val nan" and "0 tok/s").
  auto sparse = train_args(db, "progress-sparse");
  sparse.pop_back();  // --quiet
  for (const std::string flag : {"--eval-every", "--log-every"})
    *(std::find(sparse.begin(), sparse.end(), flag) + 1) = "1000";
  const auto s = run_worker(sparse);
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_EQ(s.out.find("nan"), std::string::npos) << s.out;
  EXPECT_EQ(s.out.find(" 0 tok/s"), std::string::npos) << s.out;
  // Which steps print depends on the machine's speed (a commit every few seconds prints its decile
  // too), so every line before the last is checked, not a given step's.
  std::istringstream sparse_lines(s.out);
  int before_the_end = 0;
  for (std::string line; std::getline(sparse_lines, line);) {
    if (line.find("  step ") == std::string::npos || line.find("step 300/300") != std::string::npos) continue;
    ++before_the_end;
    const auto val = line.find("  val ");  // the step-0 validation's loss, a number
    ASSERT_NE(val, std::string::npos) << line;
    EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(line[val + 6]))) << line;
    EXPECT_NE(line.find("  - tok/s"), std::string::npos) << line;
  }
  EXPECT_GE(before_the_end, 1) << s.out;
}

TEST(TrainCli, TwoWorkerProcessesRunEachJobExactlyOnce) {
  const std::string suite = temp_path("two.toml"), db = temp_path("two.sqlite");
  std::remove(db.c_str());
  write_text(suite, R"([suite]
name = "two-workers"
reproduces = "a test of the queue"
full_estimate = "seconds"
[base.model]
width = 16
depth = 1
context = 12
[base.model.attention]
kind = "multi-head"
heads = 2
causal = true
[base.train]
corpus = "induction"
steps = 30
batch = 4
eval_every = 10
checkpoint_every = 15
[[grid]]
label = "g"
"model.attention.heads" = [1, 2, 4, 8]
"train.seed" = [0, 1]
)");
  const pid_t a = spawn_worker({"run", suite, "--db", db, "--quiet"});
  const pid_t b = spawn_worker({"run", suite, "--db", db, "--quiet"});
  int sa = 0, sb = 0;
  waitpid(a, &sa, 0);
  waitpid(b, &sb, 0);
  EXPECT_TRUE(WIFEXITED(sa) && WEXITSTATUS(sa) == 0);
  EXPECT_TRUE(WIFEXITED(sb) && WEXITSTATUS(sb) == 0);
  auto status = json::parse(run_worker({"status", "--db", db, "--json"}).out);
  ASSERT_EQ(status["runs"].size(), 8u);
  std::set<std::string> workers;
  for (const auto& run : status["runs"]) {
    EXPECT_EQ(run["status"], "done") << run.dump();
    EXPECT_EQ(run["attempts"], 1) << run.dump();
    EXPECT_EQ(run["step"], 30);
    EXPECT_EQ(run["suite"], "two-workers");
    EXPECT_GE(run["weights"].get<int>(), 1) << "a finished run keeps its final weights: " << run.dump();
    workers.insert(run["worker"].get<std::string>());
  }
  const std::string table = run_worker({"status", "--db", db}).out;
  EXPECT_NE(table.find(" weights\n"), std::string::npos) << table;
  EXPECT_EQ(integrity(db), "ok");
}

// `serve --workers N` (and `run --workers N`) starts N - 1 more processes on the same queue: every
// run is trained exactly once; an impossible count is refused before anything starts.
TEST(TrainCli, ServeWithWorkersTrainsEveryQueuedRunOnceAcrossItsProcesses) {
  const std::string db = temp_path("serve_workers.sqlite"), suite = temp_path("serve_workers.toml");
  std::remove(db.c_str());
  write_text(suite,
             tiny_suite("serve-workers", "steps = 6\n[[grid]]\nlabel = \"g\"\n\"train.seed\" = [0, 1, 2, 3, 4]\n"));
  ASSERT_EQ(run_worker({"enqueue", suite, "--db", db, "--quiet"}).exit_code, 0);
  const size_t queued = file_hash(db);
  for (const std::string bad : {"0", "65"}) {
    const auto r = run_worker({"serve", "--db", db, "--workers", bad, "--device", "cpu"});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find("--workers " + bad + ": use 1..64 worker processes"), std::string::npos) << r.err;
  }
  EXPECT_EQ(file_hash(db), queued) << "a refused serve changed the DB";

  const auto r = run_worker({"serve", "--db", db, "--workers", "3", "--device", "cpu"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("3 worker processes on cpu (this one and 2 more)"), std::string::npos) << r.out;
  const auto runs = json::parse(run_worker({"status", "--db", db, "--json"}).out)["runs"];
  ASSERT_EQ(runs.size(), 5u);
  for (const auto& run : runs) {
    EXPECT_EQ(run["status"], "done") << run.dump();
    EXPECT_EQ(run["attempts"], 1) << run.dump();
    EXPECT_EQ(run["step"], 6) << run.dump();
  }
  EXPECT_EQ(integrity(db), "ok");
}

namespace {
// `suite` (tiny_suite's text) with one more line in its [suite] table.
std::string with_suite_key(const std::string& suite, const std::string& line) {
  const std::string after = "full_estimate = \"seconds\"\n";
  const size_t at = suite.find(after);
  return at == std::string::npos ? suite
                                 : suite.substr(0, at + after.size()) + line + "\n" + suite.substr(at + after.size());
}
}  // namespace

TEST(TrainCli, BadInputsExitNonZeroNameTheProblemAndLeaveTheDbUnchanged) {
  const std::string db = temp_path("keep.sqlite");
  std::remove(db.c_str());
  auto args = train_args(db, "seed");
  args[args.size() - 12] = "10";
  ASSERT_EQ(run_worker(args).exit_code, 0);
  const size_t before = file_hash(db);

  const std::string base = tiny_suite("bad", "steps = 5\n");
  const std::string empty_corpus = temp_path("empty_corpus.txt");
  write_text(empty_corpus, "");
  const std::string latin1_corpus = temp_path("latin1_corpus.txt");
  write_text(latin1_corpus, "In the beginning\n\xe9t\xe9\n" + std::string(400, 'a') + "\n");
  const std::string short_corpus = temp_path("short_corpus.txt");
  write_text(short_corpus, "In the beginning God created the heaven and the earth.\n");
  struct Case {
    std::string name, toml, expect;
  };
  std::vector<Case> cases = {
      {"unknown_key", base + "[[grid]]\nlabel = \"a\"\n\"model.attention.head\" = [1, 2]\n", "model.attention.head"},
      {"wrong_type", base + "[[grid]]\nlabel = \"a\"\n\"train.steps\" = \"many\"\n", "train.steps"},
      {"impossible", base + "[[grid]]\nlabel = \"a\"\n\"model.attention.heads\" = [3]\n", "not divisible"},
      {"missing_corpus", base + "[[grid]]\nlabel = \"a\"\n\"train.corpus\" = \"/no/such/corpus.txt\"\n",
       "no such file"},
      {"corpus_is_a_folder", base + "[[grid]]\nlabel = \"a\"\n\"train.corpus\" = \"/tmp\"\n", "not a regular file"},
      {"empty_corpus", base + "[[grid]]\nlabel = \"a\"\n\"train.corpus\" = \"" + empty_corpus + "\"\n",
       "the file is empty"},
      // Read when the suite is queued, not when a worker first trains on it (a failed run, exit 1).
      {"latin1_corpus", base + "[[grid]]\nlabel = \"a\"\n\"train.corpus\" = \"" + latin1_corpus + "\"\n",
       "not UTF-8 text (invalid byte at offset 17)"},
      {"short_corpus", base + "[[grid]]\nlabel = \"a\"\n\"train.corpus\" = \"" + short_corpus + "\"\n",
       "its validation part holds 5 tokens (5 bytes), too few for sequences of n = 8"},
      {"short_corpus_bpe",
       base + "[[grid]]\nlabel = \"a\"\n\"train.corpus\" = \"" + short_corpus +
           "\"\n\"train.tokenizer\" = \"bpe:100\"\n",
       "its validation part holds at most 6 tokens (5 bytes)"},
      {"tiny_bpe", base + "[[grid]]\nlabel = \"a\"\n\"train.tokenizer\" = \"bpe:3\"\n", "16..65536"},
      {"negative_data_seed", base + "[[grid]]\nlabel = \"a\"\n\"train.data_seed\" = [-1]\n",
       "train.data_seed: expected an integer >= 0"},
      {"synthetic_task_bad_tokenizer", base + "[[grid]]\nlabel = \"a\"\n\"train.tokenizer\" = \"words\"\n",
       "unknown tokenizer 'words'"},
      {"syntax", base + "[[grid]\nlabel = \"a\"\n", "not valid TOML"},
      {"unknown_x",
       with_suite_key(base, "x = \"model.attention.headz\"") +
           "[[grid]]\nlabel = \"a\"\n\"model.attention.heads\" = [1]\n",
       "suite.x: model.attention.headz is a field of no run's config"},
      {"missing_reference",
       with_suite_key(base, "reference = \"nonexistent.csv\"") +
           "[[grid]]\nlabel = \"a\"\n\"model.attention.heads\" = [1]\n",
       "nonexistent.csv does not exist; give a file of assets/reference/"},
      {"unknown_table", base + "[grids]\nlabel = \"a\"\n", "unknown table"},
  };
  for (const auto& c : cases) {
    const std::string path = temp_path(c.name + ".toml");
    write_text(path, c.toml);
    auto r = run_worker({"run", path, "--db", db, "--quiet"});
    EXPECT_NE(r.exit_code, 0) << c.name;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(path), std::string::npos) << c.name << " does not name the file: " << r.err;
    EXPECT_EQ(file_hash(db), before) << c.name << " changed the DB";
  }

  // Impossible seconds (negative, NaN, infinite) are refused by every training command before the
  // DB is touched. NaN once passed: CLI::Range compares, and NaN fails no comparison.
  for (const std::vector<std::string>& command :
       {train_args(db, "seed"), std::vector<std::string>{"serve", "--db", db},
        std::vector<std::string>{"run", temp_path("unknown_key.toml"), "--db", db}}) {
    for (const char* flag : {"--checkpoint-interval", "--lock-wait", "--stale-after"}) {
      for (const auto& [value, expect] : std::vector<std::pair<std::string, std::string>>{
               {"-5", "-5 is outside [0, 604800]"},
               {"nan", "'nan' is not a finite number: give one in [0, 604800]"},
               {"inf", "'inf' is not a finite number"}}) {
        auto bad = command;
        bad.insert(bad.end(), {flag, value});
        const auto r = run_worker(bad);
        EXPECT_EQ(r.exit_code, 2) << command[0] << " " << flag << " " << value;
        EXPECT_NE(r.err.find(std::string(flag) + ": " + expect), std::string::npos) << command[0] << ": " << r.err;
        EXPECT_EQ(file_hash(db), before) << command[0] << " " << flag << " " << value << " changed the DB";
      }
    }
  }

  // A foreign file, and a Headroom DB from a newer version, are refused untouched.
  const std::string foreign = temp_path("notes.sqlite");
  write_text(foreign, "these are my notes, not a database\n");
  auto r = run_worker({"status", "--db", foreign, "--json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(file_bytes(foreign), "these are my notes, not a database\n");
  EXPECT_FALSE(r.err.empty());

  const std::string newer = temp_path("newer.sqlite");
  write_text(newer, file_bytes(db));
  {
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(newer.c_str(), &h), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(h, "PRAGMA user_version = 99", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(h);
  }
  const size_t newer_bytes = file_hash(newer);
  for (const auto& cmd : std::vector<std::vector<std::string>>{{"status", "--db", newer}, train_args(newer, "more")}) {
    r = run_worker(cmd);
    EXPECT_EQ(r.exit_code, 2) << cmd[0];
    EXPECT_NE(r.err.find("99"), std::string::npos) << r.err;
    EXPECT_EQ(file_hash(newer), newer_bytes);
  }

  // Rank 0 is not a rank (the unfactorised embedding is the flag left out).
  for (const char* flag : {"--embed-rank", "--pos-rank"}) {
    auto zero = train_args(db, "rank-zero");
    zero.push_back(flag);
    zero.push_back("0");
    r = run_worker(zero);
    EXPECT_EQ(r.exit_code, 2) << flag;
    EXPECT_NE(r.err.find(std::string(flag) + " 0 is not a rank"), std::string::npos) << r.err;
    EXPECT_EQ(file_hash(db), before) << flag;
  }

  // A model without positional embedding must be causal (else it cannot tell positions apart).
  auto no_positions = train_args(db, "no-positions");
  no_positions.insert(no_positions.end(), {"--positions", "none", "--bidirectional"});
  r = run_worker(no_positions);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("positions = \"none\" needs causal attention"), std::string::npos) << r.err;
  EXPECT_EQ(file_hash(db), before);
  // A problem with a flag is named by the flag, not by its config path ("train flags: model.depth").
  for (const auto& [flag, value, expect] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"--positions", "none", "headroom-worker train: --positions: positions = \"none\""},
           {"--layers", "0", "headroom-worker train: --layers: depth = 0 is impossible"},
           {"--heads", "0", "headroom-worker train: --heads: heads = 0 is impossible"},
           {"--tokenizer", "bpe:3", "headroom-worker train: --tokenizer: tokenizer 'bpe:3'"}}) {
    auto args = train_args(db, "flag-named");
    const auto given = std::find(args.begin(), args.end(), flag);  // the small run's own value, replaced
    if (given != args.end()) *std::next(given) = value;
    else args.insert(args.end(), {flag, value});
    if (flag == "--positions") args.push_back("--bidirectional");
    r = run_worker(args);
    EXPECT_EQ(r.exit_code, 2) << flag;
    EXPECT_NE(r.err.find(expect), std::string::npos) << r.err;
  }
  EXPECT_EQ(file_hash(db), before);
  auto unknown_positions = train_args(db, "sinusoidal");
  unknown_positions.insert(unknown_positions.end(), {"--positions", "sinusoidal"});
  r = run_worker(unknown_positions);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--positions sinusoidal is not a kind of positional embedding: learned"), std::string::npos)
      << r.err;
  EXPECT_EQ(file_hash(db), before);
  auto unknown_init = train_args(db, "orthogonal");
  unknown_init.insert(unknown_init.end(), {"--pos-init", "orthogonal"});
  r = run_worker(unknown_init);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--pos-init orthogonal is not a way to start the positional embedding: random"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(file_hash(db), before);
  auto zero_without_positions = train_args(db, "zero-without-positions");
  zero_without_positions.insert(zero_without_positions.end(), {"--positions", "none", "--pos-init", "zero"});
  r = run_worker(zero_without_positions);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("pos_init = \"zero\" starts a positional embedding at zero"), std::string::npos) << r.err;
  EXPECT_EQ(file_hash(db), before);
  auto scaled_zero = train_args(db, "scaled-zero");
  scaled_zero.insert(scaled_zero.end(), {"--pos-init", "zero", "--pos-init-scale", "0.5"});
  r = run_worker(scaled_zero);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("pos_init_scale scales a random positional start, but pos_init = \"zero\""), std::string::npos)
      << r.err;
  EXPECT_EQ(file_hash(db), before);
  for (const char* flag : {"--seed", "--data-seed"}) {  // not wrapped to 2^64 - 1
    auto negative = train_args(db, "negative-seed");
    negative.insert(negative.end(), {flag, "-1"});
    r = run_worker(negative);
    EXPECT_EQ(r.exit_code, 2) << flag;
    EXPECT_NE(r.err.find(std::string(flag) + " -1 is not a seed: give a whole number >= 0"), std::string::npos)
        << r.err;
    EXPECT_EQ(file_hash(db), before) << flag;
  }
  auto no_scale = train_args(db, "no-scale");
  no_scale.insert(no_scale.end(), {"--pos-init-scale", "0"});
  r = run_worker(no_scale);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("pos_init_scale = 0 is impossible"), std::string::npos) << r.err;
  EXPECT_EQ(file_hash(db), before);

  r = run_worker({"bogus", "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown command 'bogus'; the commands are inspect, represent, train"), std::string::npos)
      << r.err;

  const std::string missing = temp_path("nope.sqlite");  // one wording for every command that reads a DB
  for (const char* cmd : {"serve", "status", "export", "merge"}) {
    r = run_worker(std::string(cmd) == "merge" ? std::vector<std::string>{cmd, temp_path("nope_merged.sqlite"), missing}
                                               : std::vector<std::string>{cmd, "--db", missing});
    EXPECT_EQ(r.exit_code, 2) << cmd;
    EXPECT_NE(r.err.find(std::string("headroom-worker ") + cmd + ": " + missing +
                         ": no such experiments database; check the path, or create one with"),
              std::string::npos)
        << cmd << r.err;
  }
  EXPECT_NE(access(temp_path("nope_merged.sqlite").c_str(), F_OK), 0) << "merge created its output for nothing";
  const std::string too_long = temp_path(std::string(300, 'q') + ".sqlite");  // not "no such": why it cannot be read
  for (const char* cmd : {"serve", "status"}) {
    r = run_worker({cmd, "--db", too_long});
    EXPECT_EQ(r.exit_code, 2) << cmd;
    EXPECT_NE(r.err.find(too_long + ": cannot be looked up (File name too long)"), std::string::npos) << cmd << r.err;
  }
  r = run_worker(train_args("/proc/forbidden/x.sqlite", "a"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("/proc/forbidden/x.sqlite"), std::string::npos) << r.err;
}

TEST(TrainCli, ARunTooLargeForMemoryFailsWithOneLineEvenWhenQuiet) {
  // 16 bytes a parameter for weights, gradients and AdamW: ~0.8 TB, refused before allocating.
  const std::string db = temp_path("too_large.sqlite");
  std::remove(db.c_str());
  auto r = run_worker({"train", "--db",      db,      "--name",   "huge", "--corpus", "copy", "--steps",
                       "2",     "--d-model", "65536", "--heads",  "1",    "--layers", "1",    "--context",
                       "8",     "--batch",   "1",     "--device", "cpu",  "--quiet"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("huge: failed: the model has "), std::string::npos) << "--quiet hid the failure: " << r.err;
  EXPECT_NE(r.err.find("GiB (16 bytes a parameter), more than this machine's"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line, no stack trace: " << r.err;

  // Activations too large for any machine: LibTorch's allocation error, without its stack trace.
  r = run_worker({"train",   "--db",      db,          "--name",  "long",    "--corpus", "copy",
                  "--steps", "2",         "--d-model", "16",      "--heads", "2",        "--layers",
                  "1",       "--context", "65536",     "--batch", "64",      "--device", "cpu"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("long: failed: out of memory: "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("frame #"), std::string::npos) << r.err;
  const auto runs = json::parse(run_worker({"status", "--db", db, "--json"}).out)["runs"];
  ASSERT_EQ(runs.size(), 2u);
  for (const auto& run : runs) EXPECT_EQ(run["error"].get<std::string>().find('\n'), std::string::npos) << run;
}

TEST(TrainCli, RunningASuiteAgainRetriesItsFailedRuns) {
  const std::string db = temp_path("retry.sqlite"), suite = temp_path("retry.toml");
  std::remove(db.c_str());
  // Fails on any CPU (see above), quickly: the second `run` must not report success over it.
  write_text(suite, tiny_suite("retry",
                               "steps = 2\n[[grid]]\nlabel = \"a\"\n\"model.width\" = [65536]\n"
                               "\"model.attention.heads\" = [1]\n"));
  auto r = run_worker({"run", suite, "--db", db, "--device", "cpu", "--quiet"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  r = run_worker({"run", suite, "--db", db, "--device", "cpu", "--quiet"});
  EXPECT_EQ(r.exit_code, 1) << "a suite whose run failed is not done: " << r.err;
  EXPECT_NE(r.err.find("failed before (the model has "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("trying it again"), std::string::npos) << r.err;
  const auto runs = json::parse(run_worker({"status", "--db", db, "--json"}).out)["runs"];
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0]["status"], "failed");
  EXPECT_EQ(runs[0]["attempts"], 2);
}

// `status --suite` narrows the table to suites (by name or file stem; an unknown one is refused
// naming those the DB has, the DB unchanged), and `--summary` sums each suite in a line: its runs,
// their statuses, and the run with the lowest latest val loss, the same as the per-run JSON says.
TEST(TrainCli, StatusNarrowsToSuitesAndSumsThem) {
  const std::string db = temp_path("status_summary.sqlite");
  const std::string trained = temp_path("status_trained.toml"), queued = temp_path("status_queued.toml");
  std::remove(db.c_str());
  write_text(trained, tiny_suite("sum-trained",
                                 "steps = 4\neval_every = 2\n[[grid]]\nlabel = \"g\"\n\"train.seed\" = [0, 1]\n"));
  write_text(queued, tiny_suite("sum-queued", "steps = 4\n[[grid]]\nlabel = \"q\"\n\"train.seed\" = [0, 1, 2]\n"));
  ASSERT_EQ(run_worker({"run", trained, "--db", db, "--quiet", "--device", "cpu"}).exit_code, 0);
  ASSERT_EQ(run_worker({"enqueue", queued, "--db", db, "--quiet"}).exit_code, 0);

  const auto all = json::parse(run_worker({"status", "--db", db, "--json"}).out)["runs"];
  ASSERT_EQ(all.size(), 5u);
  double lowest = 1e300;
  std::string lowest_run;
  for (const auto& run : all)
    if (run["suite"] == "sum-trained" && run["metrics"]["val_loss"].get<double>() < lowest)
      lowest = run["metrics"]["val_loss"].get<double>(), lowest_run = run["name"].get<std::string>();
  ASSERT_FALSE(lowest_run.empty());

  const auto picked = json::parse(run_worker({"status", "--db", db, "--json", "--suite", "sum_queued"}).out)["runs"];
  ASSERT_EQ(picked.size(), 3u);
  for (const auto& run : picked) EXPECT_EQ(run["suite"], "sum-queued") << run.dump();

  const auto sums = json::parse(run_worker({"status", "--db", db, "--json", "--summary"}).out)["suites"];
  ASSERT_EQ(sums.size(), 2u) << sums.dump();
  EXPECT_EQ(sums[0]["suite"], "sum-trained");
  EXPECT_EQ(sums[0]["runs"], 2);
  EXPECT_EQ(sums[0]["by_status"], json({{"done", 2}}));
  ASSERT_EQ(sums[0]["lowest_val_loss"].size(), 1u) << sums.dump();
  EXPECT_EQ(sums[0]["lowest_val_loss"][0]["corpus"], "copy");
  EXPECT_EQ(sums[0]["lowest_val_loss"][0]["val_loss"].get<double>(), lowest);
  EXPECT_EQ(sums[0]["lowest_val_loss"][0]["run"], lowest_run);
  EXPECT_EQ(sums[1]["suite"], "sum-queued");
  EXPECT_EQ(sums[1]["by_status"], json({{"queued", 3}}));
  ASSERT_EQ(sums[1]["lowest_val_loss"].size(), 1u) << sums.dump();
  EXPECT_TRUE(sums[1]["lowest_val_loss"][0]["val_loss"].is_null());

  const auto table = run_worker({"status", "--db", db, "--summary", "--suite", "sum-trained"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("2 done"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find(lowest_run), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find("sum-queued"), std::string::npos) << table.out;

  // Runs on two corpora have losses in different units: the line names no lowest, the JSON one per corpus.
  const std::string mixed = temp_path("status_mixed.toml");
  write_text(mixed, tiny_suite("sum-mixed",
                               "steps = 2\neval_every = 2\n[[grid]]\nlabel = \"m\"\n"
                               "\"train.corpus\" = [\"copy\", \"induction\"]\n"));
  ASSERT_EQ(run_worker({"run", mixed, "--db", db, "--quiet", "--device", "cpu"}).exit_code, 0);
  const auto mixed_sum =
      json::parse(run_worker({"status", "--db", db, "--json", "--summary", "--suite", "sum-mixed"}).out)["suites"];
  ASSERT_EQ(mixed_sum.size(), 1u);
  ASSERT_EQ(mixed_sum[0]["lowest_val_loss"].size(), 2u) << mixed_sum.dump();
  EXPECT_EQ(mixed_sum[0]["lowest_val_loss"][0]["corpus"], "copy");
  EXPECT_EQ(mixed_sum[0]["lowest_val_loss"][1]["corpus"], "induction");
  const auto mixed_table = run_worker({"status", "--db", db, "--summary", "--suite", "sum-mixed"}).out;
  EXPECT_NE(mixed_table.find("(2 corpora / tokenizers, losses in other units: see --json)"), std::string::npos)
      << mixed_table;

  const size_t before = file_hash(db);
  const auto bad = run_worker({"status", "--db", db, "--suite", "nope"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--suite nope: no runs of such a suite in " + db +
                         " (its suites: sum-trained, sum-queued, sum-mixed)"),
            std::string::npos)
      << bad.err;
  EXPECT_EQ(file_hash(db), before);
}

// `status`'s table keeps its columns under their headers when a run's name is longer than 44.
TEST(TrainCli, StatusColumnsStayAlignedPastLongRunNames) {
  const std::string db = temp_path("status_long.sqlite"), suite = temp_path("status_long.toml");
  std::remove(db.c_str());
  const std::string label(60, 'x');
  write_text(suite, tiny_suite("long", "steps = 2\n[[grid]]\nlabel = \"" + label + "\"\n\"train.seed\" = [0, 1]\n"));
  ASSERT_EQ(run_worker({"enqueue", suite, "--db", db, "--quiet"}).exit_code, 0);
  const auto r = run_worker({"status", "--db", db}, [] { unsetenv("COLUMNS"); });  // a pipe: whole names
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string header, line;
  std::getline(lines, header);
  const size_t status_at = header.find("status");
  ASSERT_NE(status_at, std::string::npos) << r.out;
  int rows = 0;
  while (std::getline(lines, line)) {
    ++rows;
    EXPECT_EQ(line.find("long/" + label), 5u) << line;
    EXPECT_EQ(line.find("nan"), std::string::npos) << "a run with no loss yet shows -, not nan: " << line;
    EXPECT_EQ(line.find(" queued"), status_at - 1) << "\n" << header << "\n" << line;
  }
  EXPECT_EQ(rows, 2) << r.out;

  // In an 80-column terminal (COLUMNS, as a terminal's width would be) every line keeps to 80:
  // the names lose their middle, keep their start and their distinct ends, and the columns align.
  const auto narrow = run_worker({"status", "--db", db}, [] { setenv("COLUMNS", "80", 1); });
  ASSERT_EQ(narrow.exit_code, 0) << narrow.err;
  std::vector<std::string> names;
  const auto listed = json::parse(run_worker({"status", "--db", db, "--json"}).out);
  for (const auto& run : listed["runs"]) names.push_back(run["name"].get<std::string>());
  ASSERT_EQ(names.size(), 2u);
  ASSERT_GT(names[0].size(), 40u) << "the names must be too long for 80 columns for this to test anything";
  std::istringstream narrow_lines(narrow.out);
  std::getline(narrow_lines, header);
  EXPECT_LE(header.size(), 80u) << header;
  rows = 0;
  std::set<std::string> shown_names;
  while (std::getline(narrow_lines, line)) {
    ASSERT_LT(rows, 2) << narrow.out;
    const std::string& name = names[static_cast<size_t>(rows++)];
    EXPECT_LE(line.size(), 80u) << line;
    const std::string shown = line.substr(5, line.find(' ', 5) - 5);
    EXPECT_LT(shown.size(), name.size()) << line;
    ASSERT_NE(shown.find("..."), std::string::npos) << line;
    EXPECT_EQ(name.rfind(shown.substr(0, shown.find("...")), 0), 0u) << "keeps the start: " << shown;
    const std::string end = shown.substr(shown.find("...") + 3);
    EXPECT_EQ(name.substr(name.size() - end.size()), end) << "keeps the end: " << shown;
    shown_names.insert(shown);
    EXPECT_EQ(line.find(" queued"), header.find("status") - 1) << "\n" << header << "\n" << line;
  }
  EXPECT_EQ(rows, 2) << narrow.out;
  EXPECT_EQ(shown_names.size(), 2u) << "the shortened names still tell the runs apart: " << narrow.out;
}

TEST(TrainCli, ContradictoryOverflowingAndMisplacedOptionsAreRefusedBeforeTheDbIsTouched) {
  const std::string db = temp_path("options.sqlite");
  std::remove(db.c_str());
  auto args = train_args(db, "first");
  args[args.size() - 12] = "10";
  ASSERT_EQ(run_worker(args).exit_code, 0);
  const size_t before = file_hash(db);
  struct Case {
    std::vector<std::string> extra;
    std::string expect;
  };
  // Each was taken in silence once: bidirectional training of a causal LM, a seed saturated to
  // 2^64 - 1, the last of two --steps, --out ignored by the CSV export.
  for (const auto& c : std::vector<Case>{
           {{"--causal", "--bidirectional"}, "they contradict each other, give one"},
           {{"--seed", "99999999999999999999999"}, "--seed 99999999999999999999999 is not a seed"},
           {{"--seed", "18446744073709551616"},
            "is not a seed: give a whole number >= 0 (at most 18446744073709551615)"},
           {{"--steps", "7"}, "--steps was given more than once: give it once"},
           {{"--weight-decay", "much"}, "--weight-decay much is not a number"},
           {{"--dynamic", "Xl"},
            "--dynamic Xl picks dynamic-proj's projections (TH appendix A); it needs --attention "
            "dynamic-proj (this run is talking-heads)"},
       }) {
    auto bad = train_args(db, "second");
    bad.insert(bad.end(), c.extra.begin(), c.extra.end());
    const auto r = run_worker(bad);
    EXPECT_EQ(r.exit_code, 2) << c.expect;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
    EXPECT_EQ(file_hash(db), before) << c.expect;
  }
  const std::string out = temp_path("options_out.sqlite");
  for (const auto& c : std::vector<Case>{
           {{"--out", out}, "add --results-only"},
           {{"--done-only"}, "add --results-only"},
           {{"--csv", "--results-only", "--out", out}, "--csv and --results-only ask for two different outputs"},
       }) {
    std::vector<std::string> bad = {"export", "--db", db};
    bad.insert(bad.end(), c.extra.begin(), c.extra.end());
    const auto r = run_worker(bad);
    EXPECT_EQ(r.exit_code, 2) << c.expect;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out.substr(0, 200);
    EXPECT_FALSE(std::filesystem::exists(out));
  }
  const std::string suite = temp_path("negative_seed.toml");
  write_text(suite, tiny_suite("negative-seed", "steps = 2\nseed = -1\n") +
                        "[[grid]]\nlabel = \"a\"\n\"model.attention.heads\" = [1]\n");
  auto r = run_worker({"enqueue", suite, "--db", db, "--quiet"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("train.seed: expected an integer >= 0"), std::string::npos) << r.err;
  EXPECT_EQ(file_hash(db), before);
  // Values that once read as "not given", and a folder where a file belongs: each named.
  const std::string x_csv = temp_path("X.csv"), p_csv = temp_path("P.csv");
  write_text(x_csv, "1,0\n0,1\n");
  write_text(p_csv, "0.5,0.5\n0.5,0.5\n");
  for (const auto& [args, expect] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"represent", "--input", x_csv, "--target", p_csv, "--head-size", "-1"},
            "head size d_p = -1 is impossible"},
           {{"inspect", "--attention", "multi-head", "--d-model", "0", "--heads", "2"}, "d_model = 0 is impossible"},
           {{"represent", "--input", x_csv, "--target", temp_path(""), "--head-size", "1"}, "is a folder"},
           {{"enqueue", temp_path(""), "--db", db}, "is a folder; give a suite file"},
       }) {
    const auto bad = run_worker(args);
    EXPECT_EQ(bad.exit_code, 2) << expect;
    EXPECT_NE(bad.err.find(expect), std::string::npos) << bad.err;
  }
  EXPECT_EQ(file_hash(db), before);
  const std::string nowhere = temp_path("no_such_folder") + "/runs.sqlite";
  r = run_worker(train_args(nowhere, "a"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(nowhere + ": the folder " + temp_path("no_such_folder") + " does not exist"), std::string::npos)
      << r.err;
}

TEST(TrainCli, ASuiteOfTheSameNameFromAnotherFileIsRefusedAndAnEditOfItAddsItsRuns) {
  const std::string db = temp_path("suite_names.sqlite"), first = temp_path("suite_first.toml"),
                    other = temp_path("suite_other.toml"), edited = temp_path("suite_edited.toml");
  std::remove(db.c_str());
  const std::string text =
      tiny_suite("same", "steps = 2\n") + "[[grid]]\nlabel = \"a\"\n\"model.attention.heads\" = [1]\n";
  write_text(first, text);
  ASSERT_EQ(run_worker({"enqueue", first, "--db", db, "--quiet"}).exit_code, 0);
  const size_t before = file_hash(db);
  // Another suite that happens to share the name: none of its runs is one of the stored suite's.
  write_text(other, tiny_suite("same", "steps = 2\n") + "[[grid]]\nlabel = \"b\"\n\"model.attention.heads\" = [2]\n");
  auto r = run_worker({"enqueue", other, "--db", db, "--quiet"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("already holds another suite named same"), std::string::npos) << r.err;
  EXPECT_EQ(file_hash(db), before);
  // The same suite grown by a run: the run joins it, and the DB keeps the new text (the figure's).
  const std::string grown =
      tiny_suite("same", "steps = 2\n") + "[[grid]]\nlabel = \"a\"\n\"model.attention.heads\" = [1, 2]\n";
  write_text(edited, grown);
  r = run_worker({"enqueue", edited, "--db", db, "--quiet"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("was enqueued from an earlier text of " + edited), std::string::npos) << r.err;
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(h,
                               "SELECT (SELECT count(*) FROM suites), (SELECT count(*) FROM runs), "
                               "(SELECT source_toml FROM suites)",
                               -1, &st, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(st, 0), 1);
  EXPECT_EQ(sqlite3_column_int(st, 1), 2);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, 2))), grown);
  sqlite3_finalize(st);
  sqlite3_close(h);
  // Enqueueing it again adds nothing and says nothing.
  r = run_worker({"enqueue", edited, "--db", db, "--quiet"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

TEST(TrainCli, ARefusedOrFinishedRunLeavesARollbackJournalDbByteForByte) {
  // The shipped results DB is in rollback-journal mode: a writing open would turn it into WAL (its
  // header bytes), and git would see a changed file after a command that changed nothing.
  const std::string db = temp_path("rollback.sqlite"), suite = temp_path("rollback.toml");
  std::remove(db.c_str());
  auto args = train_args(db, "done");
  args[args.size() - 12] = "10";
  ASSERT_EQ(run_worker(args).exit_code, 0);
  exec_sql(db, "PRAGMA journal_mode = DELETE");
  const size_t before = file_hash(db);
  auto r = run_worker(args);  // finished: nothing to do
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("already finished"), std::string::npos) << r.out;
  EXPECT_EQ(file_hash(db), before);
  auto other = args;
  other[args.size() - 12] = "11";
  r = run_worker(other);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("was started with a different configuration"), std::string::npos) << r.err;
  EXPECT_EQ(file_hash(db), before);
  write_text(suite,
             tiny_suite("rollback", "steps = 2\n") + "[[grid]]\nlabel = \"a\"\n\"model.attention.heads\" = [1]\n");
  ASSERT_EQ(run_worker({"enqueue", suite, "--db", db, "--quiet"}).exit_code, 0);
  exec_sql(db, "PRAGMA journal_mode = DELETE");
  const size_t enqueued = file_hash(db);
  write_text(suite,
             tiny_suite("rollback", "steps = 3\n") + "[[grid]]\nlabel = \"a\"\n\"model.attention.heads\" = [1]\n");
  r = run_worker({"enqueue", suite, "--db", db, "--quiet"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("was enqueued with a different configuration"), std::string::npos) << r.err;
  EXPECT_EQ(file_hash(db), enqueued);
}

TEST(TrainCli, AQueuedRunWhoseStoredConfigIsNotJsonFailsAloneAndServeGoesOn) {
  // Once, the claim's json_set failed on such a row, and serve stopped with the SQL's text.
  const std::string db = temp_path("bad_row.sqlite"), suite = temp_path("bad_row.toml");
  std::remove(db.c_str());
  write_text(suite,
             tiny_suite("bad-row", "steps = 2\n") + "[[grid]]\nlabel = \"a\"\n\"model.attention.heads\" = [1, 2]\n");
  ASSERT_EQ(run_worker({"enqueue", suite, "--db", db, "--quiet"}).exit_code, 0);
  exec_sql(db, "UPDATE runs SET config_json = '{not json' WHERE name = 'bad-row/a/heads=1'");
  const auto r = run_worker({"serve", "--db", db, "--quiet"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("bad-row/a/heads=1: failed: its stored config is not JSON"), std::string::npos) << r.err;
  const auto status = run_worker({"status", "--db", db, "--json"});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  const json runs = json::parse(status.out)["runs"];  // kept: a range-for over a temporary's member dangles
  std::map<std::string, std::string> state;
  for (const auto& run : runs) state[run["name"].get<std::string>()] = run["status"].get<std::string>();
  EXPECT_EQ(state["bad-row/a/heads=1"], "failed");
  EXPECT_EQ(state["bad-row/a/heads=2"], "done");
}

// A bad suite is reported under the subcommand the user typed, and creates no DB.
TEST(TrainCli, ABadSuiteIsReportedByTheSubcommandThatReadIt) {
  const std::string db = temp_path("bad_suite.sqlite"), suite = temp_path("bad_suite.toml");
  std::remove(db.c_str());
  write_text(suite, "[suite]\nname = 1\n");
  for (const std::string command : {"enqueue", "run"}) {
    const auto r = run_worker({command, suite, "--db", db, "--quiet"});
    EXPECT_EQ(r.exit_code, 2) << command;
    EXPECT_EQ(r.err.rfind("headroom-worker " + command + ": " + suite + ": suite.name: expected a string", 0), 0u)
        << r.err;
    EXPECT_FALSE(std::filesystem::exists(db)) << command;
  }
}

TEST(TrainCli, MergeRefusesTwoExperimentsOfOneNameAndBadInputsBeforeWritingAnything) {
  const std::string a = temp_path("merge_a.sqlite"), b = temp_path("merge_b.sqlite"),
                    out = temp_path("merge_out.sqlite");
  for (const auto& f : {a, b, out}) std::remove(f.c_str());
  const std::vector<std::string> small = {"--corpus",  "copy", "--steps", "3", "--heads",  "2",   "--layers", "1",
                                          "--context", "8",    "--batch", "2", "--device", "cpu", "--quiet"};
  auto train = [&](const std::string& db, const std::string& width) {
    std::vector<std::string> args = {"train", "--db", db, "--name", "same", "--d-model", width};
    args.insert(args.end(), small.begin(), small.end());
    ASSERT_EQ(run_worker(args).exit_code, 0);
  };
  train(a, "16");
  train(b, "32");
  const size_t a_bytes = file_hash(a);
  auto r = run_worker({"merge", a, b});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("run same is one experiment in " + a + " and another in " + b), std::string::npos) << r.err;
  EXPECT_EQ(file_hash(a), a_bytes) << "the refused merge changed the target";

  r = run_worker({"merge", out, a, b});  // a conflict between two inputs: no output file
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(out));
  const std::string text = temp_path("merge_text.sqlite");
  write_text(text, "not a database\n");
  r = run_worker({"merge", out, a, text});  // a foreign input after a good one: no output file
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(text), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  r = run_worker({"merge", a, a});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is the database being merged into"), std::string::npos) << r.err;
  EXPECT_EQ(file_hash(a), a_bytes) << "merging a file into itself changed it";

  EXPECT_EQ(run_worker({"merge", out, a}).exit_code, 0);  // and a good merge still works
}

// A file an older Headroom wrote (schema 1 here) is refused by the reading commands, which name the
// way out; merge and export --results-only read it as it is into a current file, value for value.
TEST(TrainCli, MergeAndExportCopyAnOlderSchemaFileAndLeaveItAsItIs) {
  const std::string old = temp_path("older_schema.sqlite"), merged = temp_path("older_merged.sqlite"),
                    exported = temp_path("older_exported.sqlite");
  for (const auto& f : {old, merged, exported}) std::remove(f.c_str());
  auto train = train_args(old, "old");
  *(std::find(train.begin(), train.end(), "--steps") + 1) = "40";
  ASSERT_EQ(run_worker(train).exit_code, 0);
  const auto metrics = run_worker({"export", "--db", old, "--csv"});
  ASSERT_EQ(metrics.exit_code, 0) << metrics.err;
  ASSERT_GT(metrics.out.size(), 200u);
  exec_sql(old, headroom::db::testing::kDowngradeToVersion1);
  const size_t old_bytes = file_hash(old);

  auto r = run_worker({"export", "--db", old, "--csv"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("schema version 1 is older than this Headroom reads"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("`headroom-worker merge NEW.sqlite " + old + "`"), std::string::npos) << r.err;
  EXPECT_EQ(file_hash(old), old_bytes) << "a refused read changed the file";

  r = run_worker({"merge", merged, old});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(file_hash(old), old_bytes) << "merge changed its source";
  r = run_worker({"status", "--db", merged});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("old"), std::string::npos) << r.out;
  EXPECT_EQ(run_worker({"export", "--db", merged, "--csv"}).out, metrics.out);

  r = run_worker({"export", "--db", old, "--results-only", "--out", exported});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(file_hash(old), old_bytes) << "export changed its source";
  EXPECT_EQ(run_worker({"export", "--db", exported, "--csv"}).out, metrics.out);
}

namespace {
// Runs `sql` on the file `db`, opened read-only, and calls `row` with each result row; no rows
// where the file does not open or the query does not prepare (the callers' expectations then fail).
template <class Row>
void for_each_row(const std::string& db, const char* sql, Row row) {
  sqlite3* h = nullptr;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(h, sql, -1, &st, nullptr) == SQLITE_OK)
      while (sqlite3_step(st) == SQLITE_ROW) row(st);
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
}
std::string text_column(sqlite3_stmt* st, int i) { return reinterpret_cast<const char*>(sqlite3_column_text(st, i)); }

// The pages (1-based) that hold the artifacts table's blobs, as SQLite's dbstat table lists them:
// where they lie moves whenever the shipped DB is rewritten, so a test that damages them asks.
std::vector<std::int64_t> artifact_overflow_pages(const std::string& db) {
  std::vector<std::int64_t> pages;
  for_each_row(db, "SELECT pageno FROM dbstat WHERE name = 'artifacts' AND pagetype = 'overflow' ORDER BY pageno",
               [&](sqlite3_stmt* st) { pages.push_back(sqlite3_column_int64(st, 0)); });
  return pages;
}
}  // namespace

TEST(TrainCli, AnExportOfADamagedSourceLeavesNoHalfMadeFile) {
  // The shipped results with 20 of the artifacts' blob pages overwritten: SQLite opens it and
  // copies it, and meets the damage only when the export reads the weights.
  const std::string shipped = std::string(HEADROOM_SOURCE_DIR) + "/assets/results/headroom_results.sqlite";
  const std::string source = temp_path("damaged_source.sqlite"), out = temp_path("damaged_export.sqlite");
  std::remove(out.c_str());
  const std::vector<std::int64_t> pages = artifact_overflow_pages(shipped);
  ASSERT_GE(pages.size(), 40u) << "the shipped results should hold weights (artifacts' overflow pages, dbstat)";
  std::string bytes = file_bytes(shipped);
  const size_t page_size = 4096;
  ASSERT_EQ(bytes.size() % page_size, 0u);
  for (size_t i = 0; i < 20; ++i) {  // from the middle of the blobs, not their first page
    const auto page = static_cast<size_t>(pages[pages.size() / 2 + i]);
    ASSERT_LE(page * page_size, bytes.size());
    bytes.replace((page - 1) * page_size, page_size, std::string(page_size, '\xff'));
  }
  write_text(source, bytes);
  auto r = run_worker({"export", "--db", source, "--results-only", "--out", out});
  EXPECT_EQ(r.exit_code, 2);  // a damaged file is bad input, as for every command
  EXPECT_NE(r.err.find(source + " could not be exported"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the file is damaged: `sqlite3 " + source + " \"PRAGMA integrity_check\"` lists where"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("Nothing was written"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out)) << "a half-made export was left behind";
}

namespace {
// (kind, dtype of the first tensor) per artifact, read straight from the file.
std::vector<std::pair<std::string, std::string>> artifact_kinds(const std::string& db) {
  std::vector<std::pair<std::string, std::string>> out;
  for_each_row(db, "SELECT kind, substr(bytes, 9, 4000) FROM artifacts ORDER BY run_id, step", [&](sqlite3_stmt* st) {
    const std::string header(reinterpret_cast<const char*>(sqlite3_column_blob(st, 1)), sqlite3_column_bytes(st, 1));
    const auto at = header.find("\"dtype\":\"");
    out.emplace_back(text_column(st, 0), at == std::string::npos ? "" : header.substr(at + 9, 3));
  });
  return out;
}
std::vector<std::string> weights_run_names(const std::string& db) {
  std::vector<std::string> out;
  for_each_row(db,
               "SELECT r.name FROM artifacts a JOIN runs r ON r.id = a.run_id WHERE a.kind = 'weights' ORDER BY r.name",
               [&](sqlite3_stmt* st) { out.push_back(text_column(st, 0)); });
  return out;
}
}  // namespace

TEST(TrainCli, ResultsOnlyExportKeepsMetricsAndFinalWeightsInSixteenBits) {
  const std::string db = temp_path("full_results.sqlite"), out = temp_path("shared_results.sqlite");
  for (const auto& p : {db, out}) std::remove(p.c_str());
  for (const char* name : {"a", "b"}) {
    auto args = train_args(db, name);
    args[args.size() - 12] = "120";  // --steps: three checkpoints
    ASSERT_EQ(run_worker(args).exit_code, 0);
  }
  const size_t before = file_hash(db);
  // A run named with --keep-weights-of keeps its weights first (b, not a, the lower in order);
  // a name that is not a run is refused before anything is written.
  auto r = run_worker({"export", "--db", db, "--results-only", "--out", out, "--weights-per-suite", "1",
                       "--keep-weights-of", "nonesuch"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--keep-weights-of nonesuch: no such run"), std::string::npos) << r.err;
  EXPECT_NE(access(out.c_str(), F_OK), 0) << "a refused export wrote " << out;
  r = run_worker(
      {"export", "--db", db, "--results-only", "--out", out, "--weights-per-suite", "1", "--keep-weights-of", "b"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("final weights in F16 for 1 of them"), std::string::npos) << r.out;
  EXPECT_EQ(file_hash(db), before) << "the source changed";
  EXPECT_EQ(integrity(out), "ok");
  // Every metric of every run survives, value for value.
  const auto metrics_db = run_worker({"export", "--db", db, "--csv"}),
             metrics_out = run_worker({"export", "--db", out, "--csv"});
  EXPECT_GT(metrics_db.out.size(), 1000u);
  EXPECT_EQ(metrics_out.out, metrics_db.out);
  // The source has checkpoints and several weights per run; the export one F16 weights artifact.
  int source_checkpoints = 0;
  for (const auto& [kind, dtype] : artifact_kinds(db)) source_checkpoints += kind == "checkpoint";
  EXPECT_GT(source_checkpoints, 0);
  const auto kinds = artifact_kinds(out);
  int weights = 0;
  for (const auto& [kind, dtype] : kinds) {
    EXPECT_NE(kind, "checkpoint");
    if (kind == "weights") {
      ++weights;
      EXPECT_EQ(dtype, "F16");
    }
  }
  EXPECT_EQ(weights, 1);
  EXPECT_EQ(weights_run_names(out), std::vector<std::string>{"b"});
  // From that export, run a has no weights left to keep: said, and nothing written.
  const std::string again = temp_path("shared_again.sqlite");
  std::remove(again.c_str());
  r = run_worker({"export", "--db", out, "--results-only", "--out", again, "--keep-weights-of", "a"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--keep-weights-of a: the run has no weights"), std::string::npos) << r.err;
  EXPECT_NE(access(again.c_str(), F_OK), 0);
  EXPECT_LT(file_bytes(out).size(), file_bytes(db).size() / 2);
  // Bad uses lose nothing: an existing --out is refused, and --out is required.
  r = run_worker({"export", "--db", db, "--results-only", "--out", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("already exists"), std::string::npos) << r.err;
  r = run_worker({"export", "--db", db, "--results-only"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--out"), std::string::npos) << r.err;
  // An --out in a folder that is not there is named as the problem, not the source.
  const std::string nowhere = temp_path("no_such_folder") + "/shared.sqlite";
  r = run_worker({"export", "--db", db, "--results-only", "--out", nowhere});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot create " + nowhere), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("damaged"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(nowhere));
  EXPECT_EQ(file_hash(db), before) << "the source changed";
}

TEST(TrainCli, ResultsOnlyExportStoresWeightsEqualToAKeptRunsOnceAndTakesTheNextRun) {
  // a and b are one model (same flags, same seed): their final weights are the same bytes; c is
  // another seed. With room for two runs' weights, a keeps its own, b's are a's and do not
  // count, and c takes the second place.
  const std::string db = temp_path("twins.sqlite"), out = temp_path("twins_shared.sqlite");
  for (const char* name : {"a", "b", "c"}) {
    auto args = train_args(db, name);
    args[args.size() - 12] = "80";  // --steps
    if (std::string(name) == "c") args.insert(args.end(), {"--seed", "1"});
    ASSERT_EQ(run_worker(args).exit_code, 0);
  }
  auto r = run_worker({"export", "--db", db, "--results-only", "--out", out, "--weights-per-suite", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("final weights in F16 for 2 of them"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 runs' weights equal a kept run's and are stored once (below)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  b: final weights byte for byte a's (the same model), stored once, there\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(weights_run_names(out), (std::vector<std::string>{"a", "c"}));
  // Named first, b keeps them and a is the twin; with room for one run, nothing is said of c.
  const std::string named = temp_path("twins_named.sqlite");
  r = run_worker(
      {"export", "--db", db, "--results-only", "--out", named, "--weights-per-suite", "1", "--keep-weights-of", "b"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(weights_run_names(named), std::vector<std::string>{"b"});
  EXPECT_EQ(r.out.find("stored once"), std::string::npos) << r.out;
}

TEST(TrainCli, StatusSaysWhyARunFailedUnderTheTable) {
  const std::string db = temp_path("failed_status.sqlite");
  std::remove(db.c_str());
  for (const char* name : {"a", "b"}) ASSERT_EQ(run_worker(train_args(db, name)).exit_code, 0);
  // run b as a worker leaves a run it could not train
  ASSERT_NO_FATAL_FAILURE(
      exec_sql(db,
               "UPDATE runs SET status = 'failed', error_text = 'CUDA out of memory. Tried to allocate 4.00 GiB' "
               "WHERE name = 'b'"));
  const auto r = run_worker({"status", "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("run 2 failed: CUDA out of memory. Tried to allocate 4.00 GiB\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("run 1 failed"), std::string::npos) << r.out;
}

TEST(TrainCli, ResultsOnlyExportThinsTalkingHeadsSnapshotsEvenlyKeepingFirstAndLast) {
  const std::string db = temp_path("snapshots.sqlite"), out = temp_path("snapshots_results.sqlite"),
                    all = temp_path("snapshots_all.sqlite");
  for (const auto& p : {db, out, all}) std::remove(p.c_str());
  auto args = train_args(db, "th");
  args[args.size() - 12] = "200";  // --steps; a snapshot at every evaluation (25 steps): 0, 25, .., 200
  ASSERT_EQ(run_worker(args).exit_code, 0);
  auto steps_of = [](const std::string& path) {
    std::vector<long> steps;
    for_each_row(path, "SELECT step FROM artifacts WHERE kind = 'talking_heads' ORDER BY step",
                 [&](sqlite3_stmt* st) { steps.push_back(sqlite3_column_int64(st, 0)); });
    return steps;
  };
  const auto source = steps_of(db);
  ASSERT_EQ(source.size(), 9u) << "expected a snapshot at steps 0, 25, .., 200";
  auto r = run_worker({"export", "--db", db, "--results-only", "--out", out, "--snapshots-per-run", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(steps_of(out), (std::vector<long>{source.front(), source[4], source.back()}));
  EXPECT_NE(r.out.find("6 P_l / P_w snapshots left out (at most 3 per run)"), std::string::npos) << r.out;
  // The snapshots kept are stored in F16: the same tensors, each value its F32 source's to F16's
  // precision (relative 2^-11, or 2^-24 absolute near zero).
  EXPECT_NE(r.out.find("3 P_l / P_w snapshots stored in F16"), std::string::npos) << r.out;
  auto snapshot = [](const std::string& path, long step) {
    std::vector<uint8_t> bytes;
    for_each_row(
        path, ("SELECT bytes FROM artifacts WHERE kind = 'talking_heads' AND step = " + std::to_string(step)).c_str(),
        [&](sqlite3_stmt* st) {
          const auto* b = static_cast<const uint8_t*>(sqlite3_column_blob(st, 0));
          bytes.assign(b, b + sqlite3_column_bytes(st, 0));
        });
    return headroom::core::decode_safetensors(bytes.data(), bytes.size(), path);
  };
  const headroom::core::StFile wide = snapshot(db, source.back()), half = snapshot(out, source.back());
  ASSERT_EQ(half.tensors.size(), wide.tensors.size());
  ASSERT_FALSE(half.tensors.empty());
  for (size_t i = 0; i < half.tensors.size(); ++i) {
    EXPECT_EQ(half.tensors[i].name, wide.tensors[i].name);
    EXPECT_EQ(half.tensors[i].shape, wide.tensors[i].shape);
    EXPECT_EQ(half.tensors[i].dtype, "F16") << half.tensors[i].name;
    EXPECT_EQ(wide.tensors[i].dtype, "F32") << wide.tensors[i].name;
    const auto a = wide.tensors[i].as_f32(), b = half.tensors[i].as_f32();
    ASSERT_EQ(a.size(), b.size());
    for (size_t k = 0; k < a.size(); ++k)
      EXPECT_NEAR(b[k], a[k], std::max(std::abs(a[k]) * 0x1p-11f, 0x1p-24f)) << half.tensors[i].name << "[" << k << "]";
  }
  // Without the option every snapshot stays; a count of 0 is refused.
  ASSERT_EQ(run_worker({"export", "--db", db, "--results-only", "--out", all}).exit_code, 0);
  EXPECT_EQ(steps_of(all), source);
  r = run_worker(
      {"export", "--db", db, "--results-only", "--out", temp_path("never.sqlite"), "--snapshots-per-run", "0"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("snapshots-per-run"), std::string::npos) << r.err;
}

TEST(TrainCli, ResultsOnlyExportKeepsEverySnapshotOfTheRunsNamed) {
  const std::string db = temp_path("keep_snapshots.sqlite"), out = temp_path("keep_snapshots_results.sqlite"),
                    never = temp_path("keep_snapshots_never.sqlite");
  for (const auto& p : {db, out, never}) std::remove(p.c_str());
  for (const char* name : {"th", "other"}) {
    auto args = train_args(db, name);
    args[args.size() - 12] = "100";  // --steps: snapshots at 0, 25, .., 100
    ASSERT_EQ(run_worker(args).exit_code, 0) << name;
  }
  auto count_of = [](const std::string& path, const std::string& run) {
    long n = 0;
    for_each_row(path,
                 ("SELECT COUNT(*) FROM artifacts a JOIN runs r ON r.id = a.run_id WHERE a.kind = 'talking_heads' "
                  "AND r.name = '" +
                  run + "'")
                     .c_str(),
                 [&](sqlite3_stmt* st) { n = sqlite3_column_int64(st, 0); });
    return n;
  };
  ASSERT_EQ(count_of(db, "th"), 5);
  ASSERT_EQ(count_of(db, "other"), 5);
  auto r = run_worker(
      {"export", "--db", db, "--results-only", "--out", out, "--snapshots-per-run", "2", "--keep-snapshots-of", "th"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count_of(out, "th"), 5) << "named: every snapshot kept";
  EXPECT_EQ(count_of(out, "other"), 2) << "the others thinned as asked";
  EXPECT_NE(
      r.out.find("3 P_l / P_w snapshots left out (at most 2 per run; the run named in --keep-snapshots-of kept all)"),
      std::string::npos)
      << r.out;
  // A name that is no run is refused before anything is written.
  r = run_worker({"export", "--db", db, "--results-only", "--out", never, "--snapshots-per-run", "2",
                  "--keep-snapshots-of", "nonesuch"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--keep-snapshots-of nonesuch: no such run"), std::string::npos) << r.err;
  EXPECT_NE(access(never.c_str(), F_OK), 0) << "nothing written";
}

TEST(TrainCli, ResultsOnlyExportThinsTheSeriesButTheLossesEvenlyKeepingFirstAndLast) {
  const std::string db = temp_path("aux_points.sqlite"), out = temp_path("aux_points_results.sqlite");
  for (const auto& p : {db, out}) std::remove(p.c_str());
  ASSERT_EQ(run_worker(train_args(db, "a")).exit_code, 0);
  auto steps_of = [](const std::string& path, const std::string& metric) {
    std::vector<long> steps;
    const std::string sql = "SELECT m.step FROM metrics m JOIN metric_series s ON s.id = m.series_id WHERE s.name = '" +
                            metric + "' ORDER BY m.step";
    for_each_row(path, sql.c_str(), [&](sqlite3_stmt* st) { steps.push_back(sqlite3_column_int64(st, 0)); });
    return steps;
  };
  const auto lr = steps_of(db, "lr");
  ASSERT_GE(lr.size(), 4u) << "expected lr logged at several steps";
  auto r = run_worker({"export", "--db", db, "--results-only", "--out", out, "--aux-series-points", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<long> thinned = {lr.front(), lr[(lr.size() - 1) / 2], lr.back()};
  for (const char* metric : {"lr", "grad_norm", "tokens_per_s"})
    EXPECT_EQ(steps_of(out, metric), thinned) << metric << " is logged with lr, so it keeps lr's steps";
  for (const char* metric : {"train_loss", "val_loss"})
    EXPECT_EQ(steps_of(out, metric), steps_of(db, metric)) << metric;
  const std::string said = "; " + std::to_string(3 * (lr.size() - 3)) +
                           " points of series other than train_loss and val_loss left out (at most 3 per series)";
  EXPECT_NE(r.out.find(said), std::string::npos) << r.out;
  EXPECT_EQ(integrity(out), "ok");
  // The explorer's last value of a thinned series is the run's last, as before the export.
  const auto last_lr = [](const std::string& path) {
    double v = NAN;
    for_each_row(path, "SELECT last_value FROM metric_series WHERE name = 'lr'",
                 [&](sqlite3_stmt* st) { v = sqlite3_column_double(st, 0); });
    return v;
  };
  EXPECT_EQ(last_lr(out), last_lr(db));
  r = run_worker(
      {"export", "--db", db, "--results-only", "--out", temp_path("never.sqlite"), "--aux-series-points", "0"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("aux-series-points"), std::string::npos) << r.err;
}

TEST(TrainCli, ResultsOnlyExportCanLeaveOutRunsNotDoneAndReportsTheSizeItWrote) {
  const std::string db = temp_path("unfinished.sqlite"), out = temp_path("unfinished_results.sqlite");
  for (const auto& p : {db, out}) std::remove(p.c_str());
  for (const char* name : {"a", "b"}) ASSERT_EQ(run_worker(train_args(db, name)).exit_code, 0);
  // run b as a worker that died mid-run leaves it
  ASSERT_NO_FATAL_FAILURE(exec_sql(db, "UPDATE runs SET status = 'running' WHERE name = 'b'"));
  auto r = run_worker({"export", "--db", db, "--results-only", "--out", out, "--done-only"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1 runs with their configs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 runs not done left out"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(" + std::to_string(file_bytes(out).size()) + " bytes)"), std::string::npos)
      << "the size reported is not the file's: " << r.out;
  EXPECT_EQ(integrity(out), "ok");
  // Not in WAL mode (header bytes 18-19 are 1 for a rollback journal, 2 for WAL): a reader that
  // cannot write beside the file (an installed share) can still open it.
  const std::string header = file_bytes(out).substr(0, 20);
  EXPECT_EQ(header[18], 1);
  EXPECT_EQ(header[19], 1);
  const auto csv = run_worker({"export", "--db", out, "--csv"}).out;
  EXPECT_EQ(csv.find("\n2,"), std::string::npos) << "run b's metrics were exported";
  EXPECT_NE(csv.find("\n1,"), std::string::npos);
}

TEST(TrainCli, SaysOnceWhenOpenBlasRunsKernelsOlderThanTheCpu) {
  // The worker's decision, made here in the same environment with the same OpenBLAS and CPU: a
  // note on a machine where OpenBLAS runs pre-AVX2 kernels on an AVX2 CPU, none elsewhere.
  headroom::core::set_openblas_threads(1);
  const std::string advice = headroom::core::openblas_kernel_advice();
  auto args = train_args(temp_path("kernels.sqlite"), "kernels");
  args.erase(std::find(args.begin(), args.end(), "--quiet"));  // the note is progress output's company
  *(std::find(args.begin(), args.end(), "--steps") + 1) = "5";
  const auto r = run_worker(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string note = "headroom-worker train: note: ";
  if (advice.empty()) {
    EXPECT_EQ(r.err.find(note), std::string::npos) << r.err;
  } else {
    const auto at = r.err.find(note + advice + "\n");
    EXPECT_NE(at, std::string::npos) << r.err;
    EXPECT_EQ(r.err.find(note, at + 1), std::string::npos) << "said more than once: " << r.err;
  }
#if defined(__x86_64__)
  // A user who chose the kernels hears nothing ("Prescott" runs on every x86-64 CPU).
  args[2] = temp_path("kernels_chosen.sqlite");
  const auto chosen = run_worker(args, [] { setenv("OPENBLAS_CORETYPE", "Prescott", 1); });
  ASSERT_EQ(chosen.exit_code, 0) << chosen.err;
  EXPECT_EQ(chosen.err.find(note), std::string::npos) << chosen.err;
#endif
}

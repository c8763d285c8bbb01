#include "cli_runner.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace {
std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

namespace {
// Every file a test process hands out lives in one directory of its own, so that nothing is left
// in the temporary directory after the process's tests pass (databases leave -wal / -shm files
// beside them, and runs stdout / stderr captures). When a test fails, the directory stays for a
// look at what the worker left, and the process says where it is.
class TempRoot : public ::testing::Environment {
 public:
  const std::string& path() {
    if (path_.empty()) {
      path_ = ::testing::TempDir() + "/headroom_cli_" + std::to_string(getpid());
      std::filesystem::create_directories(path_);
    }
    return path_;
  }
  void TearDown() override {
    if (path_.empty()) return;
    if (!::testing::UnitTest::GetInstance()->Passed()) {
      std::fprintf(stderr, "a test failed: its files are kept in %s\n", path_.c_str());
      return;
    }
    std::error_code ignored;  // a worker a test left running may still be writing; what stays is harmless
    for (auto it = std::filesystem::recursive_directory_iterator(path_, ignored);
         it != std::filesystem::recursive_directory_iterator(); it.increment(ignored)) {
      if (it->is_directory(ignored))
        std::filesystem::permissions(it->path(), std::filesystem::perms::owner_all, std::filesystem::perm_options::add,
                                     ignored);
    }
    std::filesystem::remove_all(path_, ignored);
  }

 private:
  std::string path_;
};

// Registered before main (gtest owns and deletes it); the directory is made on first use.
TempRoot* const temp_root = static_cast<TempRoot*>(::testing::AddGlobalTestEnvironment(new TempRoot));
}  // namespace

std::string temp_path(const std::string& name) { return temp_root->path() + "/" + name; }

void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

pid_t spawn_worker(const std::vector<std::string>& args, const std::string& out, const std::string& err,
                   const std::function<void()>& in_child) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (!freopen(out.c_str(), "w", stdout) || !freopen(err.c_str(), "w", stderr)) _exit(127);
    if (in_child) in_child();
    std::vector<char*> argv;
    std::string bin = HEADROOM_WORKER_BIN;
    argv.push_back(bin.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(bin.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

CliResult run_worker(const std::vector<std::string>& args, const std::function<void()>& in_child) {
  const std::string out = temp_path("stdout"), err = temp_path("stderr");
  const pid_t pid = spawn_worker(args, out, err, in_child);
  int status = 0;
  waitpid(pid, &status, 0);
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

const std::vector<std::string> kSmallTrainFlags = {"--corpus",
                                                   "copy",
                                                   "--attention",
                                                   "talking-heads",
                                                   "--d-model",
                                                   "32",
                                                   "--heads",
                                                   "4",
                                                   "--layers",
                                                   "2",
                                                   "--context",
                                                   "16",
                                                   "--batch",
                                                   "8",
                                                   "--steps",
                                                   "300",
                                                   "--lr",
                                                   "3e-3",
                                                   "--warmup",
                                                   "20",
                                                   "--eval-every",
                                                   "25",
                                                   "--log-every",
                                                   "5",
                                                   "--checkpoint-every",
                                                   "40",
                                                   "--quiet"};

std::vector<std::string> train_args(const std::string& db, const std::string& name) {
  std::vector<std::string> a = {"train", "--db", db, "--name", name};
  a.insert(a.end(), kSmallTrainFlags.begin(), kSmallTrainFlags.end());
  return a;
}

std::map<std::string, std::map<long, std::string>> deterministic_metrics(const std::string& db) {
  auto r = run_worker({"export", "--db", db, "--csv"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, std::map<long, std::string>> out;
  std::stringstream ss(r.out);
  std::string line;
  std::getline(ss, line);  // header
  EXPECT_EQ(line, "run,metric,step,value");
  while (std::getline(ss, line)) {
    std::stringstream row(line);
    std::string run, metric, step, value;
    std::getline(row, run, ',');
    std::getline(row, metric, ',');
    std::getline(row, step, ',');
    std::getline(row, value, ',');
    if (metric == "tokens_per_s") continue;
    EXPECT_TRUE(out[metric].emplace(std::stol(step), value).second) << "duplicate " << metric << " at " << step;
  }
  return out;
}

std::string integrity(const std::string& db) {
  sqlite3* h = nullptr;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) return "cannot open";
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(h, "PRAGMA integrity_check", -1, &st, nullptr);
  std::string result =
      sqlite3_step(st) == SQLITE_ROW ? reinterpret_cast<const char*>(sqlite3_column_text(st, 0)) : "no row";
  sqlite3_finalize(st);
  sqlite3_close(h);
  return result;
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

long logged_step(const std::string& db) {
  sqlite3* h = nullptr;
  long step = -1;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(h, 1000);
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(h, "SELECT max(step) FROM metrics", -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
      step = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
  return step;
}

bool wait_for_progress(pid_t pid, const std::string& db, long after) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (std::chrono::steady_clock::now() < deadline) {
    if (logged_step(db) > after) return true;
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

size_t file_hash(const std::string& path) { return std::hash<std::string>()(file_bytes(path)); }

void exec_sql(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(h);
  sqlite3_close(h);
}

std::string tiny_suite(const std::string& name, const std::string& train_rest) {
  return "[suite]\nname = \"" + name + R"("
reproduces = "nothing: a test"
full_estimate = "seconds"
[base.model]
width = 16
context = 8
[base.model.attention]
kind = "multi-head"
heads = 2
[base.train]
corpus = "copy"
)" + train_rest;
}

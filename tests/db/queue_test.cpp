// The work queue: enqueue, claim (also from several processes), heartbeats,
// stale-worker recovery, cancel, shards.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "experiments_db/connection.h"
#include "tests/db/db_test_util.h"
#include "experiments_db/db_error.h"
#include "experiments_db/run_store.h"
#include "experiments_db/transaction.h"

namespace headroom::db {
namespace {

using testing::bytes_of;
using testing::read_bytes;
using testing::TempDir;

namespace fs = std::filesystem;

NewRun simple_run(const std::string& name, std::optional<std::int64_t> suite_id = std::nullopt) {
  NewRun run;
  run.suite_id = suite_id;
  run.name = name;
  run.config_json = R"({"model": {"heads": 8}})";
  return run;
}

// A store whose clock the test moves by hand.
struct ClockedStore {
  explicit ClockedStore(const std::string& path, OpenMode mode = OpenMode::Create)
      : connection(Connection::open(path, mode)), store(connection, [this] { return now; }) {}
  double now = 1000.0;
  Connection connection;
  RunStore store;
};

TEST(Queue, EnqueueIsIdempotentByName) {
  TempDir dir;
  ClockedStore db(dir.path("runs.sqlite"));
  const std::int64_t first = db.store.enqueue_run(simple_run("baseline"));
  NewRun changed = simple_run("baseline");
  changed.seed = 99;
  EXPECT_EQ(db.store.enqueue_run(changed), first);
  const auto runs = db.store.list_runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].seed, 0);
}

TEST(Queue, EnqueueStoresEveryField) {
  TempDir dir;
  ClockedStore db(dir.path("runs.sqlite"));
  const std::int64_t suite = db.store.ensure_suite("rank-sweep", "[suite]\nname = 'rank-sweep'\n", "tiny");
  EXPECT_EQ(db.store.ensure_suite("rank-sweep", "edited", "huge"), suite);
  NewRun run = simple_run("r8", suite);
  run.seed = 7;
  run.param_count = 123456;
  run.software_version = "0.1.0";
  const std::int64_t id = db.store.enqueue_run(run);
  const RunRecord record = db.store.get_run(id).value();
  EXPECT_EQ(record.suite_id, suite);
  EXPECT_EQ(record.suite_name, "rank-sweep");
  EXPECT_EQ(record.name, "r8");
  EXPECT_EQ(record.status, RunStatus::Queued);
  EXPECT_EQ(record.config_json, run.config_json);
  EXPECT_EQ(record.seed, 7);
  EXPECT_EQ(record.param_count, 123456);
  EXPECT_EQ(record.software_version, "0.1.0");
  EXPECT_EQ(record.created_at, 1000.0);
  EXPECT_FALSE(record.started_at);
  EXPECT_TRUE(record.worker.empty());
  EXPECT_EQ(db.store.find_run("r8").value().id, id);
  EXPECT_FALSE(db.store.find_run("R8"));
  const auto suites = db.store.list_suites();
  ASSERT_EQ(suites.size(), 1u);
  EXPECT_EQ(suites[0].source_toml, "[suite]\nname = 'rank-sweep'\n");  // first enqueue wins
  EXPECT_EQ(suites[0].scale, "tiny");
}

TEST(Queue, EnqueueRefusesBadInputWithClearMessages) {
  TempDir dir;
  ClockedStore db(dir.path("runs.sqlite"));
  NewRun bad_json = simple_run("broken");
  bad_json.config_json = "{heads: 8";
  try {
    db.store.enqueue_run(bad_json);
    ADD_FAILURE() << "enqueued invalid JSON";
  } catch (const DbError& error) {
    EXPECT_NE(std::string(error.what()).find("'broken' is not valid JSON"), std::string::npos) << error.what();
  }
  EXPECT_THROW(db.store.enqueue_run(simple_run("orphan", 42)), DbError);
  EXPECT_THROW(db.store.enqueue_run(simple_run("")), DbError);
  EXPECT_TRUE(db.store.list_runs().empty());
}

TEST(Queue, DefaultShardKeyIsPositionInSuite) {
  TempDir dir;
  ClockedStore db(dir.path("runs.sqlite"));
  const std::int64_t s = db.store.ensure_suite("s", "", "");
  const std::int64_t t = db.store.ensure_suite("t", "", "");
  std::map<std::string, std::int64_t> expected = {{"s0", 0}, {"t0", 0}, {"s1", 1}, {"t1", 1}, {"s2", 2}, {"x", 17}};
  db.store.enqueue_run(simple_run("s0", s));
  db.store.enqueue_run(simple_run("t0", t));
  db.store.enqueue_run(simple_run("s1", s));
  db.store.enqueue_run(simple_run("t1", t));
  db.store.enqueue_run(simple_run("s2", s));
  NewRun explicit_key = simple_run("x", s);
  explicit_key.shard_key = 17;
  db.store.enqueue_run(explicit_key);
  for (const RunRecord& run : db.store.list_runs()) EXPECT_EQ(run.shard_key, expected.at(run.name)) << run.name;
}

TEST(Queue, ClaimTakesOldestQueuedRunFirst) {
  TempDir dir;
  ClockedStore db(dir.path("runs.sqlite"));
  for (const char* name : {"a", "b", "c"}) db.store.enqueue_run(simple_run(name));
  for (const char* name : {"a", "b", "c"}) {
    db.now += 1;
    const auto run = db.store.claim_next("w1", 0, 1, 60);
    ASSERT_TRUE(run);
    EXPECT_EQ(run->name, name);
    EXPECT_EQ(run->status, RunStatus::Running);
    EXPECT_EQ(run->worker, "w1");
    EXPECT_EQ(run->attempts, 1);
    EXPECT_EQ(run->started_at, db.now);
    EXPECT_EQ(run->heartbeat_at, db.now);
  }
  EXPECT_FALSE(db.store.claim_next("w1", 0, 1, 60));
}

TEST(Queue, TwoConnectionsNeverClaimTheSameRun) {
  TempDir dir;
  const std::string path = dir.path("runs.sqlite");
  ClockedStore first(path);
  ClockedStore second(path, OpenMode::ReadWrite);
  for (int i = 0; i < 20; ++i) first.store.enqueue_run(simple_run("run" + std::to_string(i)));
  std::set<std::int64_t> claimed;
  for (int i = 0; i < 10; ++i) {
    for (RunStore* store : {&first.store, &second.store}) {
      const auto run = store->claim_next(store == &first.store ? "w1" : "w2", 0, 1, 60);
      ASSERT_TRUE(run);
      EXPECT_TRUE(claimed.insert(run->id).second) << "run " << run->id << " claimed twice";
    }
  }
  EXPECT_FALSE(first.store.claim_next("w1", 0, 1, 60));
  EXPECT_FALSE(second.store.claim_next("w2", 0, 1, 60));
}

TEST(Queue, ShardsPartitionTheQueueByShardKey) {
  TempDir dir;
  ClockedStore db(dir.path("runs.sqlite"));
  const std::int64_t suite = db.store.ensure_suite("s", "", "");
  for (int i = 0; i < 10; ++i) db.store.enqueue_run(simple_run("run" + std::to_string(i), suite));
  std::set<std::string> all;
  for (int shard = 0; shard < 3; ++shard) {
    while (const auto run = db.store.claim_next("w" + std::to_string(shard), shard, 3, 60)) {
      EXPECT_EQ(run->shard_key % 3, shard) << run->name;
      EXPECT_TRUE(all.insert(run->name).second);
    }
  }
  EXPECT_EQ(all.size(), 10u);
  EXPECT_THROW(db.store.claim_next("w", 3, 3, 60), DbError);
  EXPECT_THROW(db.store.claim_next("w", 0, 0, 60), DbError);
  EXPECT_THROW(db.store.claim_next("w", -1, 2, 60), DbError);
}

TEST(Queue, StaleHeartbeatIsReclaimedAndFreshOneIsNot) {
  TempDir dir;
  ClockedStore db(dir.path("runs.sqlite"));
  const std::int64_t id = db.store.enqueue_run(simple_run("long"));
  ASSERT_EQ(db.store.claim_next("dead-worker", 0, 1, 60).value().id, id);

  db.now += 50;  // heartbeat 50 s old: alive
  EXPECT_FALSE(db.store.claim_next("rescuer", 0, 1, 60));
  EXPECT_TRUE(db.store.heartbeat(id, "dead-worker"));  // refreshed at 1050
  db.now += 59;
  EXPECT_FALSE(db.store.claim_next("rescuer", 0, 1, 60));
  EXPECT_FALSE(db.store.claim_next("rescuer", 0, 1, 0));  // 0 never steals
  db.now += 2;                                            // 61 s since the last heartbeat: the worker is presumed dead
  const auto rescued = db.store.claim_next("rescuer", 0, 1, 60);
  ASSERT_TRUE(rescued);
  EXPECT_EQ(rescued->id, id);
  EXPECT_EQ(rescued->worker, "rescuer");
  EXPECT_EQ(rescued->attempts, 2);
  EXPECT_EQ(rescued->started_at, 1000.0);  // first start is kept

  // The old worker comes back: it must notice it lost the run.
  EXPECT_FALSE(db.store.heartbeat(id, "dead-worker"));
  EXPECT_FALSE(db.store.finish(id, "dead-worker"));
  EXPECT_FALSE(db.store.commit_progress({id, "dead-worker", 10, {{"loss", 10, 0, 0, 1.0}}, {}}));
  EXPECT_TRUE(db.store.metric_names(id).empty());
  EXPECT_TRUE(db.store.heartbeat(id, "rescuer"));
  EXPECT_TRUE(db.store.finish(id, "rescuer"));
  EXPECT_EQ(db.store.get_run(id)->status, RunStatus::Done);
  db.now += 1000;
  EXPECT_FALSE(db.store.claim_next("rescuer", 0, 1, 60));  // done runs are never claimed
}

TEST(Queue, CancelPreventsClaimingAndStopsTheWorker) {
  TempDir dir;
  ClockedStore db(dir.path("runs.sqlite"));
  const std::int64_t queued = db.store.enqueue_run(simple_run("queued"));
  const std::int64_t running = db.store.enqueue_run(simple_run("running"));
  EXPECT_TRUE(db.store.cancel(queued));
  ASSERT_EQ(db.store.claim_next("w", 0, 1, 60).value().id, running);
  EXPECT_TRUE(db.store.cancel(running));
  EXPECT_FALSE(db.store.heartbeat(running, "w"));
  EXPECT_FALSE(db.store.commit_progress({running, "w", 5, {{"loss", 5, 0, 0, 1.0}}, {}}));
  EXPECT_FALSE(db.store.finish(running, "w"));
  db.now += 10000;  // even "stale", a cancelled run stays cancelled
  EXPECT_FALSE(db.store.claim_next("w2", 0, 1, 60));
  EXPECT_EQ(db.store.get_run(running)->status, RunStatus::Cancelled);
  EXPECT_FALSE(db.store.cancel(running));  // already cancelled

  EXPECT_TRUE(db.store.requeue(queued));
  EXPECT_EQ(db.store.claim_next("w2", 0, 1, 60).value().id, queued);
  EXPECT_TRUE(db.store.finish(queued, "w2"));
  EXPECT_FALSE(db.store.cancel(queued));  // done runs cannot be cancelled
  EXPECT_FALSE(db.store.requeue(queued));
}

TEST(Queue, ReleaseHandsARunBackForImmediateResume) {
  TempDir dir;
  ClockedStore db(dir.path("runs.sqlite"));
  const std::int64_t id = db.store.enqueue_run(simple_run("stopped"));
  ASSERT_TRUE(db.store.claim_next("w", 0, 1, 60));
  EXPECT_TRUE(db.store.commit_progress({id, "w", 40, {{"loss", 40, 0, 0, 1.0}}, {}}));
  EXPECT_FALSE(db.store.release(id, "someone-else"));
  EXPECT_TRUE(db.store.release(id, "w"));
  EXPECT_FALSE(db.store.release(id, "w"));    // no longer running
  EXPECT_FALSE(db.store.heartbeat(id, "w"));  // and no longer w's
  RunRecord run = db.store.get_run(id).value();
  EXPECT_EQ(run.status, RunStatus::Queued);
  EXPECT_EQ(run.current_step, 40);
  // Claimable at once by anyone, with a fresh heartbeat (no stale wait).
  run = db.store.claim_next("w2", 0, 1, 1e9).value();
  EXPECT_EQ(run.id, id);
  EXPECT_EQ(run.worker, "w2");
  EXPECT_EQ(run.attempts, 2);
}

TEST(Queue, FailRecordsTheErrorAndRequeueRetries) {
  TempDir dir;
  ClockedStore db(dir.path("runs.sqlite"));
  const std::int64_t id = db.store.enqueue_run(simple_run("diverges"));
  ASSERT_TRUE(db.store.claim_next("w", 0, 1, 60));
  EXPECT_FALSE(db.store.fail(id, "someone-else", "nope"));
  EXPECT_TRUE(db.store.fail(id, "w", "loss became NaN at step 300"));
  RunRecord run = db.store.get_run(id).value();
  EXPECT_EQ(run.status, RunStatus::Failed);
  EXPECT_EQ(run.error_text, "loss became NaN at step 300");
  EXPECT_EQ(run.finished_at, db.now);
  EXPECT_FALSE(db.store.claim_next("w", 0, 1, 60));
  EXPECT_TRUE(db.store.requeue(id));
  run = db.store.claim_next("w", 0, 1, 60).value();
  EXPECT_EQ(run.attempts, 2);
  EXPECT_TRUE(run.error_text.empty());
  EXPECT_FALSE(run.finished_at);
}

TEST(Queue, ClaimByNameResumesTheNamedRun) {
  TempDir dir;
  ClockedStore db(dir.path("runs.sqlite"));
  db.store.enqueue_run(simple_run("other"));
  const std::int64_t id = db.store.enqueue_run(simple_run("mine"));
  try {
    db.store.claim_by_name("missing", "w", 60);
    ADD_FAILURE() << "claimed a run that does not exist";
  } catch (const DbError& error) {
    EXPECT_NE(std::string(error.what()).find("no run named 'missing'"), std::string::npos) << error.what();
  }
  ASSERT_EQ(db.store.claim_by_name("mine", "w1", 60).value().id, id);
  try {
    db.store.claim_by_name("mine", "w2", 60);
    ADD_FAILURE() << "took a run another worker is training";
  } catch (const DbError& error) {
    EXPECT_NE(std::string(error.what()).find("worker 'w1'"), std::string::npos) << error.what();
  }
  EXPECT_EQ(db.store.claim_by_name("mine", "w1", 60).value().attempts, 2);  // same worker restarting
  db.now += 61;
  EXPECT_EQ(db.store.claim_by_name("mine", "w2", 60).value().worker, "w2");
  EXPECT_TRUE(db.store.cancel(id));
  EXPECT_EQ(db.store.claim_by_name("mine", "w2", 60).value().status, RunStatus::Running);  // explicit wins
  EXPECT_TRUE(db.store.finish(id, "w2"));
  EXPECT_FALSE(db.store.claim_by_name("mine", "w2", 60));  // done: nothing to do
  EXPECT_EQ(db.store.find_run("other")->status, RunStatus::Queued);
}

// A claim may name the claiming worker's device: it lands in the config as train.device in the
// same statement; without one the config is left byte for byte.
TEST(Queue, AClaimWritesTheWorkersDeviceIntoTheConfig) {
  TempDir dir;
  ClockedStore db(dir.path("runs.sqlite"));
  NewRun run = simple_run("a");
  run.config_json = R"({"model":{"heads":8},"train":{"steps":5,"device":"auto"}})";
  db.store.enqueue_run(run);
  run.name = "b";
  db.store.enqueue_run(run);
  EXPECT_EQ(db.store.claim_next("w1", 0, 1, 60)->config_json, run.config_json);
  const auto claimed = db.store.claim_next("w2", 0, 1, 60, "cuda:1");
  ASSERT_TRUE(claimed);
  EXPECT_EQ(claimed->name, "b");
  EXPECT_EQ(claimed->config_json, R"({"model":{"heads":8},"train":{"steps":5,"device":"cuda:1"}})");
  db.now += 61;
  EXPECT_EQ(db.store.claim_by_name("a", "w3", 60, "cpu")->config_json,
            R"({"model":{"heads":8},"train":{"steps":5,"device":"cpu"}})");
}

// Worker process body for the fork test: claims until the queue is empty and
// reports "C <id>" per claimed run, or "E <message>" on any error.
int claim_until_empty(const std::string& path, const std::string& worker, int go_fd, int out_fd) {
  char byte = 0;
  while (read(go_fd, &byte, 1) > 0) {}  // start together: wait until the parent closes the pipe
  std::ostringstream report;
  int status = 0;
  try {
    Connection connection = Connection::open(path, OpenMode::ReadWrite);
    RunStore store(connection);
    while (const auto run = store.claim_next(worker, 0, 1, 600)) {
      report << "C " << run->id << "\n";
      if (!store.commit_progress({run->id, worker, 1, {{"loss", 1, 100, 0.5, 2.0}}, {}}) ||
          !store.finish(run->id, worker)) {
        report << "E lost run " << run->id << "\n";
      }
    }
  } catch (const std::exception& error) {
    report << "E " << error.what() << "\n";
    status = 1;
  }
  const std::string text = report.str();
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = write(out_fd, text.data() + written, text.size() - written);
    if (n <= 0) return 2;
    written += static_cast<std::size_t>(n);
  }
  return status;
}

TEST(Queue, ConcurrentClaimsFromTwoProcessesTakeEachRunExactlyOnce) {
  TempDir dir;
  const std::string path = dir.path("runs.sqlite");
  constexpr int kRuns = 300;
  {
    Connection connection = Connection::open(path, OpenMode::Create);
    RunStore store(connection);
    Transaction transaction(connection);
    for (int i = 0; i < kRuns; ++i) store.enqueue_run(simple_run("run" + std::to_string(i)));
    transaction.commit();
  }  // closed before fork: children must not inherit an open connection

  int go[2];
  ASSERT_EQ(pipe(go), 0);
  std::vector<int> outputs;
  std::vector<pid_t> children;
  for (int k = 0; k < 2; ++k) {
    int out[2];
    ASSERT_EQ(pipe(out), 0);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(go[1]);
      close(out[0]);
      _exit(claim_until_empty(path, "worker" + std::to_string(k), go[0], out[1]));
    }
    close(out[1]);
    outputs.push_back(out[0]);
    children.push_back(pid);
  }
  close(go[0]);
  close(go[1]);  // go!

  std::map<std::int64_t, int> claims;
  std::vector<std::string> errors;
  for (int fd : outputs) {
    std::string text;
    char buffer[4096];
    ssize_t n = 0;
    while ((n = read(fd, buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<std::size_t>(n));
    close(fd);
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
      if (line.rfind("C ", 0) == 0) {
        ++claims[std::stoll(line.substr(2))];
      } else {
        errors.push_back(line);
      }
    }
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "worker process failed";
  }
  EXPECT_TRUE(errors.empty()) << errors.front();
  EXPECT_EQ(claims.size(), static_cast<std::size_t>(kRuns));
  for (const auto& [id, count] : claims) EXPECT_EQ(count, 1) << "run " << id << " claimed " << count << " times";

  Connection connection = Connection::open(path, OpenMode::ReadOnly);
  RunStore store(connection);
  for (const RunRecord& run : store.list_runs()) {
    EXPECT_EQ(run.status, RunStatus::Done) << run.name;
    EXPECT_EQ(run.attempts, 1) << run.name;
  }
}

}  // namespace
}  // namespace headroom::db

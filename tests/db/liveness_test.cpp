// check_worker: whether a run marked running still has a worker, judged as the workers judge it
// before taking a run over (this host's by process id, another host's by heartbeat).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "experiments_db/run_liveness.h"

namespace db = headroom::db;

namespace {

std::string this_host() {
  const std::string me = db::local_worker_id();
  return me.substr(0, me.rfind(':'));
}

// The id of a process that has exited and been reaped: no process has it now (barring reuse in
// the microseconds between, which the kernel's increasing pid allocation makes unlikely).
pid_t dead_pid() {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  int status = 0;
  waitpid(child, &status, 0);
  return child;
}

}  // namespace

TEST(WorkerLiveness, LocalWorkerIdIsHostColonPid) {
  EXPECT_EQ(db::local_worker_id(), this_host() + ":" + std::to_string(getpid()));
}

TEST(WorkerLiveness, ThisHostsWorkerIsJudgedByItsProcess) {
  const double now = 1e9;
  // Alive, even with an hour-old heartbeat (a long start-up is not death).
  const auto alive = db::check_worker(db::local_worker_id(), now - 3600, now);
  EXPECT_EQ(alive.state, db::WorkerState::Alive);
  EXPECT_DOUBLE_EQ(alive.heartbeat_age, 3600);
  // Gone, even with a fresh heartbeat.
  const std::string dead = this_host() + ":" + std::to_string(dead_pid());
  const auto gone = db::check_worker(dead, now - 1, now);
  EXPECT_EQ(gone.state, db::WorkerState::Gone);
  EXPECT_STREQ(db::running_word(gone.state), "interrupted");
  const std::string problem = db::worker_problem(dead, gone, "runs.sqlite");
  EXPECT_NE(problem.find("its worker (" + dead + ") is gone"), std::string::npos) << problem;
  EXPECT_NE(problem.find("`headroom-worker serve --db runs.sqlite` resumes it"), std::string::npos) << problem;
}

TEST(WorkerLiveness, AnotherHostsWorkerIsJudgedByItsHeartbeat) {
  const double now = 1e9;
  const std::string elsewhere = "not-" + this_host() + ":1";  // pid 1 exists here: it must not count
  EXPECT_EQ(db::check_worker(elsewhere, now - 299, now).state, db::WorkerState::Alive);
  const auto silent = db::check_worker(elsewhere, now - 720, now);
  EXPECT_EQ(silent.state, db::WorkerState::Silent);
  EXPECT_STREQ(db::running_word(silent.state), "stalled");
  const std::string problem = db::worker_problem(elsewhere, silent, "runs.sqlite");
  EXPECT_NE(problem.find("no heartbeat from its worker (" + elsewhere + ") for 12 min"), std::string::npos) << problem;
  // The threshold is the caller's.
  EXPECT_EQ(db::check_worker(elsewhere, now - 20, now, 10).state, db::WorkerState::Silent);
  // No heartbeat at all: nothing to judge by, so not called dead.
  EXPECT_EQ(db::check_worker(elsewhere, std::nullopt, now).state, db::WorkerState::Alive);
}

TEST(WorkerLiveness, NamesOfAnotherFormAreJudgedByTheirHeartbeat) {
  const double now = 1e9;
  for (const std::string& name :
       std::vector<std::string>{"w1", "", this_host() + ":", this_host() + ":12x", this_host() + ":-4"}) {
    EXPECT_EQ(db::check_worker(name, now - 10, now).state, db::WorkerState::Alive) << name;
    EXPECT_EQ(db::check_worker(name, now - 1000, now).state, db::WorkerState::Silent) << name;
  }
  EXPECT_EQ(db::worker_problem("w1", db::check_worker("w1", now, now), "x"), "");
}

// A worker that died but was never reaped (its parent does not wait: PID 1 in a container) is a
// zombie, which kill(pid, 0) still finds: it counts as gone.
TEST(WorkerLiveness, AZombieWorkerIsGone) {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  // Not reaped yet: wait until the kernel shows it as a zombie.
  bool zombie = false;
  for (int i = 0; i < 500 && !zombie; ++i) {
    siginfo_t info{};
    zombie = waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == child;
    if (!zombie) usleep(2000);
  }
  ASSERT_TRUE(zombie) << "the child did not exit";
  const std::string worker = this_host() + ":" + std::to_string(child);
  EXPECT_EQ(db::check_worker(worker, 1e9, 1e9).state, db::WorkerState::Gone);
  int status = 0;
  waitpid(child, &status, 0);
}

#include "app/gui/explorer/worker_process.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

namespace headroom::explorer {
namespace {

// Bounded by a deadline, not by a count of polls (a loaded machine polls slower).
bool eventually(WorkerProcess& p, const std::function<bool()>& done, double seconds = 10) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!done() && std::chrono::steady_clock::now() < until) {
    p.poll();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  p.poll();
  return done();
}

void wait_until_exited(WorkerProcess& p) {
  eventually(p, [&] { return !p.running(); });
}

// The child says "ready" once its TERM trap is installed; a signal before that would kill it.
bool wait_until_ready(WorkerProcess& p) {
  return eventually(p, [&] { return std::find(p.lines().begin(), p.lines().end(), "ready") != p.lines().end(); });
}

TEST(WorkerProcess, PassesArgumentsVerbatimWithoutAShell) {
  WorkerProcess p;
  std::string error;
  // A shell would expand $HOME, split on the space and run the `;` command.
  ASSERT_TRUE(p.start("printf", {"%s|%s\\n", "a b; echo pwned", "$HOME"}, &error)) << error;
  wait_until_exited(p);
  ASSERT_FALSE(p.running());
  EXPECT_EQ(p.exit_code(), 0);
  ASSERT_EQ(p.lines().size(), 1u);
  EXPECT_EQ(p.lines()[0], "a b; echo pwned|$HOME");
}

TEST(WorkerProcess, CollectsStdoutAndStderrAndTheExitCode) {
  WorkerProcess p;
  std::string error;
  ASSERT_TRUE(p.start("sh", {"-c", "echo out; echo err >&2; printf 'no newline'; exit 3"}, &error)) << error;
  wait_until_exited(p);
  EXPECT_EQ(p.exit_code(), 3);
  ASSERT_EQ(p.lines().size(), 3u);
  EXPECT_EQ(p.lines()[0], "out");
  EXPECT_EQ(p.lines()[1], "err");
  EXPECT_EQ(p.lines()[2], "no newline");
}

TEST(WorkerProcess, StopSendsSigtermAndAStubbornChildIsKilled) {
  WorkerProcess polite;
  std::string error;
  ASSERT_TRUE(polite.start("sh", {"-c", "trap 'echo stopping; exit 0' TERM; echo ready; while :; do sleep 0.05; done"},
                           &error));
  ASSERT_TRUE(wait_until_ready(polite));
  EXPECT_EQ(polite.stop_and_wait(5.0), 0);
  ASSERT_FALSE(polite.lines().empty());
  EXPECT_EQ(polite.lines().back(), "stopping");

  WorkerProcess stubborn;
  ASSERT_TRUE(stubborn.start("sh", {"-c", "trap '' TERM; echo ready; while :; do sleep 0.05; done"}, &error));
  ASSERT_TRUE(wait_until_ready(stubborn));
  EXPECT_EQ(stubborn.stop_and_wait(0.3), 128 + 9);  // SIGKILL after the grace period
  EXPECT_FALSE(stubborn.running());
}

TEST(WorkerProcess, RefusesASecondStartAndReportsAMissingProgram) {
  WorkerProcess p;
  std::string error;
  ASSERT_TRUE(p.start("sleep", {"5"}, &error));
  EXPECT_FALSE(p.start("sleep", {"5"}, &error));
  EXPECT_NE(error.find("already running"), std::string::npos) << error;
  p.stop_and_wait(2.0);

  WorkerProcess missing;
  EXPECT_FALSE(missing.start("/nonexistent/headroom-worker", {}, &error));
  EXPECT_NE(error.find("/nonexistent/headroom-worker"), std::string::npos) << error;
  EXPECT_FALSE(missing.running());
}

TEST(WorkerProcess, FindsTheWorkerNextToTheGuiOrInTheBuildTree) {
  const std::string root = ::testing::TempDir() + "/find_worker_" + std::to_string(getpid());
  ASSERT_EQ(std::system(("mkdir -p " + root + "/app/gui " + root + "/app/worker").c_str()), 0);
  const std::string worker = root + "/app/worker/headroom-worker";
  std::ofstream(worker) << "#!/bin/sh\n";
  chmod(worker.c_str(), 0755);
  unsetenv("HEADROOM_WORKER");
  EXPECT_EQ(find_worker_program(root + "/app/gui/headroom"), root + "/app/gui/../worker/headroom-worker");
  EXPECT_EQ(find_worker_program(root + "/elsewhere/headroom"), "headroom-worker");
  setenv("HEADROOM_WORKER", "/opt/w", 1);
  EXPECT_EQ(find_worker_program(root + "/app/gui/headroom"), "/opt/w");
  unsetenv("HEADROOM_WORKER");
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace headroom::explorer

#include "app/gui/explorer/worker_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

extern char** environ;

namespace headroom::explorer {

WorkerProcess::~WorkerProcess() {
  if (running()) stop_and_wait(10.0);
  if (out_fd_ >= 0) close(out_fd_);
}

bool WorkerProcess::start(const std::string& program, const std::vector<std::string>& args, std::string* error) {
  poll();
  if (running()) {
    *error = "a worker is already running (pid " + std::to_string(pid_) + "); stop it first";
    return false;
  }
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    *error = std::string("cannot create a pipe for the worker's output: ") + std::strerror(errno);
    return false;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);

  std::vector<std::string> argv_text = {program};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  command_.clear();
  for (auto& a : argv_text) {
    argv.push_back(a.data());
    command_ += (command_.empty() ? "" : " ") + a;
  }
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    *error = "cannot start " + program + ": " + std::strerror(rc);
    return false;
  }
  fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  if (out_fd_ >= 0) close(out_fd_);
  out_fd_ = fds[0];
  pid_ = pid;
  exit_code_.reset();
  partial_.clear();
  lines_.clear();
  return true;
}

void WorkerProcess::take_output(const char* data, size_t size) {
  for (size_t i = 0; i < size; ++i) {
    const char c = data[i];
    if (c == '\n' || c == '\r') {  // '\r': a TTY-style progress line rewrites itself
      if (!partial_.empty()) lines_.push_back(std::move(partial_));
      partial_.clear();
      while (lines_.size() > kMaxLines) lines_.pop_front();
    } else {
      partial_ += c;
    }
  }
}

void WorkerProcess::reap(int status) {
  exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  pid_ = -1;
}

void WorkerProcess::poll() {
  if (out_fd_ >= 0) {
    char buf[4096];
    while (true) {
      const ssize_t n = read(out_fd_, buf, sizeof buf);
      if (n > 0) {
        take_output(buf, static_cast<size_t>(n));
        continue;
      }
      if (n == 0) {  // every writer closed: the child has exited (or closed its output)
        if (!partial_.empty()) lines_.push_back(std::move(partial_));
        partial_.clear();
        close(out_fd_);
        out_fd_ = -1;
      }
      break;  // n < 0: EAGAIN (nothing yet) or an error; try again next poll
    }
  }
  if (running()) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) reap(status);
  }
}

void WorkerProcess::request_stop() {
  if (running()) kill(pid_, SIGTERM);
}

std::optional<int> WorkerProcess::stop_and_wait(double seconds) {
  request_stop();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (running() && std::chrono::steady_clock::now() < deadline) {
    poll();
    if (running()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (running()) {
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
    reap(status);
  }
  poll();
  return exit_code_;
}

std::string find_worker_program(const std::string& self_exe) {
  if (const char* env = std::getenv("HEADROOM_WORKER"); env != nullptr && env[0] != '\0') return env;
  std::string self = self_exe;
  if (self.empty()) {
    char buf[4096];
    const ssize_t len = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (len > 0) self.assign(buf, static_cast<size_t>(len));
  }
  const auto slash = self.rfind('/');
  if (slash != std::string::npos) {
    const std::string dir = self.substr(0, slash);
    for (const std::string& candidate : {dir + "/headroom-worker", dir + "/../worker/headroom-worker"})
      if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "headroom-worker";
}

}  // namespace headroom::explorer

#include "core/data/subprocess.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>

extern char** environ;

namespace headroom::core {

std::string run_program(const std::vector<std::string>& argv, int* exit_code, std::string* stderr_text) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("cannot create a pipe");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  char err_path[] = "/tmp/headroom-stderr-XXXXXX";
  int err_fd = stderr_text ? mkstemp(err_path) : -1;
  if (err_fd >= 0) posix_spawn_file_actions_adddup2(&actions, err_fd, STDERR_FILENO);
  else posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, argv.at(0).c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    if (err_fd >= 0) close(err_fd), unlink(err_path);
    *exit_code = -1;
    return {};
  }
  std::string out;
  char buf[65536];
  ssize_t got;
  while ((got = read(fds[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(got));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (err_fd >= 0) {
    lseek(err_fd, 0, SEEK_SET);
    stderr_text->clear();
    while ((got = read(err_fd, buf, sizeof buf)) > 0) stderr_text->append(buf, static_cast<size_t>(got));
    close(err_fd);
    unlink(err_path);
  }
  // posix_spawnp reports a missing program as exit status 127 from the child.
  *exit_code = WIFEXITED(status) ? (WEXITSTATUS(status) == 127 ? -1 : WEXITSTATUS(status)) : -1;
  return out;
}

}  // namespace headroom::core

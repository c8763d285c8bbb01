// Runs headroom-worker as a user would and captures its exit code, stdout and stderr.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

struct CliResult {
  int exit_code = -1;
  std::string out, err;
};

CliResult run_worker(const std::vector<std::string>& args);
// Starts headroom-worker without waiting; its stdout/stderr go to the given files.
pid_t spawn_worker(const std::vector<std::string>& args, const std::string& out = "/dev/null",
                   const std::string& err = "/dev/null");
std::string temp_path(const std::string& name);
void write_text(const std::string& path, const std::string& text);

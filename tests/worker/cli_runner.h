// Runs headroom-worker as a user would and captures its exit code, stdout and stderr.
#pragma once

#include <string>
#include <vector>

struct CliResult {
  int exit_code = -1;
  std::string out, err;
};

CliResult run_worker(const std::vector<std::string>& args);
std::string temp_path(const std::string& name);
void write_text(const std::string& path, const std::string& text);

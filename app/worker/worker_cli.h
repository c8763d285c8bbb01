// The headroom-worker command line: one CLI11 app, one file per subcommand.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace headroom::worker {

// Exit codes shared by every command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;   // the work itself failed (I/O, training diverged, ...)
inline constexpr int kExitBadInput = 2;  // the user's input is wrong; nothing was changed

// A subcommand: CLI11 fills its options, then `run` does the work and returns the exit code.
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

Command register_inspect(CLI::App& root);
Command register_represent(CLI::App& root);
Command register_train(CLI::App& root);
Command register_run(CLI::App& root);
Command register_enqueue(CLI::App& root);
Command register_serve(CLI::App& root);
Command register_status(CLI::App& root);
Command register_export(CLI::App& root);
Command register_merge(CLI::App& root);

int run_worker_cli(int argc, char** argv);

}  // namespace headroom::worker

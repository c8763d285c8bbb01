// Running a helper program (Debian's `bible`, sentencepiece's `spm_train`) with fixed argv and no
// shell: nothing from a file or a DB ever reaches a command line as code.
#pragma once

#include <string>
#include <vector>

namespace headroom::core {

// Runs argv[0] (looked up in PATH) and returns its stdout. *exit_code is the program's exit
// status, or -1 when it could not be started (e.g. not installed). stderr goes to *stderr_text
// when given, else is discarded.
std::string run_program(const std::vector<std::string>& argv, int* exit_code, std::string* stderr_text = nullptr);

}  // namespace headroom::core

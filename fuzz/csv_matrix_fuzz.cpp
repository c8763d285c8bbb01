// `represent`'s CSV input (X and P): any bytes are either a finite, rectangular matrix or one
// std::invalid_argument naming the file, never a crash.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "app/worker/csv_matrix.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = "/tmp/headroom_fuzz_csv_" + std::to_string(getpid()) + ".csv";
  // One scratch file a process, gone at exit (registered after `path` exists, so it runs first).
  static const bool removed_at_exit = std::atexit([] { std::remove(path.c_str()); }) == 0;
  (void)removed_at_exit;
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  } else {
    return 0;
  }
  try {
    const Eigen::MatrixXd m = headroom::worker::read_csv_matrix(path);
    if (m.rows() == 0 || m.cols() == 0) __builtin_trap();  // an empty matrix is an error, not a result
    if (!m.allFinite()) __builtin_trap();                  // nan / inf are refused with a message
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).find(path) == std::string::npos) __builtin_trap();
  }
  return 0;
}

// Suite files (assets/suites/*.toml and the ones researchers write): any bytes are either a suite
// at each scale, or one invalid_argument naming the file, never a crash or a hang. Any other
// exception escapes and is a finding.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "app/worker/suite.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const char* scale : {"quick", "full", "paper"}) {
    try {
      const headroom::worker::Suite suite = headroom::worker::parse_suite(text, "fuzz.toml", scale);
      if (suite.runs.empty() || suite.runs.size() > headroom::worker::kMaxSuiteRuns) __builtin_trap();
      for (const auto& run : suite.runs) {
        if (run.name.empty() || !run.config.is_object()) __builtin_trap();
        (void)run.config.dump();  // what the worker stores in the DB
      }
    } catch (const std::invalid_argument& e) {
      if (std::string(e.what()).find("fuzz.toml") == std::string::npos) __builtin_trap();  // names the file
    }
  }
  return 0;
}

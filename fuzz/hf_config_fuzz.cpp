// config.json of a downloaded checkpoint (`inspect --model`, the lab's real models): any bytes are
// either a model configuration Headroom can build or one HfError naming the file, never a crash or
// undefined behaviour; an accepted configuration passes check_hf_config and comes back equal from
// the config.json Headroom writes for it (hf_config_json, what `export --hf` stores).
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/hf/hf_config.h"
#include "fuzz/fuzz_scratch.h"

namespace {

const std::string& config_path() {
  static const std::string path = headroom::fuzz::scratch_dir("hf-config") + "/config.json";
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  headroom::fuzz::write_bytes(headroom::fuzz::scratch_dir("hf-config"), "config.json", data, size);
  using headroom::core::hf::HfError;
  headroom::core::hf::HfConfig config;
  try {
    config = headroom::core::hf::read_hf_config(config_path());
  } catch (const HfError& e) {
    const std::string message = e.what();  // one line, naming the file first
    if (message.rfind(config_path() + ": ", 0) != 0 || message.find('\n') != std::string::npos) __builtin_trap();
    return 0;
  }
  headroom::core::hf::check_hf_config(config, config_path());  // accepted: must not throw
  const auto again = headroom::core::hf::parse_hf_config(headroom::core::hf::hf_config_json(config), config_path());
  if (again != config) __builtin_trap();
  return 0;
}

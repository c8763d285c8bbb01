// Run configs as a DB stores them: any text flattens (or gives an empty config) and every entry
// it reports can be looked up again.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "app/gui/explorer/flat_config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto config = headroom::explorer::FlatConfig::parse(text);
  if (!config.valid() && config.size() != 0) __builtin_trap();
  for (std::size_t i = 0; i < config.size(); ++i) {
    const std::string key(config.key_at(i));
    if (!config.has(key)) __builtin_trap();  // every key it lists, it finds
    if (config.value(key) != config.value_at(i) && i + 1 < config.size() && config.key_at(i + 1) != key)
      __builtin_trap();
  }
  (void)config.value("model.attention.heads");
  return 0;
}

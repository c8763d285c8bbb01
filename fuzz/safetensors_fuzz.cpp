// Checkpoints and P_l / P_w snapshots: any bytes decode or are refused with SafetensorsError, and
// a decoded file's tensors can be read as the dtype they say.
#include <cstddef>
#include <cstdint>

#include "core/io/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto file = headroom::core::decode_safetensors(data, size, "fuzz input");
    for (const auto& t : file.tensors) {
      try {
        (void)t.as_f32();
      } catch (const headroom::core::SafetensorsError&) {
        // another dtype: said so
      }
    }
    (void)headroom::core::encode_safetensors(file);  // what decodes, encodes
  } catch (const headroom::core::SafetensorsError&) {}
  return 0;
}

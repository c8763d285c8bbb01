// CRC-32 (the IEEE 802.3 / zlib polynomial), for telling damaged bytes from good ones: checkpoints
// carry one over their tensor data, so a flipped bit in a stored blob is caught before training
// resumes from it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace headroom::io {

// CRC-32 of `size` bytes, continuing from `crc` (0 to start): crc32(b, crc32(a)) == crc32(a + b).
// Slicing-by-8: about 1.5 GB/s on one core, so a 100 MB checkpoint costs ~70 ms.
uint32_t crc32(const void* data, size_t size, uint32_t crc = 0);

}  // namespace headroom::io

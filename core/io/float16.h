// IEEE half (F16) and bfloat16 (BF16) <-> float, bit-exact: checkpoints on the hub are mostly
// stored in one of the two, and the importer computes in float; results-only exports store
// weights and P_l / P_w snapshots in F16 (StTensor::as_f32 widens them). Widening is exact (every F16 and
// BF16 value is a float, subnormals, infinities and NaN payloads included); narrowing rounds to
// nearest, ties to even, as torch's .half() / .bfloat16() do, so a written tiny checkpoint holds
// the values torch would have stored.
#pragma once

#include <cstdint>

namespace headroom::core {

float f16_to_f32(uint16_t bits);
float bf16_to_f32(uint16_t bits);

// Overflow gives infinity, underflow a subnormal or zero; NaN stays NaN (quiet).
uint16_t f32_to_f16(float value);
uint16_t f32_to_bf16(float value);

}  // namespace headroom::core

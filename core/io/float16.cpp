#include "core/io/float16.h"

#include <cstring>

namespace headroom::core {
namespace {

uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

}  // namespace

float f16_to_f32(uint16_t bits) {
  const uint32_t sign = uint32_t(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0x1f) return float_of(sign | 0x7f800000u | (mantissa << 13));  // inf / NaN (payload kept)
  if (exponent != 0) return float_of(sign | ((exponent + 112) << 23) | (mantissa << 13));
  if (mantissa == 0) return float_of(sign);  // +-0
  // Subnormal: value = mantissa * 2^-24; normalise it into a float's implicit-one form.
  int shift = 0;
  while ((mantissa & 0x400u) == 0) {
    mantissa <<= 1;
    ++shift;
  }
  return float_of(sign | (uint32_t(113 - shift) << 23) | ((mantissa & 0x3ffu) << 13));
}

float bf16_to_f32(uint16_t bits) { return float_of(uint32_t(bits) << 16); }

uint16_t f32_to_f16(float value) {
  const uint32_t u = bits_of(value);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t abs = u & 0x7fffffffu;
  if (abs > 0x7f800000u) return sign | 0x7e00u | static_cast<uint16_t>((abs >> 13) & 0x3ffu);  // NaN, quiet
  if (abs >= 0x477ff000u) return sign | 0x7c00u;  // rounds past 65504 (or is inf): infinity
  if (abs < 0x38800000u) {
    // Below F16's smallest normal (2^-14): a subnormal, m * 2^-24, rounded to nearest even.
    if (abs < 0x33000000u) return sign;  // at most 2^-25: rounds to zero (the tie goes to even 0)
    const uint32_t exponent = abs >> 23;
    const uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - exponent;  // 14..24 bits dropped
    uint32_t result = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rest > half || (rest == half && (result & 1u))) ++result;
    return sign | static_cast<uint16_t>(result);
  }
  // Normal: rebias the exponent and round the 13 dropped bits to nearest even; a carry into the
  // exponent is the correct result (up to 0x7bff, the overflow case was handled above).
  const uint32_t rebased = abs - (112u << 23);
  uint32_t result = rebased >> 13;
  const uint32_t rest = rebased & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (result & 1u))) ++result;
  return sign | static_cast<uint16_t>(result);
}

uint16_t f32_to_bf16(float value) {
  const uint32_t u = bits_of(value);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);  // NaN, quiet
  const uint32_t rounding = 0x7fffu + ((u >> 16) & 1u);  // ties to even; overflow carries into inf
  return static_cast<uint16_t>((u + rounding) >> 16);
}

}  // namespace headroom::core

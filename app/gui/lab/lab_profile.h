// HEADROOM_LAB_PROFILE=1 (any value) in the environment: the lab prints where its time goes on
// stderr, one line per event (an engine answer's parts, a stored run's open, a model's build, the
// Theorem tab's answer). Read once per process.
#pragma once

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace headroom::gui {

inline bool lab_profiling() {
  static const bool on = std::getenv("HEADROOM_LAB_PROFILE") != nullptr;
  return on;
}

// Milliseconds from `from` to `to`.
inline double ms_between(std::chrono::steady_clock::time_point from, std::chrono::steady_clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}
inline double ms_since(std::chrono::steady_clock::time_point from) {
  return ms_between(from, std::chrono::steady_clock::now());
}

// One printf-style line on stderr when profiling; nothing otherwise.
__attribute__((format(printf, 1, 2))) inline void lab_profile(const char* format, ...) {
  if (!lab_profiling()) return;
  va_list args;
  va_start(args, format);
  std::vfprintf(stderr, format, args);
  va_end(args);
}

}  // namespace headroom::gui

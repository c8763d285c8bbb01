#include "core/train/blas_threads.h"

#include <dlfcn.h>

#include <algorithm>

namespace headroom::core {

bool set_openblas_threads(int threads) {
  using SetThreads = void (*)(int);
  auto fn = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
  if (!fn) return false;
  fn(std::max(1, threads));
  return true;
}

std::string openblas_core_name() {
  using CoreName = char* (*)();
  auto fn = reinterpret_cast<CoreName>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  const char* name = fn ? fn() : nullptr;
  return name ? std::string(name) : std::string();
}

}  // namespace headroom::core

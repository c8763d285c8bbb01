#include "core/train/blas_threads.h"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <cstdlib>

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

CpuVectorUnits cpu_vector_units() {
  CpuVectorUnits units;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  units.avx2_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  units.avx512 = units.avx2_fma && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                 __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
#endif
  return units;
}

std::string openblas_kernel_advice(const std::string& core_name, const CpuVectorUnits& cpu, bool coretype_set) {
  if (core_name.empty() || coretype_set || !cpu.avx2_fma) return "";
  // OpenBLAS's x86 kernel sets from before AVX2 (its names as openblas_get_corename gives them).
  static constexpr std::array<const char*, 19> kOlder = {
      "Katmai",      "Coppermine", "Northwood", "Prescott",   "Banias",        "Atom",      "Core2",
      "Penryn",      "Dunnington", "Nehalem",   "Opteron",    "Opteron(SSE3)", "Barcelona", "Nano",
      "Sandybridge", "Bobcat",     "Bulldozer", "Piledriver", "Steamroller"};
  const bool older = std::any_of(kOlder.begin(), kOlder.end(), [&](const char* n) { return core_name == n; });
  if (!older) return "";
  const char* suggested = cpu.avx512 ? "SkylakeX" : "Haswell";
  return "OpenBLAS runs its \"" + core_name + "\" kernels, older than this CPU's " + (cpu.avx512 ? "AVX-512" : "AVX2") +
         " (it did not recognise the model), so matrix products run several times slower than they could; "
         "OPENBLAS_CORETYPE=" +
         suggested + " in the environment selects the kernels this CPU supports";
}

std::string openblas_kernel_advice() {
  return openblas_kernel_advice(openblas_core_name(), cpu_vector_units(), std::getenv("OPENBLAS_CORETYPE") != nullptr);
}

}  // namespace headroom::core

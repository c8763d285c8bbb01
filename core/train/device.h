// Where a run trains and in which arithmetic (issue 11), as plain data: the torch-free half lives
// here so run configs, suites and the explorer can name them; device.cpp asks LibTorch.
//   device     "auto" (CUDA when this LibTorch has it and a GPU is visible, else the CPU), "cpu",
//              "cuda" (the first GPU) or "cuda:N"
//   precision  fp32    float32 throughout
//              tf32    float32 storage, matmuls in TensorFloat-32 on CUDA (Ampere and later); on
//                      the CPU there is no TF32, so it computes exactly fp32
//              bf16    autocast: matmuls and attention in bfloat16, weights, gradients and AdamW's
//                      state in float32 (the "master" copy), the loss in float32
#pragma once

#include <optional>
#include <string>

namespace headroom::core {

enum class Precision { Fp32, Tf32, Bf16 };
const char* to_string(Precision p);
std::optional<Precision> parse_precision(const std::string& name);  // "fp32", "tf32", "bf16"

// Whether `request` is spelled as a device ("auto", "cpu", "cuda", "cuda:N"); says nothing about
// this machine.
bool is_device_request(const std::string& request);
// Whether a resolved device ("cpu", "cuda:N") is a GPU.
inline bool is_cuda_device(const std::string& device) { return device.rfind("cuda", 0) == 0; }

// The device `request` names on this machine, spelled "cpu" or "cuda:N". Throws
// std::invalid_argument with one line naming what is missing and what would work: a misspelled
// request, CUDA asked of a LibTorch built without it, no GPU visible, or an index past the last GPU.
std::string resolve_device(const std::string& request);

// "LibTorch 1.13.1, CPU only" / "LibTorch 2.11.0, CUDA 13.0, 2 GPUs": for messages and benchmarks.
std::string torch_build_summary();

}  // namespace headroom::core

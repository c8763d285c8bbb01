// The half of device.h that asks LibTorch which devices this process has.
#include <torch/cuda.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <stdexcept>

#include "core/train/device.h"

namespace headroom::core {
namespace {

std::string built_without_cuda() {
  return std::string("this headroom-worker was built against LibTorch ") + TORCH_VERSION +
         " without CUDA; build it against a CUDA LibTorch (README, \"Training on a GPU\") or use --device cpu";
}

// The N of "cuda:N" (0 for "cuda"); `request` is a CUDA request.
long cuda_ordinal(const std::string& request) { return request == "cuda" ? 0 : std::stol(request.substr(5)); }

}  // namespace

std::string resolve_device(const std::string& request) {
  if (!is_device_request(request))
    throw std::invalid_argument("device \"" + request + "\" is not one of auto, cpu, cuda, cuda:N");
  if (request == "cpu") return "cpu";
  const bool has_cuda = torch::cuda::is_available();
  if (request == "auto") return has_cuda ? "cuda:0" : "cpu";
  if (!at::globalContext().hasCUDART()) throw std::invalid_argument("device " + request + ": " + built_without_cuda());
  const auto count = static_cast<long>(torch::cuda::device_count());
  if (!has_cuda || count == 0)
    throw std::invalid_argument("device " + request +
                                ": no CUDA GPU is visible to this process (check nvidia-smi and "
                                "CUDA_VISIBLE_DEVICES), or use --device cpu");
  const long index = cuda_ordinal(request);
  if (index >= count)
    throw std::invalid_argument("device " + request + ": this machine shows " + std::to_string(count) + " GPU" +
                                (count == 1 ? "" : "s") + " (cuda:0.." + "cuda:" + std::to_string(count - 1) + ")");
  return "cuda:" + std::to_string(index);
}

std::string torch_build_summary() {
  std::string s = std::string("LibTorch ") + TORCH_VERSION;
  if (!at::globalContext().hasCUDART()) return s + ", CPU only";
  const auto count = torch::cuda::device_count();
  return s + ", CUDA, " + std::to_string(count) + " GPU" + (count == 1 ? "" : "s");
}

}  // namespace headroom::core

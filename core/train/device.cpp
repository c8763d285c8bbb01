// The torch-free half of device.h (the fuzz targets and run configs link it without LibTorch).
#include "core/train/device.h"

#include <cctype>

namespace headroom::core {
namespace {

// "cuda", or "cuda:N" with N of one to three digits.
bool is_cuda_request(const std::string& request) {
  if (request == "cuda") return true;
  if (request.rfind("cuda:", 0) != 0 || request.size() == 5 || request.size() > 8) return false;
  for (size_t i = 5; i < request.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(request[i]))) return false;
  return true;
}

}  // namespace

const char* to_string(Precision p) {
  switch (p) {
    case Precision::Fp32: return "fp32";
    case Precision::Tf32: return "tf32";
    case Precision::Bf16: return "bf16";
  }
  return "?";
}

std::optional<Precision> parse_precision(const std::string& name) {
  for (auto p : {Precision::Fp32, Precision::Tf32, Precision::Bf16})
    if (name == to_string(p)) return p;
  return std::nullopt;
}

bool is_device_request(const std::string& request) {
  return request == "auto" || request == "cpu" || is_cuda_request(request);
}

}  // namespace headroom::core

// LibTorch <-> safetensors records.
#pragma once

#include <torch/torch.h>

#include <string>

#include "core/io/safetensors.h"

namespace headroom::core {

// float32 / float64 / int64 / int32 / uint8 / bool tensors; copies to CPU, contiguous.
StTensor to_st_tensor(const std::string& name, const torch::Tensor& tensor);
torch::Tensor from_st_tensor(const StTensor& tensor);

}  // namespace headroom::core

#include "core/io/tensor_bridge.h"

#include <cstring>

namespace headroom::core {
namespace {

struct DtypePair {
  torch::ScalarType torch_type;
  const char* st;
};
constexpr DtypePair kDtypes[] = {
    {torch::kFloat32, "F32"}, {torch::kFloat64, "F64"},   {torch::kInt64, "I64"},
    {torch::kInt32, "I32"},   {torch::kUInt8, "U8"},      {torch::kBool, "BOOL"},
    {torch::kHalf, "F16"},    {torch::kBFloat16, "BF16"},  // results-only exports store weights in 16 bits
};

}  // namespace

StTensor to_st_tensor(const std::string& name, const torch::Tensor& tensor) {
  auto t = tensor.detach().to(torch::kCPU).contiguous();
  for (const auto& p : kDtypes) {
    if (p.torch_type != t.scalar_type()) continue;
    StTensor out{name, p.st, t.sizes().vec(), {}};
    out.bytes.resize(t.numel() * t.element_size());
    if (!out.bytes.empty()) std::memcpy(out.bytes.data(), t.data_ptr(), out.bytes.size());
    return out;
  }
  throw SafetensorsError("tensor " + name +
                         " has a dtype Headroom does not store: " + std::string(c10::toString(t.scalar_type())));
}

torch::Tensor from_st_tensor(const StTensor& st) {
  for (const auto& p : kDtypes) {
    if (st.dtype != p.st) continue;
    auto t = torch::empty(st.shape, torch::TensorOptions().dtype(p.torch_type));
    if (!st.bytes.empty()) std::memcpy(t.data_ptr(), st.bytes.data(), st.bytes.size());
    return t;
  }
  throw SafetensorsError("tensor " + st.name + " has dtype " + st.dtype + ", which Headroom does not load");
}

}  // namespace headroom::core

// TransformerLM: token embedding (factorised d x r · r x V when r is set, VB §5.1), learned
// positions (optionally low rank, VB C.4), L pre-LN blocks with any attention kind, a final
// LayerNorm and an untied output head (VB §5.1: a tied head would make the output rank r too).
#pragma once

#include <torch/torch.h>

#include <vector>

#include "core/attention/attention_layer.h"
#include "core/model/model_spec.h"

namespace headroom::core {

// What one forward pass saw, per layer.
struct ModelTrace {
  torch::Tensor embedded;                   // [B, n, d] token + position embedding (layer 0's input)
  std::vector<torch::Tensor> attention_in;  // per layer: LN(x), the attention's input [B, n, d]
  std::vector<AttentionTrace> attention;    // per layer: J, L, W, U
};

class TransformerBlockImpl : public torch::nn::Module {
 public:
  TransformerBlockImpl(const AttentionSpec& attention, int mlp_ratio);
  torch::Tensor forward(const torch::Tensor& x, torch::Tensor* attention_in, AttentionTrace* trace);

  torch::nn::LayerNorm ln1{nullptr}, ln2{nullptr};
  AttentionLayer attn{nullptr};
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(TransformerBlock);

class TransformerLMImpl : public torch::nn::Module {
 public:
  explicit TransformerLMImpl(const ModelSpec& spec);

  // tokens: [B, n] int64 with n <= context -> logits [B, n, V]. Fills `trace` when given.
  torch::Tensor forward(const torch::Tensor& tokens, ModelTrace* trace = nullptr);

  // The effective V x d token embedding (E_low · proj when factorised): its rank is at most r.
  torch::Tensor token_embedding_matrix() const;
  // The effective n x d positional embedding (zeros with positions = none).
  torch::Tensor position_embedding_matrix() const;

  const ModelSpec& spec() const { return spec_; }
  int64_t num_parameters() const;

  torch::nn::Embedding tok{nullptr};
  torch::nn::Linear tok_proj{nullptr};  // r -> d, only when factorised
  torch::nn::Embedding pos{nullptr};    // absent with positions = none
  torch::nn::Linear pos_proj{nullptr};  // r_pos -> d, only when factorised
  torch::nn::ModuleList blocks{nullptr};
  torch::nn::LayerNorm ln_f{nullptr};
  torch::nn::Linear head{nullptr};

 private:
  ModelSpec spec_;
};
TORCH_MODULE(TransformerLM);

}  // namespace headroom::core

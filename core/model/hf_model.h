// HfModel: a Hugging Face GPT-2, BERT or Llama-style (llama, mistral) checkpoint directory as a
// runnable float32 LibTorch model (issue 16). Import only: it computes what transformers' GPT2LMHeadModel,
// BertModel and LlamaForCausalLM / MistralForCausalLM compute, for inspection, and never trains, so
// it is plain tensors rather than a TransformerLM (whose blocks, untied head and fused Q|K|V layout
// are Headroom's own). scripts/hf_reference.py is its independent float64 peer in the tests.
//
// Rank caps, for the lab's per-head logit spectra: every family's head logits are J_h = A_h B_h^T
// with A_h = scaled q_h and B_h = k_h, both n x d_k (d_k = head_dim), so rank J_h <= head_dim.
//   GPT-2, BERT: q and k carry their projection's bias, which lives inside the factors, so the cap
//     holds as is (the logits are a bilinear form of [x, 1]).
//   Llama: RoPE rotates each row of q and k by its position's angles; the rotated rows are still
//     n x d_k factors, so rank <= head_dim holds, but J_h is no longer a fixed bilinear form
//     x_i^T M x_j of the inputs: it depends on j - i (relative positions), and the factors must come
//     from the forward (as the trace gives them), not from W_q W_k^T. Grouped heads (num_kv_heads <
//     num_heads) share B: every query head of a group reads the same rotated k.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/analysis/head_analysis.h"
#include "core/hf/hf_config.h"
#include "core/model/transformer_lm.h"

namespace headroom::core {

// ModelTrace's per-layer fields, filled the way the lab reads them for Headroom's own models:
//   embedded       layer 0's input (BERT: after the embeddings' LayerNorm)
//   attention_in   the attention's input: the pre-norm output for GPT-2 (ln_1) and Llama
//                  (input_layernorm); the layer's input for post-LN BERT
//   attention      J = L: scaled per-head logits before the mask [B, h, n, n] (after RoPE);
//                  W = U: weights after the mask and softmax (masked entries exactly 0)
// plus the logits as factors for batch element 0: J[0, h] == A[h] B[h]^T, A = scaled q [h, n, d_k],
// B = k [h, n, d_k] (grouped k repeated to every query head), what factored_spectra takes.
struct HfTrace : ModelTrace {
  std::vector<LogitFactors> factors;  // per layer
};

class HfModel;

// Reads dir/config.json and the checkpoint (model.safetensors or the sharded index), checks every
// tensor the family needs (hf::resolve_names) and loads them as float32. Throws hf::HfError (one
// line naming the file and the tensor or key), also for an activation other than gelu, gelu_new,
// relu or silu, and for Llama's odd head_dim.
HfModel load_hf_model(const std::string& dir);

class HfModel {
 public:
  // ids [B, n] int64, 1 <= n <= max_positions, every id < vocab_size (std::invalid_argument naming
  // the length or the id otherwise). GPT-2 and Llama: logits [B, n, V] from lm_head.weight when the
  // file stores one (with tie_word_embeddings it is the embedding's copy), else the token embedding;
  // BERT (BertModel, no head): the last hidden state [B, n, d]. Fills `trace` when given. No autograd.
  torch::Tensor forward(const torch::Tensor& ids, HfTrace* trace = nullptr) const;
  // The last hidden state [B, n, d] (after the final norm; BERT: what forward returns), without the
  // output head: the analysis needs the trace, not the V-wide logits (a third of GPT-2 small's work).
  torch::Tensor hidden_states(const torch::Tensor& ids, HfTrace* trace = nullptr) const;

  const hf::HfConfig& config() const { return config_; }
  // resolve_names' warnings: tensors in the files that no part of the model reads.
  const std::vector<std::string>& warnings() const { return warnings_; }
  // The loaded tensors' sizes: a tied head that is not stored adds nothing (a stored copy counts
  // again); BERT's pooler, stored but never run, counts as in transformers' BertModel.
  int64_t num_parameters() const;
  // The kv head query head `head` reads: head / (num_heads / num_kv_heads); the head itself without GQA.
  int64_t kv_group(int64_t head) const;

 private:
  friend HfModel load_hf_model(const std::string& dir);
  HfModel() = default;

  const torch::Tensor& global(const std::string& role) const;
  const torch::Tensor& param(int64_t layer, const std::string& role) const;
  torch::Tensor activation(const torch::Tensor& x) const;
  // softmax(scale q k^T, masked) v for q [B, h, n, d_k] and k, v already at h heads; records the layer.
  torch::Tensor attend(const torch::Tensor& input, const torch::Tensor& q, const torch::Tensor& k,
                       const torch::Tensor& v, const torch::Tensor& visible, HfTrace* trace) const;
  torch::Tensor forward_gpt2(const torch::Tensor& ids, HfTrace* trace) const;
  torch::Tensor forward_bert(const torch::Tensor& ids, HfTrace* trace) const;
  torch::Tensor forward_llama(const torch::Tensor& ids, HfTrace* trace) const;

  hf::HfConfig config_;
  std::vector<std::string> warnings_;
  std::map<std::string, torch::Tensor> globals_;              // by role: "wte.weight", "lm_head.weight", ...
  std::vector<std::map<std::string, torch::Tensor>> layers_;  // per layer, by role: "attn.c_attn.weight", ...
};

}  // namespace headroom::core

#include "core/model/hf_model.h"

#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

#include "core/hf/hf_checkpoint.h"
#include "core/hf/hf_names.h"

namespace headroom::core {
namespace {

using hf::HfFamily;

// Refuses what forward() cannot compute, before any tensor is read.
void check_supported(const hf::HfConfig& c, const std::string& path) {
  const std::string& a = c.activation;
  if (a != "gelu" && a != "gelu_new" && a != "relu" && a != "silu") {
    const char* key = c.family == HfFamily::Gpt2 ? "activation_function" : "hidden_act";
    throw hf::HfError(path + ": " + key + " = \"" + a +
                      "\" is not supported; Headroom runs gelu, gelu_new (tanh), relu and silu");
  }
  if (c.family == HfFamily::Llama && c.head_dim % 2 != 0)
    throw hf::HfError(path + ": head_dim = " + std::to_string(c.head_dim) +
                      " is odd; rotary positions rotate pairs of dimensions");
}

// One stored tensor as float32 in its stored shape. The tensor takes over load_f32's buffer, so
// the bytes are read once and converted once, never copied again.
torch::Tensor load_tensor(const hf::HfCheckpoint& checkpoint, const std::string& name) {
  auto values = std::make_unique<std::vector<float>>(checkpoint.load_f32(name));
  std::vector<float>* owned = values.get();
  auto tensor = torch::from_blob(
      owned->data(), checkpoint.at(name).shape, [owned](void*) { delete owned; }, torch::kFloat32);
  values.release();
  return tensor;
}

// [B, n, c * hd] -> [B, c, n, hd]
torch::Tensor split_heads(const torch::Tensor& x, int64_t count, int64_t head_dim) {
  return x.reshape({x.size(0), x.size(1), count, head_dim}).transpose(1, 2);
}

// GPT-2's Conv1D stores its weight in x out: y = x W + b.
torch::Tensor conv1d(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
  return torch::matmul(x, w) + b;
}

// Which keys each query sees ([n, n], true = visible): causal, and with a sliding window only the
// last `window` of them, itself included. That is transformers' Mistral mask (masking_utils'
// sliding_window_overlay, kv_idx > q_idx - sliding_window, on top of kv_idx <= q_idx; the older
// _prepare_4d_causal_attention_mask masks tril(diagonal = -sliding_window), the same set).
torch::Tensor causal_visible(int64_t n, int64_t window) {
  const auto i = torch::arange(n).unsqueeze(1), j = torch::arange(n).unsqueeze(0);
  auto visible = j <= i;
  if (window > 0) visible = visible.logical_and(j > i - window);
  return visible;
}

torch::Tensor rms_norm(const torch::Tensor& x, const torch::Tensor& w, double eps) {
  return x * torch::rsqrt(x.pow(2).mean(-1, /*keepdim=*/true) + eps) * w;
}

// [-x2, x1] for x = [x1, x2] split in halves (transformers' rotate_half, not interleaved pairs).
torch::Tensor rotate_half(const torch::Tensor& x) {
  const int64_t half = x.size(-1) / 2;
  return torch::cat({-x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
}

}  // namespace

HfModel load_hf_model(const std::string& dir) {
  HfModel model;
  const std::string config_path = dir + "/" + hf::kConfigFileName;
  model.config_ = hf::read_hf_config(config_path);
  check_supported(model.config_, config_path);
  const hf::HfCheckpoint checkpoint = hf::open_checkpoint(dir);
  const hf::ResolvedNames names = hf::resolve_names(checkpoint, model.config_);
  model.warnings_ = names.warnings;
  for (const auto& [role, name] : names.globals) model.globals_[role] = load_tensor(checkpoint, name);
  model.layers_.resize(names.layers.size());
  for (size_t i = 0; i < names.layers.size(); ++i)
    for (const auto& [role, name] : names.layers[i]) model.layers_[i][role] = load_tensor(checkpoint, name);
  return model;
}

int64_t HfModel::num_parameters() const {
  int64_t total = 0;
  for (const auto& entry : globals_) total += entry.second.numel();
  for (const auto& layer : layers_)
    for (const auto& entry : layer) total += entry.second.numel();
  return total;
}

int64_t HfModel::kv_group(int64_t head) const {
  if (head < 0 || head >= config_.num_heads)
    throw std::invalid_argument("head " + std::to_string(head) + " is out of range: the model has " +
                                std::to_string(config_.num_heads) + " heads");
  return head / (config_.num_heads / config_.num_kv_heads);
}

const torch::Tensor& HfModel::global(const std::string& role) const { return globals_.at(role); }

const torch::Tensor& HfModel::param(int64_t layer, const std::string& role) const {
  return layers_[static_cast<size_t>(layer)].at(role);
}

torch::Tensor HfModel::activation(const torch::Tensor& x) const {
  const std::string& a = config_.activation;
  if (a == "gelu") return torch::gelu(x);
  if (a == "gelu_new") return torch::gelu(x, "tanh");
  if (a == "relu") return torch::relu(x);
  return torch::silu(x);  // check_supported admits nothing else
}

torch::Tensor HfModel::forward(const torch::Tensor& ids, HfTrace* trace) const {
  const auto hidden = hidden_states(ids, trace);
  switch (config_.family) {
    case HfFamily::Gpt2:
      return torch::linear(hidden, globals_.count("lm_head.weight") ? global("lm_head.weight") : global("wte.weight"));
    case HfFamily::Bert: return hidden;
    case HfFamily::Llama:  // resolve_names required lm_head.weight unless tie_word_embeddings
      return torch::linear(hidden,
                           globals_.count("lm_head.weight") ? global("lm_head.weight") : global("embed_tokens.weight"));
  }
  throw std::logic_error("HfModel::forward: unknown family");
}

torch::Tensor HfModel::hidden_states(const torch::Tensor& ids, HfTrace* trace) const {
  if (ids.dim() != 2 || ids.scalar_type() != torch::kLong || ids.size(0) < 1)
    throw std::invalid_argument("HfModel::forward: ids must be int64 [B, n] with B >= 1");
  const int64_t n = ids.size(1);
  if (n < 1 || n > config_.max_positions)
    throw std::invalid_argument("HfModel::forward: " + std::to_string(n) + " tokens; the model takes 1 to " +
                                std::to_string(config_.max_positions) + " positions");
  const int64_t lo = ids.min().item<int64_t>(), hi = ids.max().item<int64_t>();
  if (lo < 0 || hi >= config_.vocab_size)
    throw std::invalid_argument("HfModel::forward: token id " + std::to_string(lo < 0 ? lo : hi) +
                                " is out of range: the vocabulary has ids 0 to " +
                                std::to_string(config_.vocab_size - 1));
  torch::NoGradGuard no_grad;
  if (trace) *trace = HfTrace{};
  switch (config_.family) {
    case HfFamily::Gpt2: return forward_gpt2(ids, trace);
    case HfFamily::Bert: return forward_bert(ids, trace);
    case HfFamily::Llama: return forward_llama(ids, trace);
  }
  throw std::logic_error("HfModel::forward: unknown family");
}

torch::Tensor HfModel::attend(const torch::Tensor& input, const torch::Tensor& q, const torch::Tensor& k,
                              const torch::Tensor& v, const torch::Tensor& visible, HfTrace* trace) const {
  const auto scaled_q = q * (1.0 / std::sqrt(static_cast<double>(config_.head_dim)));
  const auto logits = torch::matmul(scaled_q, k.transpose(-2, -1));
  const auto masked =
      visible.defined() ? logits.masked_fill(visible.logical_not(), -std::numeric_limits<float>::infinity()) : logits;
  const auto weights = torch::softmax(masked, -1);
  if (trace) {  // nothing below writes into these tensors in place, so the trace keeps them as they are
    trace->attention_in.push_back(input);
    trace->attention.push_back({logits, logits, weights, weights});
    trace->factors.push_back({scaled_q[0].contiguous(), k[0].contiguous()});
  }
  const auto context = torch::matmul(weights, v);  // [B, h, n, hd]
  return context.transpose(1, 2).reshape({q.size(0), q.size(2), q.size(1) * q.size(3)});
}

// GPT2LMHeadModel: wte + wpe, pre-LN blocks (ln_1, attention, ln_2, MLP), ln_f, tied or stored head.
torch::Tensor HfModel::forward_gpt2(const torch::Tensor& ids, HfTrace* trace) const {
  const int64_t n = ids.size(1), d = config_.hidden_size, h = config_.num_heads, hd = config_.head_dim;
  const double eps = config_.layer_norm_eps;
  auto x = torch::embedding(global("wte.weight"), ids) + global("wpe.weight").narrow(0, 0, n);
  if (trace) trace->embedded = x;
  const auto visible = causal_visible(n, 0);
  for (int64_t i = 0; i < config_.num_layers; ++i) {
    const auto a = torch::layer_norm(x, {d}, param(i, "ln_1.weight"), param(i, "ln_1.bias"), eps);
    const auto qkv = conv1d(a, param(i, "attn.c_attn.weight"), param(i, "attn.c_attn.bias")).split(d, -1);
    const auto context =
        attend(a, split_heads(qkv[0], h, hd), split_heads(qkv[1], h, hd), split_heads(qkv[2], h, hd), visible, trace);
    x = x + conv1d(context, param(i, "attn.c_proj.weight"), param(i, "attn.c_proj.bias"));
    const auto m = torch::layer_norm(x, {d}, param(i, "ln_2.weight"), param(i, "ln_2.bias"), eps);
    const auto inner = activation(conv1d(m, param(i, "mlp.c_fc.weight"), param(i, "mlp.c_fc.bias")));
    x = x + conv1d(inner, param(i, "mlp.c_proj.weight"), param(i, "mlp.c_proj.bias"));
  }
  return torch::layer_norm(x, {d}, global("ln_f.weight"), global("ln_f.bias"), eps);
}

// BertModel's last hidden state: word + position + token type 0 embeddings and their LayerNorm,
// then post-LN layers (attention, residual, LayerNorm; MLP, residual, LayerNorm), no mask.
torch::Tensor HfModel::forward_bert(const torch::Tensor& ids, HfTrace* trace) const {
  const int64_t n = ids.size(1), d = config_.hidden_size, h = config_.num_heads, hd = config_.head_dim;
  const double eps = config_.layer_norm_eps;
  auto x = torch::embedding(global("embeddings.word_embeddings.weight"), ids) +
           global("embeddings.position_embeddings.weight").narrow(0, 0, n) +
           global("embeddings.token_type_embeddings.weight")[0];
  x = torch::layer_norm(x, {d}, global("embeddings.LayerNorm.weight"), global("embeddings.LayerNorm.bias"), eps);
  if (trace) trace->embedded = x;
  for (int64_t i = 0; i < config_.num_layers; ++i) {
    auto dense = [&](const torch::Tensor& in, const std::string& base) {
      return torch::linear(in, param(i, base + ".weight"), param(i, base + ".bias"));
    };
    auto norm = [&](const torch::Tensor& in, const std::string& base) {
      return torch::layer_norm(in, {d}, param(i, base + ".weight"), param(i, base + ".bias"), eps);
    };
    const auto context = attend(x, split_heads(dense(x, "attention.self.query"), h, hd),
                                split_heads(dense(x, "attention.self.key"), h, hd),
                                split_heads(dense(x, "attention.self.value"), h, hd), torch::Tensor(), trace);
    const auto attended = norm(dense(context, "attention.output.dense") + x, "attention.output.LayerNorm");
    x = norm(dense(activation(dense(attended, "intermediate.dense")), "output.dense") + attended, "output.LayerNorm");
  }
  return x;
}

// LlamaForCausalLM / MistralForCausalLM: RMSNorm pre-norm blocks, RoPE on q and k, grouped k/v heads,
// SwiGLU MLP, final RMSNorm, stored or tied head.
torch::Tensor HfModel::forward_llama(const torch::Tensor& ids, HfTrace* trace) const {
  const int64_t batch = ids.size(0), n = ids.size(1), h = config_.num_heads, kv = config_.num_kv_heads;
  const int64_t hd = config_.head_dim, group = h / kv;
  const double eps = config_.layer_norm_eps;
  // The angles as transformers computes them, in float32: inv_freq = 1 / theta^(arange(0, hd, 2) / hd),
  // angle(p, c) = p * inv_freq[c mod hd/2] (the two halves share frequencies).
  const auto inv_freq =
      1.0 / torch::pow(config_.rope_theta, torch::arange(0, hd, 2, torch::kLong).to(torch::kFloat32) / double(hd));
  const auto freqs = torch::outer(torch::arange(n, torch::kFloat32), inv_freq);
  const auto angles = torch::cat({freqs, freqs}, -1);  // [n, hd]
  const auto cos = angles.cos(), sin = angles.sin();
  auto rope = [&](const torch::Tensor& t) { return t * cos + rotate_half(t) * sin; };
  // repeat_kv's order: query head j reads kv head j / group.
  auto repeat_kv = [&](const torch::Tensor& t) {
    return group == 1 ? t : t.unsqueeze(2).expand({batch, kv, group, n, hd}).reshape({batch, h, n, hd});
  };
  const auto visible = causal_visible(n, config_.sliding_window);
  auto x = torch::embedding(global("embed_tokens.weight"), ids);
  if (trace) trace->embedded = x;
  for (int64_t i = 0; i < config_.num_layers; ++i) {
    const auto a = rms_norm(x, param(i, "input_layernorm.weight"), eps);
    const auto q = rope(split_heads(torch::linear(a, param(i, "self_attn.q_proj.weight")), h, hd));
    const auto k = rope(split_heads(torch::linear(a, param(i, "self_attn.k_proj.weight")), kv, hd));
    const auto v = split_heads(torch::linear(a, param(i, "self_attn.v_proj.weight")), kv, hd);
    const auto context = attend(a, q, repeat_kv(k), repeat_kv(v), visible, trace);
    x = x + torch::linear(context, param(i, "self_attn.o_proj.weight"));
    const auto m = rms_norm(x, param(i, "post_attention_layernorm.weight"), eps);
    const auto gated = activation(torch::linear(m, param(i, "mlp.gate_proj.weight"))) *
                       torch::linear(m, param(i, "mlp.up_proj.weight"));
    x = x + torch::linear(gated, param(i, "mlp.down_proj.weight"));
  }
  return rms_norm(x, global("norm.weight"), eps);
}

}  // namespace headroom::core

#include "core/model/transformer_lm.h"

#include <stdexcept>

#include "core/model/parallel_matmul.h"

namespace headroom::core {

TransformerBlockImpl::TransformerBlockImpl(const AttentionSpec& attention, int mlp_ratio) {
  const int64_t d = attention.d_model;
  ln1 = register_module("ln1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
  attn = register_module("attn", AttentionLayer(attention));
  ln2 = register_module("ln2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
  if (mlp_ratio > 0) {
    fc1 = register_module("fc1", torch::nn::Linear(d, d * mlp_ratio));
    fc2 = register_module("fc2", torch::nn::Linear(d * mlp_ratio, d));
  }
}

torch::Tensor TransformerBlockImpl::forward(const torch::Tensor& x, torch::Tensor* attention_in,
                                            AttentionTrace* trace) {
  // Pre-LN (VB §5.1 trains pre-LN models): x + Attn(LN(x)), then x + MLP(LN(x)).
  auto a_in = ln1(x);
  if (attention_in) *attention_in = a_in.detach().clone();
  auto h = x + attn(a_in, trace);
  if (fc1) h = h + parallel_linear(torch::gelu(parallel_linear(ln2(h), fc1)), fc2);
  return h;
}

TransformerLMImpl::TransformerLMImpl(const ModelSpec& spec) : spec_(spec) {
  require_valid(spec_);
  const int64_t V = spec.vocab, d = spec.width, n = spec.context;
  if (spec.embed_rank > 0) {
    tok = register_module("tok", torch::nn::Embedding(V, spec.embed_rank));
    tok_proj = register_module("tok_proj", torch::nn::Linear(torch::nn::LinearOptions(spec.embed_rank, d).bias(false)));
  } else {
    tok = register_module("tok", torch::nn::Embedding(V, d));
  }
  if (spec.positions == Positions::None) {
    // No positional embedding: position reaches the model only through the causal mask.
  } else if (spec.pos_rank > 0) {
    pos = register_module("pos", torch::nn::Embedding(n, spec.pos_rank));
    pos_proj = register_module("pos_proj", torch::nn::Linear(torch::nn::LinearOptions(spec.pos_rank, d).bias(false)));
  } else {
    pos = register_module("pos", torch::nn::Embedding(n, d));
  }
  {
    torch::NoGradGuard g;
    // Small embeddings, as GPT-2 does; LayerNorm rescales them before attention anyway.
    tok->weight.normal_(0.0, 0.02);
    if (pos) pos->weight.normal_(0.0, 0.02 * spec.pos_init_scale);
    if (tok_proj) tok_proj->weight.normal_(0.0, 1.0 / std::sqrt(double(spec.embed_rank)));
    if (pos_proj) pos_proj->weight.normal_(0.0, 1.0 / std::sqrt(double(spec.pos_rank)));
    // Drawn first and then zeroed, so the rest of the model starts exactly as pos_init = random's
    // does for the same seed: the two differ only in where P starts.
    if (pos && spec.pos_init == PosInit::Zero) pos->weight.zero_();
  }
  blocks = register_module("blocks", torch::nn::ModuleList());
  for (int i = 0; i < spec.depth; ++i) blocks->push_back(TransformerBlock(spec.attention, spec.mlp_ratio));
  ln_f = register_module("ln_f", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
  head = register_module("head", torch::nn::Linear(d, V));
}

torch::Tensor TransformerLMImpl::token_embedding_matrix() const {
  return tok_proj ? torch::matmul(tok->weight, tok_proj->weight.t()) : tok->weight;
}

torch::Tensor TransformerLMImpl::position_embedding_matrix() const {
  if (!pos) return torch::zeros({spec_.context, spec_.width}, tok->weight.options());
  return pos_proj ? torch::matmul(pos->weight, pos_proj->weight.t()) : pos->weight;
}

torch::Tensor TransformerLMImpl::forward(const torch::Tensor& tokens, ModelTrace* trace) {
  TORCH_CHECK(tokens.dim() == 2, "tokens must be [B, n], got ", tokens.sizes());
  const int64_t n = tokens.size(1);
  TORCH_CHECK(n >= 1 && n <= spec_.context, "sequence length ", n, " exceeds the model's context ", spec_.context);
  auto x = tok(tokens);
  if (tok_proj) x = tok_proj(x);
  if (pos) {
    auto positions = torch::arange(n, torch::TensorOptions().dtype(torch::kLong).device(tokens.device()));
    auto p = pos(positions);
    if (pos_proj) p = pos_proj(p);
    x = x + p.unsqueeze(0);
  }
  if (trace) {
    trace->embedded = x.detach().clone();
    trace->attention_in.assign(blocks->size(), {});
    trace->attention.assign(blocks->size(), {});
  }
  for (size_t i = 0; i < blocks->size(); ++i) {
    auto block = blocks[i]->as<TransformerBlockImpl>();
    x = block->forward(x, trace ? &trace->attention_in[i] : nullptr, trace ? &trace->attention[i] : nullptr);
  }
  return parallel_linear(ln_f(x), head);
}

int64_t TransformerLMImpl::num_parameters() const {
  int64_t total = 0;
  for (const auto& p : parameters()) total += p.numel();
  return total;
}

}  // namespace headroom::core

#include "core/hf/hf_names.h"

#include <set>

namespace headroom::core::hf {
namespace {

using Shape = std::vector<int64_t>;

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string layer_base(HfFamily family, int64_t layer) {
  const std::string i = std::to_string(layer);
  return family == HfFamily::Gpt2   ? "h." + i + "."
         : family == HfFamily::Bert ? "encoder.layer." + i + "."
                                    : "layers." + i + ".";
}

// Appends one expected tensor; `layer` -1 for tensors outside the layers.
struct TableBuilder {
  const HfConfig& config;
  std::vector<ExpectedTensor> out;
  int64_t layer = -1;

  void add(const std::string& role, Shape shape, const std::string& what, bool optional = false, bool prefixed = true) {
    ExpectedTensor e;
    const std::string family = family_name(config.family);
    e.role = role;
    e.layer = layer;
    e.shape = std::move(shape);
    e.optional = optional;
    e.prefixed = prefixed;
    e.what = layer < 0 ? family + "'s " + what : family + ", layer " + std::to_string(layer) + "'s " + what;
    e.name = !prefixed
                 ? role
                 : name_prefixes(config.family).front() + (layer < 0 ? "" : layer_base(config.family, layer)) + role;
    out.push_back(std::move(e));
  }
  void add_norm(const std::string& base, const std::string& what) {
    add(base + ".weight", {config.hidden_size}, what + " scale");
    add(base + ".bias", {config.hidden_size}, what + " shift");
  }
  void add_linear(const std::string& base, int64_t out_features, int64_t in_features, const std::string& what) {
    add(base + ".weight", {out_features, in_features}, what);  // nn.Linear: out x in
    add(base + ".bias", {out_features}, what + " bias");
  }
};

void gpt2_tensors(TableBuilder& t) {
  const int64_t d = t.config.hidden_size, inner = t.config.intermediate_size;
  t.add("wte.weight", {t.config.vocab_size, d}, "token embedding");
  t.add("wpe.weight", {t.config.max_positions, d}, "position embedding");
  for (t.layer = 0; t.layer < t.config.num_layers; ++t.layer) {
    t.add_norm("ln_1", "layer norm before attention");
    // Conv1D stores in x out, the transpose of nn.Linear.
    t.add("attn.c_attn.weight", {d, 3 * d}, "fused q/k/v projection");
    t.add("attn.c_attn.bias", {3 * d}, "fused q/k/v bias");
    t.add("attn.c_proj.weight", {d, d}, "attention output projection");
    t.add("attn.c_proj.bias", {d}, "attention output bias");
    t.add_norm("ln_2", "layer norm before the MLP");
    t.add("mlp.c_fc.weight", {d, inner}, "MLP input projection");
    t.add("mlp.c_fc.bias", {inner}, "MLP input bias");
    t.add("mlp.c_proj.weight", {inner, d}, "MLP output projection");
    t.add("mlp.c_proj.bias", {d}, "MLP output bias");
  }
  t.layer = -1;
  t.add_norm("ln_f", "final layer norm");
  t.add("lm_head.weight", {t.config.vocab_size, d}, "output head", t.config.tie_word_embeddings, false);
}

void bert_tensors(TableBuilder& t) {
  const int64_t d = t.config.hidden_size, inner = t.config.intermediate_size;
  t.add("embeddings.word_embeddings.weight", {t.config.vocab_size, d}, "token embedding");
  t.add("embeddings.position_embeddings.weight", {t.config.max_positions, d}, "position embedding");
  t.add("embeddings.token_type_embeddings.weight", {t.config.type_vocab_size, d}, "token type embedding");
  t.add_norm("embeddings.LayerNorm", "embedding layer norm");
  for (t.layer = 0; t.layer < t.config.num_layers; ++t.layer) {
    t.add_linear("attention.self.query", d, d, "query projection");
    t.add_linear("attention.self.key", d, d, "key projection");
    t.add_linear("attention.self.value", d, d, "value projection");
    t.add_linear("attention.output.dense", d, d, "attention output projection");
    t.add_norm("attention.output.LayerNorm", "layer norm after attention");
    t.add_linear("intermediate.dense", inner, d, "MLP input projection");
    t.add_linear("output.dense", d, inner, "MLP output projection");
    t.add_norm("output.LayerNorm", "layer norm after the MLP");
  }
  t.layer = -1;
  t.add("pooler.dense.weight", {d, d}, "pooler", true);
  t.add("pooler.dense.bias", {d}, "pooler bias", true);
}

void llama_tensors(TableBuilder& t) {
  const HfConfig& c = t.config;
  const int64_t d = c.hidden_size, q = c.num_heads * c.head_dim, kv = c.num_kv_heads * c.head_dim;
  t.add("embed_tokens.weight", {c.vocab_size, d}, "token embedding");
  for (t.layer = 0; t.layer < c.num_layers; ++t.layer) {
    t.add("input_layernorm.weight", {d}, "RMS norm before attention");
    t.add("self_attn.q_proj.weight", {q, d}, "query projection");
    t.add("self_attn.k_proj.weight", {kv, d}, "key projection");
    t.add("self_attn.v_proj.weight", {kv, d}, "value projection");
    t.add("self_attn.o_proj.weight", {d, q}, "attention output projection");
    t.add("post_attention_layernorm.weight", {d}, "RMS norm before the MLP");
    t.add("mlp.gate_proj.weight", {c.intermediate_size, d}, "MLP gate projection");
    t.add("mlp.up_proj.weight", {c.intermediate_size, d}, "MLP up projection");
    t.add("mlp.down_proj.weight", {d, c.intermediate_size}, "MLP down projection");
  }
  t.layer = -1;
  t.add("norm.weight", {d}, "final RMS norm");
  t.add("lm_head.weight", {c.vocab_size, d}, "output head", c.tie_word_embeddings, false);
}

// Buffers transformers saves beside the weights in some versions; nothing reads them.
bool is_known_buffer(HfFamily family, const std::string& name) {
  switch (family) {
    case HfFamily::Gpt2: return ends_with(name, ".attn.bias") || ends_with(name, ".attn.masked_bias");
    case HfFamily::Bert: return ends_with(name, "embeddings.position_ids");
    case HfFamily::Llama: return ends_with(name, ".rotary_emb.inv_freq");
  }
  return false;
}

// The name `e` is stored under with `prefix`: the usual prefix swapped for it.
std::string with_prefix(const ExpectedTensor& e, HfFamily family, const std::string& prefix) {
  if (!e.prefixed) return e.name;
  return prefix + e.name.substr(name_prefixes(family).front().size());
}

// The stored name, accepting BERT's old LayerNorm.gamma / .beta; "" when absent.
std::string lookup(const HfCheckpoint& ckpt, const std::string& name, HfFamily family) {
  if (ckpt.find(name)) return name;
  if (family != HfFamily::Bert) return "";
  for (const auto& [now, old] : {std::pair<std::string, std::string>{"LayerNorm.weight", "LayerNorm.gamma"},
                                 {"LayerNorm.bias", "LayerNorm.beta"}}) {
    if (!ends_with(name, now)) continue;
    const std::string legacy = name.substr(0, name.size() - now.size()) + old;
    if (ckpt.find(legacy)) return legacy;
  }
  return "";
}

// The prefix under which most of the required tensors are found (the usual one on a tie).
std::string detect_prefix(const HfCheckpoint& ckpt, const HfConfig& config, const std::vector<ExpectedTensor>& all) {
  std::string best;
  int best_count = -1;
  for (const auto& prefix : name_prefixes(config.family)) {
    int count = 0;
    for (const auto& e : all)
      if (e.prefixed && !e.optional && !lookup(ckpt, with_prefix(e, config.family, prefix), config.family).empty())
        ++count;
    if (count > best_count) best = prefix, best_count = count;
  }
  return best;
}

void check_found(const HfTensorInfo& t, const ExpectedTensor& e) {
  if (t.shape != e.shape) {
    const bool transposed =
        t.shape.size() == 2 && e.shape.size() == 2 && t.shape[0] == e.shape[1] && t.shape[1] == e.shape[0];
    throw HfError(t.file + ": tensor " + t.name + " has shape " + shape_text(t.shape) + ", expected " +
                  shape_text(e.shape) + " (" + e.what + ", from config.json's sizes)" +
                  (transposed ? "; it holds the transpose (GPT-2's Conv1D stores in x out, nn.Linear out x in)" : ""));
  }
  if (!is_float_dtype(t.dtype))
    throw HfError(t.file + ": tensor " + t.name + " is " + t.dtype + " (" + e.what +
                  "); Headroom converts F32, F16, BF16 and F64 tensors to float");
}

// Validates and returns, per expected tensor, its stored name ("" for an absent optional one).
std::vector<std::string> resolve_all(const HfCheckpoint& ckpt, const HfConfig& config,
                                     const std::vector<ExpectedTensor>& all, const std::string& prefix) {
  std::vector<std::string> stored;
  for (const auto& e : all) {
    const std::string want = with_prefix(e, config.family, prefix);
    stored.push_back(lookup(ckpt, want, config.family));
    if (!stored.back().empty()) {
      check_found(ckpt.at(stored.back()), e);
    } else if (!e.optional) {
      throw HfError(ckpt.source() + ": missing tensor " + want + " " + shape_text(e.shape) + " (" + e.what + ")");
    }
  }
  return stored;
}

std::vector<std::string> unexpected_tensors(const HfCheckpoint& ckpt, const HfConfig& config,
                                            const std::vector<std::string>& stored) {
  const std::set<std::string> used(stored.begin(), stored.end());
  std::vector<std::string> warnings;
  for (const auto& t : ckpt.tensors())
    if (!used.count(t.name) && !is_known_buffer(config.family, t.name))
      warnings.push_back(t.file + ": unexpected tensor " + t.name + " " + shape_text(t.shape) + " (not read by a " +
                         family_name(config.family) + " model; ignored)");
  return warnings;
}

}  // namespace

std::vector<std::string> name_prefixes(HfFamily family) {
  switch (family) {
    case HfFamily::Gpt2: return {"", "transformer."};
    case HfFamily::Bert: return {"", "bert."};
    case HfFamily::Llama: return {"model.", ""};
  }
  return {""};
}

std::vector<ExpectedTensor> expected_tensors(const HfConfig& config) {
  TableBuilder t{config, {}};
  if (config.family == HfFamily::Gpt2) gpt2_tensors(t);
  if (config.family == HfFamily::Bert) bert_tensors(t);
  if (config.family == HfFamily::Llama) llama_tensors(t);
  return std::move(t.out);
}

std::vector<std::string> validate_checkpoint(const HfCheckpoint& ckpt, const HfConfig& config) {
  const auto all = expected_tensors(config);
  return unexpected_tensors(ckpt, config, resolve_all(ckpt, config, all, detect_prefix(ckpt, config, all)));
}

const std::string& ResolvedNames::global(const std::string& role) const {
  auto it = globals.find(role);
  if (it == globals.end())
    throw HfError("the checkpoint has no tensor for role " + role + " (prefix '" + prefix + "')");
  return it->second;
}

const std::string& ResolvedNames::layer(int64_t index, const std::string& role) const {
  if (index < 0 || index >= static_cast<int64_t>(layers.size()))
    throw HfError("layer " + std::to_string(index) + " is out of range: the checkpoint has " +
                  std::to_string(layers.size()) + " layers");
  auto it = layers[index].find(role);
  if (it == layers[index].end())
    throw HfError("the checkpoint has no tensor for role " + role + " in layer " + std::to_string(index));
  return it->second;
}

ResolvedNames resolve_names(const HfCheckpoint& ckpt, const HfConfig& config) {
  const auto all = expected_tensors(config);
  ResolvedNames names;
  names.family = config.family;
  names.prefix = detect_prefix(ckpt, config, all);
  const auto stored = resolve_all(ckpt, config, all, names.prefix);
  names.warnings = unexpected_tensors(ckpt, config, stored);
  names.layers.resize(static_cast<size_t>(config.num_layers));
  for (size_t i = 0; i < all.size(); ++i) {
    if (stored[i].empty()) continue;
    auto& map = all[i].layer < 0 ? names.globals : names.layers[static_cast<size_t>(all[i].layer)];
    map[all[i].role] = stored[i];
  }
  return names;
}

}  // namespace headroom::core::hf

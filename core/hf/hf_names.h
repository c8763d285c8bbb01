// The tensors a GPT-2, BERT or Llama-style checkpoint must hold, with transformers' names and
// shapes (modeling_gpt2.py, modeling_bert.py, modeling_llama.py), and the names a given checkpoint
// actually stores them under. Checkpoints differ in prefix by the class that saved them:
//   GPT-2: "wte.weight" (GPT2Model, the hub's gpt2) or "transformer.wte.weight" (GPT2LMHeadModel);
//   BERT:  "embeddings..." (BertModel) or "bert.embeddings..." (BertForMaskedLM / ForPreTraining),
//          and old files spell LayerNorm.weight / .bias as LayerNorm.gamma / .beta;
//   Llama: "model.embed_tokens.weight" (LlamaForCausalLM) or "embed_tokens.weight" (LlamaModel).
// The output head (GPT-2's and Llama's lm_head.weight) is never prefixed.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/hf/hf_checkpoint.h"
#include "core/hf/hf_config.h"

namespace headroom::core::hf {

struct ExpectedTensor {
  // HF's name in the family's usual form: GPT-2 and BERT without a prefix ("h.3.attn.c_attn.weight"),
  // Llama with "model." ("model.layers.3.self_attn.q_proj.weight"); lm_head.weight as is.
  std::string name;
  std::vector<int64_t> shape;  // as stored: GPT-2's Conv1D is in x out, nn.Linear out x in
  std::string what;            // "GPT-2, layer 3's fused q/k/v projection"
  std::string role;            // the name inside its layer ("attn.c_attn.weight") or without prefix
  int64_t layer = -1;          // -1: outside the layers
  bool optional = false;       // a tied lm_head.weight, BERT's pooler
  bool prefixed = true;        // false: outside the base model (lm_head.weight)
};

// In model order: embeddings, layer 0 .. L-1, final norm, head.
std::vector<ExpectedTensor> expected_tensors(const HfConfig& config);

// Checks `checkpoint` holds every tensor `config` needs, in its shape and a float dtype. Throws
// HfError with the FIRST problem in model order, one line naming the file and tensor:
//   ".../model.safetensors: missing tensor h.3.attn.c_attn.weight [768, 2304] (GPT-2, layer 3's
//    fused q/k/v projection)".
// Returns the tensors no part of the model reads, one warning each ("unexpected tensor ..."); the
// buffers transformers saves beside the weights (GPT-2's attn.bias / attn.masked_bias, BERT's
// embeddings.position_ids, Llama's rotary_emb.inv_freq) are skipped silently.
std::vector<std::string> validate_checkpoint(const HfCheckpoint& checkpoint, const HfConfig& config);

// The stored name of every tensor the model reads, by role (the name without prefix and layer),
// for the importer: names.layer(3, "attn.c_attn.weight") -> "transformer.h.3.attn.c_attn.weight".
struct ResolvedNames {
  HfFamily family = HfFamily::Gpt2;
  std::string prefix;                                      // "", "transformer.", "bert." or "model."
  std::map<std::string, std::string> globals;              // "wte.weight", "lm_head.weight", ...
  std::vector<std::map<std::string, std::string>> layers;  // per layer: "attn.c_attn.weight", ...
  std::vector<std::string> warnings;                       // validate_checkpoint's

  bool has(const std::string& role) const { return globals.count(role) != 0; }  // optional ones
  const std::string& global(const std::string& role) const;                     // HfError naming the role
  const std::string& layer(int64_t index, const std::string& role) const;       // HfError naming the role
};

// Validates (as validate_checkpoint, throwing its error) and resolves every name. Optional tensors
// the checkpoint lacks (a tied lm_head.weight, BERT's pooler) are absent from the maps.
ResolvedNames resolve_names(const HfCheckpoint& checkpoint, const HfConfig& config);

// The prefixes checkpoints of `family` use, the usual one first.
std::vector<std::string> name_prefixes(HfFamily family);

}  // namespace headroom::core::hf

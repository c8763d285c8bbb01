// Writes tiny Hugging Face checkpoints with transformers' exact names, shapes and layouts and
// values drawn from a seed: the tests of this library and the importer's end-to-end tests build
// their models from these, in every dtype, sharding and prefix a real checkpoint comes in.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/hf/hf_config.h"
#include "core/hf/hf_names.h"

namespace headroom::core::hf {

struct WriteOptions {
  std::string dtype = "F32";  // "F32", "F16" or "BF16": every tensor of the model in it
  // 1: model.safetensors. N > 1: model.safetensors.index.json and model-0000i-of-0000N.safetensors,
  // the tensors in model order split into N runs of nearly equal count (N <= the tensor count).
  int shards = 1;
  // The family's other prefix (name_prefixes(family)[1]): GPT-2 "transformer.", BERT "bert.", and
  // for Llama none instead of "model.".
  bool alternate_prefix = false;
  bool write_tied_head = false;          // lm_head.weight even when tied (a copy of the embedding)
  bool legacy_layer_norm_names = false;  // BERT: LayerNorm.gamma / .beta, as old checkpoints
  // The buffers some transformers versions save: GPT-2's attn.bias (causal mask) and
  // attn.masked_bias, BERT's embeddings.position_ids (I64), Llama's rotary_emb.inv_freq (F32).
  bool buffers = false;
};

// The values write_tiny_checkpoint stores for `tensor` (an expected_tensors entry), as load_f32
// returns them (rounded to `dtype`). The same for every prefix and sharding: they depend on the
// seed and the tensor's name without prefix. Norm scales are near 1, everything else small.
std::vector<float> tiny_tensor_values(const ExpectedTensor& tensor, const HfConfig& config, uint64_t seed,
                                      const std::string& dtype);

// Creates `dir` (and parents) if needed and writes config.json (hf_config_json) and the tensors.
// Throws HfError on bad options and core::SafetensorsError / HfError when a file cannot be written.
void write_tiny_checkpoint(const std::string& dir, const HfConfig& config, uint64_t seed,
                           const WriteOptions& options = {});

}  // namespace headroom::core::hf

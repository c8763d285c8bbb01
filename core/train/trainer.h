// Trainer: one run of a TransformerLM on a DataSource with AdamW. Steps are deterministic for a
// seed and thread count; the whole state (model, optimiser, step) round-trips through a
// safetensors checkpoint, so a resumed run continues exactly where the checkpoint was taken --
// on the same device or another (checkpoints are stored from the CPU and load onto any device).
// The TrainSpec says where (device, resolved once here) and in which arithmetic (precision,
// device.h): bf16 runs the forward and loss under autocast; weights, gradients and AdamW's moments
// stay float32.
#pragma once

#include <torch/torch.h>

#include <memory>
#include <vector>

#include "core/data/data_source.h"
#include "core/io/safetensors.h"
#include "core/model/transformer_lm.h"
#include "core/train/train_spec.h"

namespace headroom::core {

struct StepMetrics {
  int64_t step = 0;  // the step just taken (1-based: after the first step, 1)
  double train_loss = 0;
  double lr = 0;
  double grad_norm = 0;  // before clipping
  double seconds = 0;    // wall time of this step
  int64_t tokens = 0;    // tokens seen so far
};

class Trainer {
 public:
  // Builds the model from the seed, on the spec's device. Throws std::invalid_argument for invalid
  // specs, a device this process does not have (resolve_device), or when the data's vocabulary
  // exceeds the model's.
  Trainer(const ModelSpec& model, const TrainSpec& train, std::shared_ptr<const DataSource> data);

  StepMetrics step();  // one optimiser step
  double evaluate();   // mean validation loss over the fixed validation batches
  bool finished() const { return step_ >= train_.steps; }
  int64_t current_step() const { return step_; }
  int64_t tokens_per_step() const;
  int seq_len() const;

  // Checkpoint: "model.<param>", "adam.m.<param>", "adam.v.<param>" and metadata (step, specs).
  StFile save_state() const;
  // Restores a checkpoint of the same specs; throws SafetensorsError / std::invalid_argument
  // naming what does not match.
  void load_state(const StFile& state);

  TransformerLM& model() { return model_; }
  const ModelSpec& model_spec() const { return model_spec_; }
  const TrainSpec& train_spec() const { return train_; }
  const DataSource& data() const { return *data_; }
  const torch::Device& device() const { return device_; }

 private:
  torch::Tensor loss_on(const Batch& batch);  // under the precision's autocast
  void adamw_update(double lr);
  // On CUDA with LibTorch 2.1+: clipping and AdamW as multi-tensor kernels (compat::fused_adamw),
  // a few launches instead of several per parameter; returns the gradients' norm before clipping.
  bool multi_tensor_step() const;
  torch::Tensor clip_and_update_multi_tensor(double lr);

  ModelSpec model_spec_;
  TrainSpec train_;
  std::shared_ptr<const DataSource> data_;
  torch::Device device_{torch::kCPU};
  TransformerLM model_{nullptr};
  std::vector<std::pair<std::string, torch::Tensor>> params_;
  std::vector<torch::Tensor> m_, v_;
  std::vector<bool> decay_;
  torch::Tensor step_count_;  // the fused AdamW's step number, on the device
  int64_t step_ = 0;
};

}  // namespace headroom::core

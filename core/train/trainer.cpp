#include "core/train/trainer.h"

#include <chrono>
#include <cmath>
#include <stdexcept>

#include "core/io/spec_json.h"
#include "core/io/tensor_bridge.h"
#include "core/model/torch_compat.h"

namespace headroom::core {

Trainer::Trainer(const ModelSpec& model, const TrainSpec& train, std::shared_ptr<const DataSource> data)
    : model_spec_(model), train_(train), data_(std::move(data)) {
  require_valid(model_spec_);
  auto problems = validate(train_);
  if (!problems.empty()) throw std::invalid_argument(problems[0].field + ": " + problems[0].message);
  if (data_->vocab_size() > model_spec_.vocab)
    throw std::invalid_argument("the data has a vocabulary of " + std::to_string(data_->vocab_size()) +
                                " tokens but the model's vocab is " + std::to_string(model_spec_.vocab) +
                                "; set vocab >= " + std::to_string(data_->vocab_size()));
  if (train_.seq_len > model_spec_.context)
    throw std::invalid_argument("seq_len = " + std::to_string(train_.seq_len) +
                                " exceeds the model's context n = " + std::to_string(model_spec_.context));
  device_ = torch::Device(resolve_device(train_.device));
  if (device_.is_cuda())  // TF32 is a process-wide switch of cuBLAS / cuDNN; fp32 and bf16 turn it off
    at::globalContext().setFloat32MatmulPrecision(train_.precision == Precision::Tf32 ? "high" : "highest");
  torch::manual_seed(train_.seed);  // weights are drawn on the CPU, so every device starts from the same ones
  model_ = TransformerLM(model_spec_);
  model_->to(device_);
  for (const auto& item : model_->named_parameters()) {
    params_.emplace_back(item.key(), item.value());
    m_.push_back(torch::zeros_like(item.value()));
    v_.push_back(torch::zeros_like(item.value()));
    // Decoupled weight decay on matrices only; biases, LayerNorm gains and the small
    // talking-heads mixing matrices are left alone.
    const bool is_matrix = item.value().dim() >= 2 && item.key().find("p_l") == std::string::npos &&
                           item.key().find("p_w") == std::string::npos;
    decay_.push_back(is_matrix);
  }
}

int Trainer::seq_len() const { return train_.seq_len > 0 ? train_.seq_len : model_spec_.context; }

int64_t Trainer::tokens_per_step() const { return int64_t(train_.batch) * seq_len(); }

torch::Tensor Trainer::loss_on(const Batch& batch) {
  // Every host-to-device copy before the forward is queued: a copy from pageable memory blocks the
  // host until the GPU has run everything queued before it.
  const auto inputs = batch.inputs.to(device_), targets = batch.targets.to(device_);
  const auto mask = batch.mask.defined() ? batch.mask.to(device_).reshape(-1) : torch::Tensor();
  torch::Tensor logits;
  {
    compat::AutocastGuard autocast(device_, train_.precision == Precision::Bf16);
    logits = model_->forward(inputs);
  }
  // The loss in float32 whatever the forward's precision: a bf16 log-softmax over V classes
  // loses the small differences training follows.
  logits = logits.to(torch::kFloat32);
  auto per_token =
      torch::nn::functional::cross_entropy(logits.reshape({-1, logits.size(-1)}), targets.reshape(-1),
                                           torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kNone));
  if (!mask.defined()) return per_token.mean();
  return (per_token * mask).sum() / mask.sum().clamp_min(1.0);
}

void Trainer::adamw_update(double lr) {
  torch::NoGradGuard g;
  const double b1 = train_.beta1, b2 = train_.beta2;
  const double t = double(step_ + 1);
  const double bc1 = 1 - std::pow(b1, t), bc2 = 1 - std::pow(b2, t);
  for (size_t i = 0; i < params_.size(); ++i) {
    auto& p = params_[i].second;
    const auto& grad = p.grad();
    if (!grad.defined()) continue;
    m_[i].mul_(b1).add_(grad, 1 - b1);
    v_[i].mul_(b2).addcmul_(grad, grad, 1 - b2);
    if (decay_[i] && train_.weight_decay > 0) p.mul_(1 - lr * train_.weight_decay);
    auto denom = (v_[i] / bc2).sqrt_().add_(train_.eps);
    p.addcdiv_(m_[i], denom, -lr / bc1);
  }
}

bool Trainer::multi_tensor_step() const { return compat::kHasFusedAdamw && device_.is_cuda(); }

torch::Tensor Trainer::clip_and_update_multi_tensor(double lr) {
  torch::NoGradGuard g;
  std::vector<torch::Tensor> grads;
  for (auto& p : params_)
    if (p.second.grad().defined()) grads.push_back(p.second.grad());
  const auto norm = compat::clip_grad_norm_foreach(grads, train_.clip);
  if (!step_count_.defined())
    step_count_ = torch::zeros({1}, torch::TensorOptions().dtype(torch::kFloat32).device(device_));
  step_count_.fill_(double(step_ + 1));
  // Two groups, as the per-parameter loop: matrices decay, the rest do not.
  for (const bool decayed : {true, false}) {
    std::vector<torch::Tensor> p, gr, m, v;
    for (size_t i = 0; i < params_.size(); ++i) {
      if (decay_[i] != decayed || !params_[i].second.grad().defined()) continue;
      p.push_back(params_[i].second);
      gr.push_back(params_[i].second.grad());
      m.push_back(m_[i]);
      v.push_back(v_[i]);
    }
    compat::fused_adamw(p, gr, m, v, step_count_, lr, train_.beta1, train_.beta2, decayed ? train_.weight_decay : 0.0,
                        train_.eps);
  }
  return norm;
}

StepMetrics Trainer::step() {
  if (finished()) throw std::logic_error("the run has finished all its steps");
  const auto start = std::chrono::steady_clock::now();
  model_->train();
  const auto batch = data_->train_batch(train_.batch_seed(), step_, train_.batch, seq_len());
  for (auto& p : params_) p.second.mutable_grad() = torch::Tensor();
  auto loss = loss_on(batch);
  loss.backward();
  StepMetrics m;
  m.lr = learning_rate(train_, step_);
  if (multi_tensor_step()) {
    // One host sync for both numbers, after the update is queued.
    const auto norm = clip_and_update_multi_tensor(m.lr);
    const auto both = torch::stack({loss.detach().to(torch::kFloat64), norm.to(torch::kFloat64)}).cpu();
    m.train_loss = both[0].item<double>();
    m.grad_norm = both[1].item<double>();
  } else {
    m.grad_norm = train_.clip > 0 ? torch::nn::utils::clip_grad_norm_(model_->parameters(), train_.clip)
                                  : torch::nn::utils::clip_grad_norm_(model_->parameters(), 1e30);
    adamw_update(m.lr);
    m.train_loss = loss.item<double>();
  }
  ++step_;
  m.step = step_;
  m.tokens = step_ * tokens_per_step();
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return m;
}

double Trainer::evaluate() {
  torch::NoGradGuard g;
  model_->eval();
  double total = 0;
  for (int i = 0; i < train_.eval_batches; ++i)
    total += loss_on(data_->validation_batch(i, train_.batch, seq_len())).item<double>();
  model_->train();
  return total / train_.eval_batches;
}

StFile Trainer::save_state() const {
  StFile f;
  for (size_t i = 0; i < params_.size(); ++i) {
    f.tensors.push_back(to_st_tensor("model." + params_[i].first, params_[i].second));
    f.tensors.push_back(to_st_tensor("adam.m." + params_[i].first, m_[i]));
    f.tensors.push_back(to_st_tensor("adam.v." + params_[i].first, v_[i]));
  }
  f.metadata = {{"format", "headroom checkpoint v1"},
                {"step", std::to_string(step_)},
                {"model", to_json(model_spec_).dump()},
                {"train", to_json(train_).dump()},
                {"device", device_.str()}};
  return f;
}

void Trainer::load_state(const StFile& f) {
  auto meta = [&](const char* key) -> const std::string& {
    auto it = f.metadata.find(key);
    if (it == f.metadata.end()) throw std::invalid_argument(std::string("checkpoint lacks metadata '") + key + "'");
    return it->second;
  };
  if (meta("format") != "headroom checkpoint v1")
    throw std::invalid_argument("checkpoint format '" + meta("format") + "' is not 'headroom checkpoint v1'");
  if (model_spec_from_json(nlohmann::json::parse(meta("model")), "checkpoint.model") != model_spec_)
    throw std::invalid_argument("checkpoint was taken from a different model: " + meta("model"));
  if (auto train = f.metadata.find("train"); train != f.metadata.end()) {
    const auto saved = train_spec_from_json(nlohmann::json::parse(train->second), "checkpoint.train");
    if (saved.precision != train_.precision)
      throw std::invalid_argument(std::string("checkpoint was trained in ") + to_string(saved.precision) +
                                  ", this run is " + to_string(train_.precision) +
                                  "; a run keeps one precision from start to end");
  }
  torch::NoGradGuard g;
  for (size_t i = 0; i < params_.size(); ++i) {
    const auto& name = params_[i].first;
    auto load = [&](const std::string& key, torch::Tensor& into) {
      auto t = from_st_tensor(f.at(key));
      if (t.sizes() != into.sizes()) throw std::invalid_argument("checkpoint tensor " + key + " has the wrong shape");
      into.copy_(t);
    };
    load("model." + name, params_[i].second);
    load("adam.m." + name, m_[i]);
    load("adam.v." + name, v_[i]);
  }
  step_ = std::stoll(meta("step"));
}

}  // namespace headroom::core

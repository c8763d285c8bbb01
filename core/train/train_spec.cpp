#include "core/train/train_spec.h"

#include <cmath>
#include <set>
#include <stdexcept>

namespace headroom::core {

const char* to_string(LrSchedule s) {
  switch (s) {
    case LrSchedule::Cosine: return "cosine";
    case LrSchedule::InverseSqrt: return "inverse-sqrt";
    case LrSchedule::Constant: return "constant";
  }
  return "?";
}

std::optional<LrSchedule> parse_lr_schedule(const std::string& name) {
  for (auto s : {LrSchedule::Cosine, LrSchedule::InverseSqrt, LrSchedule::Constant})
    if (name == to_string(s)) return s;
  return std::nullopt;
}

bool TrainSpec::operator==(const TrainSpec& o) const { return to_json(*this) == to_json(o); }

bool same_computation(const TrainSpec& a, const TrainSpec& b) {
  TrainSpec b_here = b;
  b_here.device = a.device;
  return a == b_here;
}

double learning_rate(const TrainSpec& s, int64_t step) {
  const double warm = std::max(1, s.warmup);
  if (step < s.warmup) return s.lr * double(step + 1) / warm;
  switch (s.schedule) {
    case LrSchedule::Constant: return s.lr;
    case LrSchedule::InverseSqrt: return s.lr * std::sqrt(warm / double(std::max<int64_t>(step, 1)));
    case LrSchedule::Cosine: {
      const double span = std::max<int64_t>(1, s.steps - s.warmup);
      const double progress = std::min(1.0, double(step - s.warmup) / span);
      return s.lr * (s.min_lr_ratio + (1 - s.min_lr_ratio) * 0.5 * (1 + std::cos(M_PI * progress)));
    }
  }
  return s.lr;
}

std::vector<TrainSpecProblem> validate(const TrainSpec& s) {
  std::vector<TrainSpecProblem> p;
  auto need = [&](bool ok, const char* field, const std::string& msg) {
    if (!ok) p.push_back({field, msg});
  };
  need(s.steps >= 1, "steps", "steps = " + std::to_string(s.steps) + " must be at least 1");
  need(s.batch >= 1 && s.batch <= 65536, "batch", "batch = " + std::to_string(s.batch) + " must be in [1, 65536]");
  need(s.seq_len >= 0, "seq_len", "seq_len must be >= 0 (0 = the model's context)");
  need(s.lr > 0 && s.lr < 10, "lr", "lr = " + std::to_string(s.lr) + " must be in (0, 10)");
  need(s.warmup >= 0, "warmup", "warmup must be >= 0 steps");
  need(s.min_lr_ratio >= 0 && s.min_lr_ratio <= 1, "min_lr_ratio", "min_lr_ratio must be in [0, 1]");
  need(s.weight_decay >= 0 && s.weight_decay < 1, "weight_decay", "weight_decay must be in [0, 1)");
  need(s.beta1 >= 0 && s.beta1 < 1, "beta1", "beta1 (AdamW's first-moment decay) must be in [0, 1), e.g. 0.9");
  need(s.beta2 >= 0 && s.beta2 < 1, "beta2", "beta2 (AdamW's second-moment decay) must be in [0, 1), e.g. 0.999");
  need(s.eps > 0, "eps", "eps must be > 0");
  need(s.clip >= 0, "clip", "clip must be >= 0 (0 = off)");
  need(s.eval_every >= 1, "eval_every", "eval_every must be >= 1 step");
  need(s.eval_batches >= 1, "eval_batches", "eval_batches must be >= 1");
  need(s.log_every >= 1, "log_every", "log_every must be >= 1 step");
  need(s.checkpoint_every >= 1, "checkpoint_every", "checkpoint_every must be >= 1 step");
  need(!s.corpus.empty(), "corpus", "corpus must name kjv, a text file, or a synthetic task");
  need(is_device_request(s.device), "device", "device \"" + s.device + "\" is not one of auto, cpu, cuda, cuda:N");
  return p;
}

nlohmann::json to_json(const TrainSpec& s) {
  nlohmann::json j = {{"corpus", s.corpus},
                      {"tokenizer", s.tokenizer},
                      {"steps", s.steps},
                      {"batch", s.batch},
                      {"seq_len", s.seq_len},
                      {"lr", s.lr},
                      {"warmup", s.warmup},
                      {"schedule", to_string(s.schedule)},
                      {"min_lr_ratio", s.min_lr_ratio},
                      {"weight_decay", s.weight_decay},
                      {"beta1", s.beta1},
                      {"beta2", s.beta2},
                      {"eps", s.eps},
                      {"clip", s.clip},
                      {"eval_every", s.eval_every},
                      {"eval_batches", s.eval_batches},
                      {"log_every", s.log_every},
                      {"checkpoint_every", s.checkpoint_every},
                      {"seed", s.seed},
                      {"precision", to_string(s.precision)},
                      {"device", s.device}};
  // Only where it differs from seed: every config stored before it existed stays as it was, and an
  // explicit data_seed equal to seed is the same run.
  if (s.data_seed && *s.data_seed != s.seed) j["data_seed"] = *s.data_seed;
  return j;
}

TrainSpec train_spec_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw std::invalid_argument(where + ": expected a table/object");
  const auto known = to_json(TrainSpec{});
  TrainSpec s;
  nlohmann::json merged = known;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "data_seed") {  // optional: absent from the defaults' JSON
      const auto& v = it.value();
      if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0))
        throw std::invalid_argument(
            where + ".data_seed: expected an integer >= 0 (the seed of the batches' order), got " + v.dump());
      s.data_seed = v.get<uint64_t>();
      continue;
    }
    if (it.key() == "seed") {  // a whole number >= 0: -1 would wrap to 2^64 - 1 in silence
      const auto& v = it.value();
      if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0))
        throw std::invalid_argument(where +
                                    ".seed: expected an integer >= 0 (the seed of the weights and the "
                                    "batches), got " +
                                    v.dump());
    }
    if (!known.contains(it.key())) {
      std::string list;
      for (auto k = known.begin(); k != known.end(); ++k) list += (list.empty() ? "" : ", ") + k.key();
      throw std::invalid_argument(where + "." + it.key() + ": unknown key (known: " + list + ", data_seed)");
    }
    const auto& def = known[it.key()];
    const auto& v = it.value();
    const bool ok = def.is_string()                                       ? v.is_string()
                    : def.is_number_integer() || def.is_number_unsigned() ? v.is_number_integer()
                                                                          : v.is_number();
    if (!ok)
      throw std::invalid_argument(where + "." + it.key() + ": expected " +
                                  (def.is_string()         ? "a string"
                                   : def.is_number_float() ? "a number"
                                                           : "an integer") +
                                  ", got " + v.dump());
    merged[it.key()] = v;
  }
  s.corpus = merged["corpus"];
  s.tokenizer = merged["tokenizer"];
  s.steps = merged["steps"];
  s.batch = merged["batch"];
  s.seq_len = merged["seq_len"];
  s.lr = merged["lr"];
  s.warmup = merged["warmup"];
  auto sched = parse_lr_schedule(merged["schedule"].get<std::string>());
  if (!sched) throw std::invalid_argument(where + ".schedule: unknown schedule (use cosine, inverse-sqrt or constant)");
  s.schedule = *sched;
  s.min_lr_ratio = merged["min_lr_ratio"];
  s.weight_decay = merged["weight_decay"];
  s.beta1 = merged["beta1"];
  s.beta2 = merged["beta2"];
  s.eps = merged["eps"];
  s.clip = merged["clip"];
  s.eval_every = merged["eval_every"];
  s.eval_batches = merged["eval_batches"];
  s.log_every = merged["log_every"];
  s.checkpoint_every = merged["checkpoint_every"];
  s.seed = merged["seed"].get<uint64_t>();
  auto precision = parse_precision(merged["precision"].get<std::string>());
  if (!precision) throw std::invalid_argument(where + ".precision: unknown precision (use fp32, tf32 or bf16)");
  s.precision = *precision;
  s.device = merged["device"];
  auto problems = validate(s);
  if (!problems.empty()) throw std::invalid_argument(where + "." + problems[0].field + ": " + problems[0].message);
  return s;
}

}  // namespace headroom::core

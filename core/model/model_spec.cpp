#include "core/model/model_spec.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "core/attention/attention_costs.h"

namespace headroom::core {
namespace {
// A scale as a person writes it: 0.25, 1e-06, 100.
std::string format_number(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}
}  // namespace

std::string_view to_string(Positions p) { return p == Positions::None ? "none" : "learned"; }

std::optional<Positions> parse_positions(std::string_view name) {
  if (name == "learned") return Positions::Learned;
  if (name == "none") return Positions::None;
  return std::nullopt;
}

std::string_view to_string(PosInit p) { return p == PosInit::Zero ? "zero" : "random"; }

std::optional<PosInit> parse_pos_init(std::string_view name) {
  if (name == "random") return PosInit::Random;
  if (name == "zero") return PosInit::Zero;
  return std::nullopt;
}

bool ModelSpec::operator==(const ModelSpec& o) const {
  return vocab == o.vocab && width == o.width && depth == o.depth && embed_rank == o.embed_rank &&
         pos_rank == o.pos_rank && positions == o.positions && pos_init == o.pos_init &&
         pos_init_scale == o.pos_init_scale && context == o.context && mlp_ratio == o.mlp_ratio &&
         attention == o.attention;
}

int effective_embed_rank(const ModelSpec& s) {
  const int r = s.embed_rank > 0 ? s.embed_rank : s.width;
  return std::min({r, s.width, s.vocab});
}

int effective_pos_rank(const ModelSpec& s) {
  if (s.positions == Positions::None) return 0;
  const int r = s.pos_rank > 0 ? s.pos_rank : s.width;
  return std::min({r, s.width, s.context});
}

std::vector<SpecProblem> validate(const ModelSpec& s) {
  std::vector<SpecProblem> p;
  auto check = [&](const char* field, int v, int lo, int hi, const char* what) {
    if (v < lo || v > hi)
      p.push_back({field, std::string(field) + " = " + std::to_string(v) + " is impossible: " + what + " must be in [" +
                              std::to_string(lo) + ", " + std::to_string(hi) + "]"});
  };
  check("vocab", s.vocab, 2, 1 << 20, "the vocabulary size V");
  check("width", s.width, 1, 1 << 16, "the width d");
  check("depth", s.depth, 1, 256, "the number of layers L");
  check("embed_rank", s.embed_rank, 0, 1 << 16, "the embedding rank r (0 = unfactorised)");
  check("pos_rank", s.pos_rank, 0, 1 << 16, "the positional rank (0 = unfactorised)");
  check("context", s.context, 1, 1 << 16, "the context length n");
  check("mlp_ratio", s.mlp_ratio, 0, 64, "the feed-forward ratio");
  if (s.positions == Positions::None && s.pos_rank > 0)
    p.push_back({"pos_rank", "pos_rank = " + std::to_string(s.pos_rank) +
                                 " factorises a positional embedding, but positions = \"none\" has none: use "
                                 "positions = \"learned\" or leave pos_rank out"});
  if (s.positions == Positions::None && s.pos_init == PosInit::Zero)
    p.push_back({"pos_init",
                 "pos_init = \"zero\" starts a positional embedding at zero, but positions = \"none\" "
                 "has none: use positions = \"learned\" or leave pos_init out"});
  if (!(s.pos_init_scale > 0 && s.pos_init_scale <= 100))  // NaN fails too
    p.push_back({"pos_init_scale", "pos_init_scale = " + format_number(s.pos_init_scale) +
                                       " is impossible: the positional start's scale must be in (0, 100] "
                                       "(1 = N(0, 0.02^2); for no start at all use pos_init = \"zero\")"});
  else if (s.pos_init_scale != 1.0 && (s.positions == Positions::None || s.pos_init == PosInit::Zero))
    p.push_back({"pos_init_scale",
                 "pos_init_scale scales a random positional start, but " +
                     std::string(s.positions == Positions::None ? "positions = \"none\" has no positional embedding"
                                                                : "pos_init = \"zero\" starts it at zero") +
                     ": leave pos_init_scale out or use pos_init = \"random\""});
  if (s.positions == Positions::None && !s.attention.causal)
    p.push_back({"positions",
                 "positions = \"none\" needs causal attention: a bidirectional model without a "
                 "positional embedding cannot tell positions apart (set attention.causal = true or "
                 "positions = \"learned\")"});
  if (s.attention.d_model != s.width)
    p.push_back({"attention.d_model", "the attention's d_model = " + std::to_string(s.attention.d_model) +
                                          " must equal the model width d = " + std::to_string(s.width)});
  for (auto& a : validate(s.attention)) p.push_back({"attention." + a.field, a.message});
  return p;
}

void require_valid(const ModelSpec& spec) {
  auto problems = validate(spec);
  if (problems.empty()) return;
  std::string msg;
  for (auto& pr : problems) msg += (msg.empty() ? "" : "; ") + pr.field + ": " + pr.message;
  throw std::invalid_argument(msg);
}

int64_t parameter_count(const ModelSpec& s) {
  require_valid(s);
  const int64_t V = s.vocab, d = s.width, n = s.context;
  int64_t p = 0;
  p += s.embed_rank > 0 ? V * s.embed_rank + int64_t(s.embed_rank) * d : V * d;  // token embedding
  if (s.positions == Positions::Learned)
    p += s.pos_rank > 0 ? n * s.pos_rank + int64_t(s.pos_rank) * d : n * d;  // positions
  const int64_t hidden = int64_t(s.mlp_ratio) * d;
  const int64_t block = 2 * (2 * d)                                  // two LayerNorms
                        + attention_costs(s.attention, 1, 1).params  // attention (no biases)
                        + (s.mlp_ratio > 0 ? d * hidden + hidden + hidden * d + d : 0);
  p += s.depth * block;
  p += 2 * d;      // final LayerNorm
  p += d * V + V;  // untied output head with bias
  return p;
}

std::string describe(const ModelSpec& s) {
  std::ostringstream o;
  o << "V=" << s.vocab << " d=" << s.width << " L=" << s.depth;
  if (s.embed_rank > 0) o << " r=" << s.embed_rank;
  if (s.pos_rank > 0) o << " r_pos=" << s.pos_rank;
  if (s.positions == Positions::None) o << " no-pos";
  if (s.pos_init == PosInit::Zero) o << " pos0";
  if (s.pos_init_scale != 1.0) o << " pos*" << format_number(s.pos_init_scale);
  o << " n=" << s.context << " | " << describe(s.attention);
  return o.str();
}

}  // namespace headroom::core

// ModelSpec: the small Transformer language model used everywhere in Headroom.
// Plain data, no torch.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/attention/attention_spec.h"

namespace headroom::core {

// Where a token's position enters the model. Learned: a learned table added to the token embedding
// (n x d, or factorised by pos_rank). None: no positional embedding at all; a causal model can still
// tell positions apart through its mask (how many tokens a query may attend to), a bidirectional one
// cannot, so None requires causal attention.
enum class Positions { Learned, None };
std::string_view to_string(Positions p);
std::optional<Positions> parse_positions(std::string_view name);  // "learned", "none"

// How a learned positional embedding starts. Random: N(0, 0.02^2) entries (the n x d table, or the
// n x r table of a factorised one, whose r x d projection is N(0, 1/r): P = A B^T has the same scale
// either way). Zero: that table starts at zero, so P = 0 at step 0 and grows only where the loss
// pushes it (the projection stays random, as LoRA starts one factor at zero). Everything else in the
// model starts as Random's does for the same seed. ModelSpec::pos_init_scale scales Random's draw.
enum class PosInit { Random, Zero };
std::string_view to_string(PosInit p);
std::optional<PosInit> parse_pos_init(std::string_view name);  // "random", "zero"

struct ModelSpec {
  int vocab = 256;     // V
  int width = 64;      // d (VB: d_x); must equal attention.d_model
  int depth = 2;       // L
  int embed_rank = 0;  // r: token embedding factorised V x r · r x d (VB §5.1, ALBERT); 0 = unfactorised
  int pos_rank = 0;    // positional embedding rank (VB C.4); 0 = unfactorised
  Positions positions = Positions::Learned;
  PosInit pos_init = PosInit::Random;  // how the learned positional embedding starts
  // Random's table (the n x r one of a factorised embedding) is drawn N(0, (0.02 s)^2): the same
  // draws as s = 1 times s, so everything else, and the start's direction, match s = 1's for the seed.
  double pos_init_scale = 1.0;
  int context = 64;   // n: the longest sequence the learned positions cover
  int mlp_ratio = 4;  // feed-forward hidden = mlp_ratio * d
  AttentionSpec attention;

  bool operator==(const ModelSpec& o) const;
  bool operator!=(const ModelSpec& o) const { return !(*this == o); }
};

// The rank the token embedding can have: min(r, d, V) (VB §2.1: r <= min(d_x, V)).
int effective_embed_rank(const ModelSpec& spec);
// The rank the positional embedding can have: min(pos_rank or d, d, n); 0 without one.
int effective_pos_rank(const ModelSpec& spec);

// Every problem with the spec, including the attention's (empty = valid).
std::vector<SpecProblem> validate(const ModelSpec& spec);
void require_valid(const ModelSpec& spec);

// Trainable parameters of the whole model (embeddings, blocks, head), computed from the spec.
int64_t parameter_count(const ModelSpec& spec);

std::string describe(const ModelSpec& spec);

}  // namespace headroom::core

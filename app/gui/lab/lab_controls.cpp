#include "app/gui/lab/lab_controls.h"

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <set>

namespace headroom::gui {

const char* to_string(LabTab t) {
  switch (t) {
    case LabTab::Heads: return "heads";
    case LabTab::Rank: return "rank";
    case LabTab::Projections: return "projections";
    case LabTab::Theorem: return "theorem";
    case LabTab::Separation: return "separation";
  }
  return "?";
}

// Declared with the enum in theorem_demo.h; here so that the controls (what scenes read) need no solver.
const char* to_string(TargetPattern p) {
  switch (p) {
    case TargetPattern::Identity: return "identity";
    case TargetPattern::PreviousToken: return "previous token";
    case TargetPattern::Uniform: return "uniform";
    case TargetPattern::RandomStochastic: return "random";
    case TargetPattern::HeadMap: return "a head's map";
    case TargetPattern::SelfVsPast: return "self vs past";
    case TargetPattern::FirstToken: return "first token";
  }
  return "?";
}

const char* to_string(MapStage s) {
  switch (s) {
    case MapStage::J: return "J";
    case MapStage::L: return "L";
    case MapStage::W: return "W";
    case MapStage::U: return "U";
  }
  return "?";
}

const char* to_string(MapView v) {
  switch (v) {
    case MapView::Heatmaps: return "maps";
    case MapView::Lines: return "lines";
    case MapView::Model: return "all layers";
    case MapView::Neurons: return "neurons";
  }
  return "?";
}

namespace {

// A JSON whole number that an int holds as it is.
bool fits_int(const nlohmann::json& v) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT_MAX);
  return v.is_number_integer() && v.get<std::int64_t>() >= INT_MIN && v.get<std::int64_t>() <= INT_MAX;
}

}  // namespace

bool same_shapes(const core::ModelSpec& a, const core::ModelSpec& b) {
  auto x = a, y = b;
  x.attention.causal = y.attention.causal = false;  // the mask has no parameters
  return x == y;
}

int vocab_size_of(const std::string& vocab, std::string* error) {
  if (vocab == "bytes") return 256;
  if (vocab.rfind("bpe:", 0) == 0) {
    const std::string digits = vocab.substr(4);
    const bool numeric =
        !digits.empty() && digits.size() <= 6 && digits.find_first_not_of("0123456789") == std::string::npos;
    const int v = numeric ? std::stoi(digits) : 0;
    if (v >= 64 && v <= 32000) return v;
  }
  *error =
      "vocabulary '" + vocab + "': use bytes or bpe:<V> with 64 <= V <= 32000 (VB used bpe:257, bpe:500, bpe:2000)";
  return 0;
}

void controls_from_model_spec(const core::ModelSpec& spec, const std::string& tokenizer, LabControls* c) {
  const auto& a = spec.attention;
  c->kind = a.kind;
  c->d = spec.width;
  c->heads = a.heads;
  c->heads_k = a.heads_k;
  c->heads_v = a.heads_v;
  // "Standard" means d_p = d/h (LRB eq. 8); anything else is a fixed head size.
  c->standard_head_size =
      a.kind != core::AttentionKind::FixedHead && a.heads > 0 && a.d_k * a.heads == spec.width && a.d_v == a.d_k;
  if (c->kind == core::AttentionKind::FixedHead) c->kind = core::AttentionKind::MultiHead;
  c->head_size = a.d_k;
  c->embed_rank = spec.embed_rank;
  c->pos_rank = spec.pos_rank;
  c->positions = spec.positions == core::Positions::Learned;
  c->pos_init = spec.pos_init;
  c->pos_init_scale = static_cast<float>(spec.pos_init_scale);
  c->layers = spec.depth;
  c->context = spec.context;
  c->causal = a.causal;
  c->vocab = tokenizer.empty() ? "bytes" : tokenizer;
}

bool has_random_pos_start(const LabControls& c) { return c.positions && c.pos_init == core::PosInit::Random; }

bool model_spec_of(const LabControls& c, core::ModelSpec* spec, std::vector<core::SpecProblem>* problems) {
  problems->clear();
  core::AttentionRequest r;
  r.kind = c.kind;
  // The "standard d_p = d/h" toggle picks between LRB eq. 8 and LRB §3 for the plain kinds.
  if (c.kind == core::AttentionKind::MultiHead || c.kind == core::AttentionKind::FixedHead)
    r.kind = c.standard_head_size ? core::AttentionKind::MultiHead : core::AttentionKind::FixedHead;
  r.d_model = c.d;
  r.heads = c.heads;
  r.causal = c.causal;
  if (core::is_talking_heads_family(r.kind)) {
    if (r.kind != core::AttentionKind::WeightsProj) r.heads_k = c.heads_k;
    if (r.kind != core::AttentionKind::LogitsProj) r.heads_v = c.heads_v;
  }
  if (!c.standard_head_size && r.kind != core::AttentionKind::GeneralBilinear) r.d_k = r.d_v = c.head_size;
  std::vector<core::SpecProblem> attention_problems;
  auto a = core::make_attention_spec(r, &attention_problems);
  for (auto& p : attention_problems) {
    if (p.field == "d_k" || p.field == "d_v") p.field = "head size";
    problems->push_back(p);
  }
  if (!a) return false;
  std::string vocab_error;
  spec->vocab = vocab_size_of(c.vocab, &vocab_error);
  if (spec->vocab == 0) {
    problems->push_back({"vocabulary", vocab_error});
    spec->vocab = 256;  // check the other controls as if bytes, so each problem is said once
  }
  spec->width = c.d;
  spec->depth = c.layers;
  spec->embed_rank = c.embed_rank;
  // Without positions the rank slider has nothing to factorise: it keeps its value for when they return.
  spec->pos_rank = c.positions ? c.pos_rank : 0;
  spec->positions = c.positions ? core::Positions::Learned : core::Positions::None;
  spec->pos_init = c.positions ? c.pos_init : core::PosInit::Random;  // kept, like the rank, for their return
  // The scale of a random start: kept too while the start is zero or there are no positions.
  spec->pos_init_scale = has_random_pos_start(c) ? static_cast<double>(c.pos_init_scale) : 1.0;
  spec->context = c.context;
  spec->attention = *a;
  for (auto& p : core::validate(*spec)) {
    if (p.field == "positions")  // said in the controls' words, not the suite file's keys
      p = {"positions",
           "without a positional embedding only the causal mask tells positions apart, and this model "
           "is bidirectional: tick causal, or positional embedding"};
    problems->push_back(p);
  }
  if (c.positions && c.pos_rank > c.d)
    problems->push_back({"positional rank", "r_pos = " + std::to_string(c.pos_rank) + " exceeds the width d = " +
                                                std::to_string(c.d) + "; use r_pos <= d, or 0 for full rank"});
  if (c.embed_rank > c.d)
    problems->push_back({"embedding rank", "r = " + std::to_string(c.embed_rank) +
                                               " exceeds the width d = " + std::to_string(c.d) +
                                               " (VB §2.1: r <= min(d, V)); use r <= d, or 0 for full rank"});
  return problems->empty();
}

LabRequest lab_request_of(const LabControls& c, const core::ModelSpec& spec) {
  LabRequest r;
  r.model = spec;
  r.tokenizer = c.vocab;
  r.input = c.input;
  r.text = c.text;
  r.task = c.task;
  r.synthetic_n = c.synthetic_n;
  r.seed = c.seed;
  r.training = c.training;
  r.lr = c.lr;
  // Heads of layers or heads the model no longer has are dropped silently: a smaller model has
  // nothing to switch off there.
  for (const auto& [layer, head] : c.heads_off)
    if (layer >= 0 && layer < spec.depth && head >= 0 && head < spec.attention.heads_v)
      r.heads_off.push_back({layer, head});
  if (c.importance) r.importance_layer = std::clamp(c.layer, 0, spec.depth - 1);
  return r;
}

bool head_is_off(const LabControls& c, int layer, int head) {
  return std::find(c.heads_off.begin(), c.heads_off.end(), std::make_pair(layer, head)) != c.heads_off.end();
}

void toggle_head(LabControls* c, int layer, int head) {
  const auto it = std::find(c->heads_off.begin(), c->heads_off.end(), std::make_pair(layer, head));
  if (it != c->heads_off.end()) c->heads_off.erase(it);
  else c->heads_off.push_back({layer, head});
}

nlohmann::json to_json(const LabControls& c) {
  return {{"kind", core::to_string(c.kind)},
          {"d", c.d},
          {"heads", c.heads},
          {"heads_k", c.heads_k},
          {"heads_v", c.heads_v},
          {"standard_head_size", c.standard_head_size},
          {"head_size", c.head_size},
          {"embed_rank", c.embed_rank},
          {"pos_rank", c.pos_rank},
          {"positions", c.positions},
          {"pos_init", std::string(core::to_string(c.pos_init))},
          {"pos_init_scale", c.pos_init_scale},
          {"vocab", c.vocab},
          {"layers", c.layers},
          {"context", c.context},
          {"causal", c.causal},
          {"seed", c.seed},
          {"input", c.input == LabInput::Text ? "text" : "synthetic"},
          {"text", c.text},
          {"task", core::to_string(c.task)},
          {"synthetic_n", c.synthetic_n},
          {"training", c.training},
          {"lr", c.lr},
          {"tab", to_string(c.tab)},
          {"layer", c.layer},
          {"stage", to_string(c.stage)},
          {"enlarged_head", c.enlarged_head},
          {"map_view", to_string(c.map_view)},
          {"lines_query", c.lines_query},
          {"lines_hidden", c.lines_hidden},
          {"neuron_head", c.neuron_head},
          {"heads_off", c.heads_off},
          {"importance", c.importance},
          {"pattern", to_string(c.pattern)},
          {"theorem_n", c.theorem_n},
          {"theorem_dp", c.theorem_dp},
          {"theorem_head", c.theorem_head},
          {"theorem_causal", c.theorem_causal}};
}

bool controls_from_json(const nlohmann::json& j, LabControls* out, std::string* error) {
  if (!j.is_object()) {
    *error = "lab: expected an object";
    return false;
  }
  LabControls c = *out;
  const auto known = to_json(c);
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "stored_run") continue;  // not a control: stored_run_from_json reads it
    if (!known.contains(it.key())) {
      *error = "lab." + it.key() + ": unknown key";
      return false;
    }
    const auto& want = known[it.key()];
    const auto& v = it.value();
    const bool ok = want.is_string()         ? v.is_string()
                    : want.is_array()        ? v.is_array()
                    : want.is_boolean()      ? v.is_boolean()
                    : want.is_number_float() ? v.is_number()
                                             : v.is_number_integer();
    if (!ok) {
      // A whole number is asked for where the lab keeps an integer ("expected number, got 64.5" read as a
      // contradiction).
      const std::string wanted = want.is_number_integer() ? "a whole number" : std::string(want.type_name());
      *error = "lab." + it.key() + ": expected " + wanted + ", got " + v.dump();
      return false;
    }
    // In range of what the lab keeps, so a value is never wrapped or cut into another one.
    if (want.is_number_unsigned() && !v.is_number_unsigned() && v.get<std::int64_t>() < 0) {
      *error = "lab." + it.key() + ": expected a whole number >= 0, got " + v.dump();
      return false;
    }
    if (want.is_number_integer() && !want.is_number_unsigned() && !fits_int(v)) {
      *error = "lab." + it.key() + ": expected a whole number from " + std::to_string(INT_MIN) + " to " +
               std::to_string(INT_MAX) + ", got " + v.dump();
      return false;
    }
    if (want.is_number_float() && !(std::abs(v.get<double>()) <= FLT_MAX)) {
      *error = "lab." + it.key() + ": " + v.dump() + " is out of range (at most about 3.4e38)";
      return false;
    }
  }
  auto get_int = [&](const char* k, int& into) {
    if (j.contains(k)) into = j[k].get<int>();
  };
  auto get_bool = [&](const char* k, bool& into) {
    if (j.contains(k)) into = j[k].get<bool>();
  };
  if (j.contains("kind")) {
    auto k = core::parse_attention_kind(j["kind"].get<std::string>());
    if (!k) {
      *error = "lab.kind: unknown attention kind (one of " + core::attention_kind_names() + ")";
      return false;
    }
    c.kind = *k;
  }
  get_int("d", c.d);
  get_int("heads", c.heads);
  get_int("heads_k", c.heads_k);
  get_int("heads_v", c.heads_v);
  get_bool("standard_head_size", c.standard_head_size);
  get_int("head_size", c.head_size);
  get_int("embed_rank", c.embed_rank);
  get_int("pos_rank", c.pos_rank);
  get_bool("positions", c.positions);
  if (j.contains("pos_init")) {
    const auto p = j["pos_init"].is_string() ? core::parse_pos_init(j["pos_init"].get<std::string>()) : std::nullopt;
    if (!p) {
      *error = "lab.pos_init: " + j["pos_init"].dump() +
               " is not a way to start the positional embedding (use "
               "\"random\" or \"zero\")";
      return false;
    }
    c.pos_init = *p;
  }
  if (j.contains("pos_init_scale")) {
    // Its range is the model's (core::validate on a default spec, whose start is random).
    core::ModelSpec probe;
    probe.pos_init_scale = j["pos_init_scale"].get<double>();
    for (const auto& p : core::validate(probe)) {
      if (p.field == "pos_init_scale") {
        *error = "lab.pos_init_scale: " + p.message;
        return false;
      }
    }
    c.pos_init_scale = static_cast<float>(probe.pos_init_scale);
  }
  if (j.contains("vocab")) {
    c.vocab = j["vocab"].get<std::string>();
    std::string vocab_error;
    if (vocab_size_of(c.vocab, &vocab_error) == 0) {
      *error = "lab.vocab: " + vocab_error;
      return false;
    }
  }
  get_int("layers", c.layers);
  get_int("context", c.context);
  get_bool("causal", c.causal);
  if (j.contains("seed")) c.seed = j["seed"].get<uint64_t>();
  if (j.contains("input")) {
    const auto in = j["input"].get<std::string>();
    if (in != "text" && in != "synthetic") {
      *error = "lab.input: use text or synthetic";
      return false;
    }
    c.input = in == "text" ? LabInput::Text : LabInput::Synthetic;
  }
  if (j.contains("text")) c.text = j["text"].get<std::string>();
  if (j.contains("task")) {
    auto t = core::parse_synthetic_task(j["task"].get<std::string>());
    if (!t) {
      *error = "lab.task: unknown task (one of " + core::synthetic_task_names() + ")";
      return false;
    }
    c.task = *t;
  }
  get_int("synthetic_n", c.synthetic_n);
  get_bool("training", c.training);
  if (j.contains("lr")) c.lr = j["lr"].get<float>();
  if (j.contains("tab")) {
    const auto t = j["tab"].get<std::string>();
    bool found = false;
    for (auto tab : {LabTab::Heads, LabTab::Rank, LabTab::Projections, LabTab::Theorem, LabTab::Separation})
      if (t == to_string(tab)) c.tab = tab, found = true;
    if (!found) {
      *error = "lab.tab: use heads, rank, projections, theorem or separation";
      return false;
    }
  }
  get_int("layer", c.layer);
  if (j.contains("stage")) {
    const auto s = j["stage"].get<std::string>();
    bool found = false;
    for (auto st : {MapStage::J, MapStage::L, MapStage::W, MapStage::U})
      if (s == to_string(st)) c.stage = st, found = true;
    if (!found) {
      *error = "lab.stage: use J, L, W or U";
      return false;
    }
  }
  get_int("enlarged_head", c.enlarged_head);
  if (j.contains("heads_off")) {
    c.heads_off.clear();
    for (const auto& pair : j["heads_off"]) {
      if (!pair.is_array() || pair.size() != 2 || !fits_int(pair[0]) || !fits_int(pair[1]) || pair[0].get<int>() < 0 ||
          pair[1].get<int>() < 0) {
        *error =
            "lab.heads_off: expected a list of [layer, head] pairs of whole numbers >= 0, e.g. [[0, 2], [1, 5]]; got " +
            pair.dump();
        return false;
      }
      c.heads_off.push_back({pair[0].get<int>(), pair[1].get<int>()});
    }
  }
  get_bool("importance", c.importance);
  if (j.contains("map_view")) {
    const auto v = j["map_view"].get<std::string>();
    bool found = false;
    for (auto view : {MapView::Heatmaps, MapView::Lines, MapView::Model, MapView::Neurons})
      if (v == to_string(view)) c.map_view = view, found = true;
    if (!found) {
      *error =
          "lab.map_view: use maps (a heatmap per head), lines (lines between the tokens), all layers (every "
          "layer's heads at once) or neurons (one head's logits as sums of products)";
      return false;
    }
  }
  get_int("lines_query", c.lines_query);
  get_int("neuron_head", c.neuron_head);
  if (c.neuron_head < 0) {
    *error = "lab.neuron_head: expected a head number >= 0, got " + std::to_string(c.neuron_head);
    return false;
  }
  if (j.contains("lines_hidden")) {
    c.lines_hidden.clear();
    for (const auto& h : j["lines_hidden"]) {
      if (!fits_int(h) || h.get<int>() < 0) {
        *error = "lab.lines_hidden: expected a list of head numbers >= 0, e.g. [1, 3]; got " + h.dump();
        return false;
      }
      c.lines_hidden.push_back(h.get<int>());
    }
  }
  if (j.contains("pattern")) {
    const auto p = j["pattern"].get<std::string>();
    bool found = false;
    for (auto pat : {TargetPattern::Identity, TargetPattern::PreviousToken, TargetPattern::Uniform,
                     TargetPattern::RandomStochastic, TargetPattern::HeadMap, TargetPattern::SelfVsPast,
                     TargetPattern::FirstToken})
      if (p == to_string(pat)) c.pattern = pat, found = true;
    if (!found) {
      *error = "lab.pattern: use identity, previous token, uniform, random, self vs past, first token or a head's map";
      return false;
    }
  }
  get_int("theorem_n", c.theorem_n);
  get_int("theorem_dp", c.theorem_dp);
  get_int("theorem_head", c.theorem_head);
  get_bool("theorem_causal", c.theorem_causal);
  *out = c;
  return true;
}

TheoremRequest theorem_request_of(const LabControls& c, const LabSnapshot* snapshot, std::string* key) {
  TheoremRequest t;
  t.pattern = c.pattern;
  t.n = c.theorem_n;
  t.d_p = c.theorem_dp;
  t.causal = c.theorem_causal;
  t.seed = c.seed;
  std::string k = std::to_string(int(t.pattern)) + "/" + std::to_string(t.n) + "/" + std::to_string(t.d_p) + "/" +
                  std::to_string(t.seed) + (t.causal ? "/causal" : "/full");
  if (t.pattern == TargetPattern::HeadMap && snapshot && snapshot->valid && !snapshot->layers.empty()) {
    const auto& l =
        snapshot->layers[std::min<size_t>(static_cast<size_t>(std::max(0, c.layer)), snapshot->layers.size() - 1)];
    if (!l.W.empty()) {
      const int h = std::clamp(c.theorem_head, 0, int(l.W.size()) - 1);
      t.head_map = l.W[static_cast<size_t>(h)];
      t.n = l.W[static_cast<size_t>(h)].rows;  // the head's own n
      k += "/head" + std::to_string(h) + "/v" + std::to_string(snapshot->version);
    }
  }
  if (key) *key = k;
  return t;
}

}  // namespace headroom::gui

namespace headroom::gui {

bool stored_run_from_json(const nlohmann::json& lab, std::optional<StoredRunRef>* out, std::string* error) {
  out->reset();
  if (!lab.is_object() || !lab.contains("stored_run")) return true;
  const nlohmann::json& j = lab["stored_run"];
  const std::string right =
      "expected {\"name\": \"<run name>\", \"db\": \"@results\", \"step\": <step>} (db and step optional)";
  if (!j.is_object()) {
    *error = "lab.stored_run: " + right + ", got " + j.dump();
    return false;
  }
  StoredRunRef ref;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string key = "lab.stored_run." + it.key();
    const nlohmann::json& v = it.value();
    if (it.key() == "name" || it.key() == "db") {
      if (!v.is_string() || v.get<std::string>().empty()) {
        *error = key + ": expected a non-empty string, got " + v.dump();
        return false;
      }
      (it.key() == "name" ? ref.name : ref.db) = v.get<std::string>();
    } else if (it.key() == "step") {
      if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<std::int64_t>() < 0)) {
        *error = key + ": expected a training step >= 0, got " + v.dump();
        return false;
      }
      ref.step = v.is_number_unsigned() && v.get<std::uint64_t>() > std::uint64_t(INT64_MAX) ? INT64_MAX
                                                                                             : v.get<std::int64_t>();
    } else {
      *error = key + ": unknown key; valid keys: name, db, step";
      return false;
    }
  }
  if (ref.name.empty()) {
    *error =
        "lab.stored_run.name: required: the run's name, as the explorer's table shows it (e.g. "
        "\"th-head-dims/6-24-6/seed=0\")";
    return false;
  }
  *out = std::move(ref);
  return true;
}

}  // namespace headroom::gui

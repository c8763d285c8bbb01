#include "core/io/spec_json.h"

#include <set>
#include <sstream>
#include <stdexcept>

namespace headroom::core {
namespace {

struct TermName {
  DynamicTerm bit;
  const char* name;
};
constexpr TermName kTerms[] = {{kDynamicXl, "Xl"}, {kDynamicMl, "Ml"}, {kDynamicXw, "Xw"}, {kDynamicMw, "Mw"}};

void reject_unknown(const nlohmann::json& j, const std::set<std::string>& known, const std::string& where) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (known.count(it.key())) continue;
    std::string list;
    for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
    throw std::invalid_argument(where + "." + it.key() + ": unknown key (known: " + list + ")");
  }
}

int get_int(const nlohmann::json& j, const char* key, const std::string& where, std::optional<int> fallback) {
  if (!j.contains(key)) {
    if (fallback) return *fallback;
    throw std::invalid_argument(where + "." + key + ": missing (an integer is required)");
  }
  const auto& v = j.at(key);
  if (!v.is_number_integer()) throw std::invalid_argument(where + "." + key + ": expected an integer, got " + v.dump());
  return v.get<int>();
}

bool get_bool(const nlohmann::json& j, const char* key, const std::string& where, bool fallback) {
  if (!j.contains(key)) return fallback;
  if (!j.at(key).is_boolean())
    throw std::invalid_argument(where + "." + key + ": expected true or false, got " + j.at(key).dump());
  return j.at(key).get<bool>();
}

// A key whose value is one word from a fixed set: `parse` maps the word to its value (nullopt for
// an unknown word) and `choices` ends the message for anything else ("is not a ... (use ...)").
template <typename T, typename Parse>
T get_word(const nlohmann::json& j, const char* key, const std::string& where, T fallback, Parse parse,
           const char* choices) {
  if (!j.contains(key)) return fallback;
  const auto& v = j.at(key);
  const std::optional<T> p = v.is_string() ? parse(v.template get<std::string>()) : std::nullopt;
  if (!p) throw std::invalid_argument(where + "." + key + ": " + v.dump() + " " + choices);
  return *p;
}

}  // namespace

unsigned parse_dynamic_terms(const std::string& list) {
  unsigned bits = 0;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    bool found = false;
    for (const auto& t : kTerms)
      if (item == t.name) bits |= t.bit, found = true;
    if (!found) throw std::invalid_argument("unknown dynamic projection '" + item + "' (use Xl, Ml, Xw, Mw)");
  }
  return bits;
}

std::string dynamic_terms_to_string(unsigned terms) {
  std::string out;
  for (const auto& t : kTerms)
    if (terms & t.bit) out += (out.empty() ? "" : ",") + std::string(t.name);
  return out;
}

nlohmann::json to_json(const AttentionSpec& s) {
  nlohmann::json j = {
      {"kind", to_string(s.kind)}, {"d_model", s.d_model}, {"heads_k", s.heads_k}, {"heads", s.heads},
      {"heads_v", s.heads_v},      {"d_k", s.d_k},         {"d_v", s.d_v},         {"causal", s.causal}};
  if (s.kind == AttentionKind::DynamicProj) j["dynamic"] = dynamic_terms_to_string(s.dynamic_terms);
  return j;
}

nlohmann::json to_json(const ModelSpec& s) {
  nlohmann::json j = {{"vocab", s.vocab},         {"width", s.width},
                      {"depth", s.depth},         {"embed_rank", s.embed_rank},
                      {"pos_rank", s.pos_rank},   {"context", s.context},
                      {"mlp_ratio", s.mlp_ratio}, {"attention", to_json(s.attention)}};
  // Written only when not the default, so the configs stored before the key existed stay byte-equal.
  if (s.positions != Positions::Learned) j["positions"] = std::string(to_string(s.positions));
  if (s.pos_init != PosInit::Random) j["pos_init"] = std::string(to_string(s.pos_init));
  if (s.pos_init_scale != 1.0) j["pos_init_scale"] = s.pos_init_scale;
  return j;
}

AttentionSpec attention_spec_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw std::invalid_argument(where + ": expected an object, got " + j.dump());
  reject_unknown(j, {"kind", "d_model", "heads_k", "heads", "heads_v", "d_k", "d_v", "causal", "dynamic"}, where);
  if (!j.contains("kind") || !j["kind"].is_string())
    throw std::invalid_argument(where + ".kind: missing or not a string (one of " + attention_kind_names() + ")");
  auto kind = parse_attention_kind(j["kind"].get<std::string>());
  if (!kind)
    throw std::invalid_argument(where + ".kind: unknown attention kind '" + j["kind"].get<std::string>() +
                                "' (one of " + attention_kind_names() + ")");
  AttentionRequest r;
  r.kind = *kind;
  r.d_model = get_int(j, "d_model", where, std::nullopt);
  r.heads = get_int(j, "heads", where, std::nullopt);
  if (j.contains("heads_k")) r.heads_k = get_int(j, "heads_k", where, std::nullopt);
  if (j.contains("heads_v")) r.heads_v = get_int(j, "heads_v", where, std::nullopt);
  if (j.contains("d_k")) r.d_k = get_int(j, "d_k", where, std::nullopt);
  if (j.contains("d_v")) r.d_v = get_int(j, "d_v", where, std::nullopt);
  r.causal = get_bool(j, "causal", where, false);
  if (j.contains("dynamic")) {
    if (!j["dynamic"].is_string()) throw std::invalid_argument(where + ".dynamic: expected a string like \"Xl,Mw\"");
    try {
      r.dynamic_terms = parse_dynamic_terms(j["dynamic"].get<std::string>());
    } catch (const std::exception& e) {
      throw std::invalid_argument(where + ".dynamic: " + e.what());
    }
  }
  std::vector<SpecProblem> problems;
  auto spec = make_attention_spec(r, &problems);
  if (!spec) throw std::invalid_argument(where + "." + problems.front().field + ": " + problems.front().message);
  return *spec;
}

ModelSpec model_spec_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw std::invalid_argument(where + ": expected an object, got " + j.dump());
  reject_unknown(j,
                 {"vocab", "width", "depth", "embed_rank", "pos_rank", "positions", "pos_init", "pos_init_scale",
                  "context", "mlp_ratio", "attention"},
                 where);
  ModelSpec m;
  m.vocab = get_int(j, "vocab", where, m.vocab);
  m.width = get_int(j, "width", where, std::nullopt);
  m.depth = get_int(j, "depth", where, m.depth);
  m.embed_rank = get_int(j, "embed_rank", where, 0);
  m.pos_rank = get_int(j, "pos_rank", where, 0);
  m.positions = get_word(j, "positions", where, m.positions, parse_positions,
                         "is not a kind of positions (use \"learned\" or \"none\")");
  m.pos_init = get_word(j, "pos_init", where, m.pos_init, parse_pos_init,
                        "is not a way to start the positional embedding (use \"random\" or \"zero\")");
  if (j.contains("pos_init_scale")) {
    const auto& v = j["pos_init_scale"];
    if (!v.is_number())
      throw std::invalid_argument(where +
                                  ".pos_init_scale: expected a number (the random start's scale, 1 = "
                                  "N(0, 0.02^2)), got " +
                                  v.dump());
    m.pos_init_scale = v.get<double>();
  }
  m.context = get_int(j, "context", where, m.context);
  m.mlp_ratio = get_int(j, "mlp_ratio", where, m.mlp_ratio);
  if (!j.contains("attention"))
    throw std::invalid_argument(where + ".attention: missing (an attention object is required)");
  m.attention = attention_spec_from_json(j["attention"], where + ".attention");
  auto problems = validate(m);
  if (!problems.empty())
    throw std::invalid_argument(where + "." + problems.front().field + ": " + problems.front().message);
  return m;
}

}  // namespace headroom::core

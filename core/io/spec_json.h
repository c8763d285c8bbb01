// AttentionSpec / ModelSpec <-> JSON (the DB stores run configs as JSON; the GUI saves scenes).
// Reading is strict: unknown keys and wrong types are errors naming the key and what is expected.
#pragma once

#include <nlohmann/json.hpp>

#include "core/attention/attention_spec.h"
#include "core/model/model_spec.h"

namespace headroom::core {

nlohmann::json to_json(const AttentionSpec& spec);
nlohmann::json to_json(const ModelSpec& spec);

// Throw std::invalid_argument("<where>.<key>: ...") on a missing/unknown key, a wrong type or an
// impossible spec. `where` prefixes messages (e.g. a file name and table).
AttentionSpec attention_spec_from_json(const nlohmann::json& j, const std::string& where = "attention");
ModelSpec model_spec_from_json(const nlohmann::json& j, const std::string& where = "model");

// "Xl,Mw" <-> bit set of DynamicTerm. Throws std::invalid_argument on an unknown name.
unsigned parse_dynamic_terms(const std::string& list);
std::string dynamic_terms_to_string(unsigned terms);

}  // namespace headroom::core

#include "app/worker/suite.h"

#include <toml++/toml.h>

#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace headroom::worker {
namespace {

using nlohmann::json;

json to_json_node(const toml::node& node, const std::string& where) {
  if (auto t = node.as_table()) {
    json out = json::object();
    for (auto&& [k, v] : *t) out[std::string(k.str())] = to_json_node(v, where + "." + std::string(k.str()));
    return out;
  }
  if (auto a = node.as_array()) {
    json out = json::array();
    for (auto&& v : *a) out.push_back(to_json_node(v, where));
    return out;
  }
  if (auto v = node.as_string()) return v->get();
  if (auto v = node.as_integer()) return v->get();
  if (auto v = node.as_floating_point()) return v->get();
  if (auto v = node.as_boolean()) return v->get();
  throw std::invalid_argument(where + ": dates and times have no meaning in a suite");
}

// Sets a dotted path ("model.attention.heads") inside a JSON object, creating tables.
void set_path(json& root, const std::string& path, const json& value, const std::string& where) {
  if (path.rfind("model.", 0) != 0 && path.rfind("train.", 0) != 0)
    throw std::invalid_argument(where + ": \"" + path + "\" must start with model. or train.");
  json* node = &root;
  std::stringstream ss(path);
  std::string part;
  std::vector<std::string> parts;
  while (std::getline(ss, part, '.')) parts.push_back(part);
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    if (!node->contains(parts[i])) (*node)[parts[i]] = json::object();
    node = &(*node)[parts[i]];
    if (!node->is_object()) throw std::invalid_argument(where + ": \"" + path + "\" goes through a non-table value");
  }
  (*node)[parts.back()] = value;
}

std::string value_text(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::string require_string(const json& table, const char* key, const std::string& where, bool required) {
  if (!table.contains(key)) {
    if (required) throw std::invalid_argument(where + "." + key + ": missing (a string is required)");
    return {};
  }
  if (!table[key].is_string()) throw std::invalid_argument(where + "." + key + ": expected a string, got " + table[key].dump());
  return table[key].get<std::string>();
}

}  // namespace

Suite load_suite(const std::string& path, const std::string& scale) {
  if (scale != "quick" && scale != "full")
    throw std::invalid_argument("--scale " + scale + ": use quick or full");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(path + ": cannot open the suite file (missing or unreadable)");
  std::stringstream buf;
  buf << in.rdbuf();
  Suite s;
  s.path = path;
  s.source = buf.str();
  s.scale = scale;

  json doc;
  try {
    const toml::table tbl = toml::parse(s.source, path);
    doc = to_json_node(tbl, path);
  } catch (const toml::parse_error& e) {
    std::ostringstream msg;
    msg << path << ":" << e.source().begin.line << ":" << e.source().begin.column << ": not valid TOML: "
        << e.description();
    throw std::invalid_argument(msg.str());
  }

  for (auto it = doc.begin(); it != doc.end(); ++it) {
    static const std::set<std::string> known = {"suite", "base", "scale", "grid"};
    if (!known.count(it.key()))
      throw std::invalid_argument(path + ": unknown table [" + it.key() + "] (a suite has [suite], [base], [scale.quick], [scale.full] and [[grid]])");
  }
  if (!doc.contains("suite") || !doc["suite"].is_object()) throw std::invalid_argument(path + ": missing the [suite] table");
  const json& meta = doc["suite"];
  const std::string mwhere = path + ": suite";
  for (auto it = meta.begin(); it != meta.end(); ++it) {
    static const std::set<std::string> known = {"name", "reproduces", "paper", "full_estimate", "reference", "x"};
    if (!known.count(it.key()))
      throw std::invalid_argument(mwhere + "." + it.key() + ": unknown key (known: name, reproduces, paper, full_estimate, reference, x)");
  }
  s.name = require_string(meta, "name", mwhere, true);
  s.reproduces = require_string(meta, "reproduces", mwhere, true);
  s.full_estimate = require_string(meta, "full_estimate", mwhere, true);
  s.paper = require_string(meta, "paper", mwhere, false);
  s.reference = require_string(meta, "reference", mwhere, false);
  s.x = require_string(meta, "x", mwhere, false);
  if (s.name.empty() || s.name.find('/') != std::string::npos)
    throw std::invalid_argument(mwhere + ".name: must be non-empty and contain no '/'");

  json base = doc.value("base", json::object());
  if (!base.is_object()) throw std::invalid_argument(path + ": [base] must be a table");
  if (doc.contains("scale")) {
    const json& scales = doc["scale"];
    for (auto it = scales.begin(); it != scales.end(); ++it)
      if (it.key() != "quick" && it.key() != "full")
        throw std::invalid_argument(path + ": scale." + it.key() + ": unknown scale (use quick and full)");
    if (scales.contains(scale)) {
      for (auto it = scales[scale].begin(); it != scales[scale].end(); ++it)
        set_path(base, it.key(), it.value(), path + ": scale." + scale);
    }
  }
  if (!doc.contains("grid") || !doc["grid"].is_array() || doc["grid"].empty())
    throw std::invalid_argument(path + ": no [[grid]] tables: a suite needs at least one grid of runs");

  std::set<std::string> names;
  for (size_t g = 0; g < doc["grid"].size(); ++g) {
    const json& grid = doc["grid"][g];
    const std::string gwhere = path + ": grid[" + std::to_string(g) + "]";
    const std::string label = require_string(grid, "label", gwhere, true);
    // Split into fixed values and swept lists (per-scale tables pick this scale's list).
    std::vector<std::pair<std::string, json>> fixed, swept;
    for (auto it = grid.begin(); it != grid.end(); ++it) {
      if (it.key() == "label") continue;
      json v = it.value();
      if (v.is_object() && (v.contains("quick") || v.contains("full"))) {
        for (auto k = v.begin(); k != v.end(); ++k)
          if (k.key() != "quick" && k.key() != "full")
            throw std::invalid_argument(gwhere + "." + it.key() + "." + k.key() + ": unknown scale (use quick and full)");
        if (!v.contains(scale)) throw std::invalid_argument(gwhere + "." + it.key() + ": has no " + scale + " values");
        v = v[scale];
      }
      if (v.is_array()) {
        if (v.empty()) throw std::invalid_argument(gwhere + "." + it.key() + ": an empty list makes no runs");
        swept.emplace_back(it.key(), v);
      } else {
        fixed.emplace_back(it.key(), v);
      }
    }
    std::vector<size_t> index(swept.size(), 0);
    while (true) {
      json config = base;
      for (const auto& [k, v] : fixed) set_path(config, k, v, gwhere);
      std::string name = s.name + "/" + label;
      for (size_t i = 0; i < swept.size(); ++i) {
        const auto& [k, list] = swept[i];
        set_path(config, k, list[index[i]], gwhere);
        name += (i == 0 ? "/" : ",") + k.substr(k.rfind('.') + 1) + "=" + value_text(list[index[i]]);
      }
      if (!names.insert(name).second) throw std::invalid_argument(gwhere + ": run name " + name + " appears twice");
      SuiteRun run;
      run.name = name;
      run.parsed = run_config_from_json(config, path + ": run '" + name + "'");
      run.config = to_json(run.parsed);
      run.shard_key = static_cast<int64_t>(s.runs.size());
      s.runs.push_back(std::move(run));
      // Next combination (odometer).
      size_t i = 0;
      while (i < swept.size() && ++index[i] == swept[i].second.size()) index[i++] = 0;
      if (i == swept.size()) break;
    }
  }
  return s;
}

}  // namespace headroom::worker

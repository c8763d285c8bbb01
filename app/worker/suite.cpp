#include "app/worker/suite.h"

#include <toml++/toml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/io/install_paths.h"
#include "core/io/toml_read.h"
#include "core/io/toml_shield.h"

namespace headroom::worker {
namespace {

using nlohmann::json;

json to_json_node(const toml::node& node, const std::string& where) {
  if (auto t = node.as_table()) {
    json out = json::object();
    for (auto&& [k, v] : *t) {
      const std::string key = io::unshield_toml_string(k.str());
      out[key] = to_json_node(v, where + "." + key);
    }
    return out;
  }
  if (auto a = node.as_array()) {
    json out = json::array();
    for (auto&& v : *a) out.push_back(to_json_node(v, where));
    return out;
  }
  if (auto v = node.as_string()) return io::unshield_toml_string(v->get());
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

bool is_scale_name(const std::string& s) { return s == "quick" || s == "full" || s == "paper"; }

// A grid value given per scale: a table whose keys are all scale names ({ quick = ..., full = ... }).
bool is_per_scale(const json& v) {
  if (!v.is_object() || v.empty()) return false;
  for (auto it = v.begin(); it != v.end(); ++it)
    if (it.key() == "quick" || it.key() == "full" || it.key() == "paper") return true;
  return false;
}

std::string value_text(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::string require_string(const json& table, const char* key, const std::string& where, bool required) {
  if (!table.contains(key)) {
    if (required) throw std::invalid_argument(where + "." + key + ": missing (a string is required)");
    return {};
  }
  if (!table[key].is_string())
    throw std::invalid_argument(where + "." + key + ": expected a string, got " + table[key].dump());
  return table[key].get<std::string>();
}

// [[match]] tables: groups of runs the file says are compared at equal parameters (every
// parameter: embeddings, blocks, head), within a relative tolerance (max / min - 1).
std::vector<ParamMatch> parse_matches(const json& doc, const std::string& path, const Suite& s) {
  std::vector<ParamMatch> out;
  if (!doc.contains("match")) return out;
  if (!doc["match"].is_array()) throw std::invalid_argument(path + ": match must be an array of tables ([[match]])");
  std::map<std::string, const SuiteRun*> by_name;
  for (const SuiteRun& r : s.runs) by_name[r.name.substr(s.name.size() + 1)] = &r;
  for (size_t m = 0; m < doc["match"].size(); ++m) {
    const json& t = doc["match"][m];
    const std::string where = path + ": match[" + std::to_string(m) + "]";
    if (!t.is_object()) throw std::invalid_argument(where + ": must be a table ([[match]])");
    for (auto it = t.begin(); it != t.end(); ++it)
      if (it.key() != "tolerance" && it.key() != "note" && !is_scale_name(it.key()))
        throw std::invalid_argument(where + "." + it.key() +
                                    ": unknown key (known: tolerance, note, quick, full, paper)");
    if (!t.contains("tolerance") || !t["tolerance"].is_number())
      throw std::invalid_argument(where +
                                  ".tolerance: missing (a number: the relative spread max/min - 1 allowed, e.g. 0.02)");
    const double tol = t["tolerance"].get<double>();
    if (!(tol >= 0 && tol < 1))
      throw std::invalid_argument(where + ".tolerance: " + t["tolerance"].dump() + " must be in [0, 1) (0.02 = 2%)");
    const std::string note = t.contains("note") && t["note"].is_string() ? t["note"].get<std::string>() : "";
    if (t.contains("note") && !t["note"].is_string()) throw std::invalid_argument(where + ".note: expected a string");
    bool any_scale = false;
    for (const std::string& sc : suite_scales()) any_scale = any_scale || t.contains(sc);
    if (!any_scale)
      throw std::invalid_argument(where + ": names no runs (give quick, full or paper: a list of groups of run names)");
    if (!t.contains(s.scale)) continue;  // no claim at this scale
    const json& groups = t[s.scale];
    const std::string swhere = where + "." + s.scale;
    if (!groups.is_array() || groups.empty())
      throw std::invalid_argument(swhere +
                                  ": expected a list of groups, each a list of run names (\"label/key=value,...\")");
    for (size_t g = 0; g < groups.size(); ++g) {
      const json& group = groups[g];
      const std::string gw = swhere + "[" + std::to_string(g) + "]";
      if (!group.is_array() || group.size() < 2)
        throw std::invalid_argument(gw + ": a group is a list of at least two run names");
      ParamMatch pm;
      pm.tolerance = tol;
      pm.note = note;
      for (const json& n : group) {
        if (!n.is_string()) throw std::invalid_argument(gw + ": run names are strings, got " + n.dump());
        const auto it = by_name.find(n.get<std::string>());
        if (it == by_name.end())
          throw std::invalid_argument(
              gw + ": no run \"" + n.get<std::string>() + "\" at scale " + s.scale +
              " (names are <label>/<key>=<value>,... without the suite name; `run FILE --scale " + s.scale +
              " --dry-run` lists them)");
        pm.runs.push_back(it->second->name);
        pm.params.push_back(core::parameter_count(it->second->parsed.model));
      }
      const auto [lo, hi] = std::minmax_element(pm.params.begin(), pm.params.end());
      const double spread = static_cast<double>(*hi) / static_cast<double>(*lo) - 1.0;
      if (spread > tol) {
        const auto i_lo = static_cast<size_t>(lo - pm.params.begin()),
                   i_hi = static_cast<size_t>(hi - pm.params.begin());
        std::ostringstream msg;
        msg.precision(3);
        msg << gw << ": claimed equal parameters, but " << pm.runs[i_hi] << " has " << *hi << " and " << pm.runs[i_lo]
            << " has " << *lo << " (" << spread * 100 << "% apart; the file allows " << tol * 100 << "%)";
        throw std::invalid_argument(msg.str());
      }
      out.push_back(std::move(pm));
    }
  }
  return out;
}

}  // namespace

const std::vector<std::string>& suite_scales() {
  static const std::vector<std::string> all = {"quick", "full", "paper"};
  return all;
}

std::string resolve_suite_path(const std::string& given) {
  std::error_code ec;
  if (given.find('/') != std::string::npos || std::filesystem::exists(given, ec)) return given;
  const std::string dir = io::share_dir() + "/suites/";
  for (const std::string& candidate : {dir + given, dir + given + ".toml"})
    if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
  return given;
}

Suite load_suite(const std::string& given, const std::string& scale) {
  if (!is_scale_name(scale)) throw std::invalid_argument("--scale " + scale + ": use quick, full or paper");
  const std::string path = resolve_suite_path(given);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw std::invalid_argument(path + ": is a folder; give a suite file (a .toml such as " + io::share_dir() +
                                "/suites/lrb_heads.toml) or the name of a shipped suite");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::invalid_argument(path +
                                ": cannot open the suite file (missing or unreadable); give a path, or the name " +
                                "of a shipped suite in " + io::share_dir() + "/suites (e.g. lrb_heads)");
  std::stringstream buf;
  buf << in.rdbuf();
  return parse_suite(buf.str(), path, scale);
}

Suite parse_suite(const std::string& text, const std::string& path, const std::string& scale) {
  if (!is_scale_name(scale)) throw std::invalid_argument("--scale " + scale + ": use quick, full or paper");
  Suite s;
  s.path = path;
  s.source = text;
  s.scale = scale;

  // Debian's toml++ reaches __builtin_unreachable() on some non-ASCII code points outside strings
  // (core/io/toml_shield.h): it parses a shielded copy.
  std::string why;
  const auto tbl = io::parse_toml_shielded(s.source, path, "suite file", &why);
  if (!tbl) throw std::invalid_argument(why);
  json doc = to_json_node(*tbl, path);

  for (auto it = doc.begin(); it != doc.end(); ++it) {
    static const std::set<std::string> known = {"suite", "base", "scale", "grid", "match"};
    if (!known.count(it.key()))
      throw std::invalid_argument(
          path + ": unknown table [" + it.key() +
          "] (a suite has [suite], [base], [scale.quick], [scale.full], [scale.paper], [[grid]] "
          "and [[match]])");
  }
  if (!doc.contains("suite") || !doc["suite"].is_object())
    throw std::invalid_argument(path + ": missing the [suite] table");
  const json& meta = doc["suite"];
  const std::string mwhere = path + ": suite";
  for (auto it = meta.begin(); it != meta.end(); ++it) {
    static const std::set<std::string> known = {"name", "reproduces", "paper", "full_estimate", "reference", "x"};
    if (!known.count(it.key()))
      throw std::invalid_argument(mwhere + "." + it.key() +
                                  ": unknown key (known: name, reproduces, paper, full_estimate, reference, x)");
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
    if (!scales.is_object())
      throw std::invalid_argument(path + ": scale must be tables [scale.quick], [scale.full], [scale.paper]");
    for (auto it = scales.begin(); it != scales.end(); ++it)
      if (!is_scale_name(it.key()))
        throw std::invalid_argument(path + ": scale." + it.key() + ": unknown scale (use quick, full and paper)");
    if (scales.contains(scale)) {
      for (auto it = scales[scale].begin(); it != scales[scale].end(); ++it)
        set_path(base, it.key(), it.value(), path + ": scale." + scale);
    }
  }
  if (!doc.contains("grid") || !doc["grid"].is_array() || doc["grid"].empty())
    throw std::invalid_argument(path + ": no [[grid]] tables: a suite needs at least one grid of runs");

  // The paper scale is optional per suite: say in one message everything a suite lacks for it.
  if (scale == "paper") {
    std::vector<std::string> missing;
    if (!doc.contains("scale") || !doc["scale"].contains("paper")) missing.push_back("no [scale.paper] table");
    for (size_t g = 0; g < doc["grid"].size(); ++g) {
      const json& grid = doc["grid"][g];
      if (!grid.is_object()) continue;  // reported below
      std::string keys;
      for (auto it = grid.begin(); it != grid.end(); ++it)
        if (is_per_scale(it.value()) && !it.value().contains("paper")) keys += (keys.empty() ? "" : ", ") + it.key();
      if (!keys.empty())
        missing.push_back("grid[" + std::to_string(g) + "] (label \"" +
                          (grid.contains("label") ? value_text(grid["label"]) : std::string("?")) +
                          "\") has no paper value for " + keys);
    }
    if (!missing.empty()) {
      std::string msg = path + ": --scale paper: this suite has no paper scale: ";
      for (size_t i = 0; i < missing.size(); ++i) msg += (i ? "; " : "") + missing[i];
      throw std::invalid_argument(msg +
                                  " (give every per-scale value a paper = ... entry, or run it at quick or full)");
    }
  }

  std::set<std::string> names;
  for (size_t g = 0; g < doc["grid"].size(); ++g) {
    const json& grid = doc["grid"][g];
    const std::string gwhere = path + ": grid[" + std::to_string(g) + "]";
    if (!grid.is_object()) throw std::invalid_argument(gwhere + ": must be a table ([[grid]])");
    const std::string label = require_string(grid, "label", gwhere, true);
    if (label.empty() || label.find('/') != std::string::npos)
      throw std::invalid_argument(gwhere + ".label: must be non-empty and contain no '/'");
    // Split into fixed values and swept lists (per-scale tables pick this scale's list).
    std::vector<std::pair<std::string, json>> fixed, swept;
    for (auto it = grid.begin(); it != grid.end(); ++it) {
      if (it.key() == "label") continue;
      json v = it.value();
      if (is_per_scale(v)) {
        for (auto k = v.begin(); k != v.end(); ++k)
          if (!is_scale_name(k.key()))
            throw std::invalid_argument(gwhere + "." + it.key() + "." + k.key() +
                                        ": unknown scale (use quick, full and paper)");
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
    // The runs this grid expands to, checked before any is made: a few lines of lists can multiply
    // into more runs than a worker could hold or train.
    size_t grid_runs = 1;
    std::string sizes;
    for (const auto& [k, list] : swept) {
      grid_runs = std::min(grid_runs * list.size(), kMaxSuiteRuns + 1);
      sizes += (sizes.empty() ? "" : " x ") + std::to_string(list.size());
    }
    if (s.runs.size() + grid_runs > kMaxSuiteRuns)
      throw std::invalid_argument(gwhere + ": " + (sizes.empty() ? "1" : sizes) + " values make the suite more than " +
                                  std::to_string(kMaxSuiteRuns) + " runs; split it into several suites");
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
      if (config.contains("train") && config["train"].is_object() && config["train"].contains("device"))
        throw std::invalid_argument(path + ": run '" + name +
                                    "': train.device: where runs train is each worker's choice (--device on run "
                                    "and serve), not the suite's; remove it");
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
  s.matches = parse_matches(doc, path, s);
  // What the explorer's figure reads must be there: its x is a field of the runs' configs, its
  // reference a table of the papers' figures (a slip left the figure empty, without a word).
  if (!s.x.empty()) {
    auto has_path = [&](const json& config) {
      const json* at = &config;
      std::stringstream parts(s.x);
      for (std::string part; std::getline(parts, part, '.');) {
        if (!at->is_object() || !at->contains(part)) return false;
        at = &(*at)[part];
      }
      return true;
    };
    const bool found = std::any_of(s.runs.begin(), s.runs.end(), [&](const SuiteRun& r) {
      return has_path(r.config) || has_path(to_json(r.parsed));
    });
    if (!found)
      throw std::invalid_argument(mwhere + ".x: " + s.x +
                                  " is a field of no run's config; give one such as model.attention.heads, "
                                  "model.attention.d_k or model.width");
  }
  if (!s.reference.empty()) {
    std::error_code ec;
    const std::string file = io::share_dir() + "/reference/" + s.reference;
    if (!std::filesystem::is_regular_file(file, ec))
      throw std::invalid_argument(mwhere + ".reference: " + file +
                                  " does not exist; give a file of assets/reference/ (e.g. lrb_bert.csv) or leave "
                                  "reference out");
  }
  return s;
}

}  // namespace headroom::worker

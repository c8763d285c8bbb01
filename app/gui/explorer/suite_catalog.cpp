#include "app/gui/explorer/suite_catalog.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/io/toml_read.h"
#include "core/io/toml_shield.h"

namespace headroom::explorer {
namespace {

bool is_scale_key(const toml::key& k) {
  const std::string key = io::unshield_toml_string(k.str());
  return std::find_if(kSuiteScales.begin(), kSuiteScales.end(), [&](const char* s) { return key == s; }) !=
         kSuiteScales.end();
}

// As the worker reads a grid value: a table with any scale name as a key gives one list (or value)
// per scale.
bool is_per_scale(const toml::node& v) {
  const toml::table* t = v.as_table();
  return t != nullptr && std::any_of(t->begin(), t->end(), [](const auto& kv) { return is_scale_key(kv.first); });
}

// The runs `grid` makes at `scale`: the product of its lists' lengths; -1 where a per-scale value
// lacks the scale or a list is empty (the worker refuses both).
long grid_runs(const toml::table& grid, const char* scale) {
  long runs = 1;
  for (const auto& [key, value] : grid) {
    if (io::unshield_toml_string(key.str()) == "label") continue;
    const toml::node* v = &value;
    if (is_per_scale(*v)) {
      v = v->as_table()->get(scale);
      if (v == nullptr) return -1;
    }
    if (const toml::array* list = v->as_array()) {
      if (list->empty()) return -1;
      runs = std::min(runs * static_cast<long>(list->size()), 1L << 30);
    }
  }
  return runs;
}

}  // namespace

SuiteInfo parse_suite_info(const std::string& text, const std::string& path) {
  SuiteInfo info;
  info.path = path;
  info.stem = std::filesystem::path(path).stem().string();
  const auto doc = io::parse_toml_shielded(text, path, "suite file", &info.error);
  if (!doc) return info;
  const toml::table* suite = (*doc)["suite"].as_table();
  if (suite == nullptr) {
    info.error = path + ": no [suite] table";
    return info;
  }
  info.name = io::toml_string((*suite)["name"]);
  info.paper = io::toml_string((*suite)["paper"]);
  info.reproduces = io::toml_string((*suite)["reproduces"]);
  info.full_estimate = io::toml_string((*suite)["full_estimate"]);
  const toml::array* grids = (*doc)["grid"].as_array();
  if (grids == nullptr || grids->empty()) {
    info.error = path + ": no [[grid]] tables";
    return info;
  }
  for (size_t s = 0; s < kSuiteScales.size(); ++s) {
    const char* scale = kSuiteScales[s];
    // Only the paper scale is optional as a whole: quick and full apply the file's values as they are.
    if (std::string(scale) == "paper" && !(*doc)["scale"]["paper"].is_table()) continue;
    long total = 0;
    for (const toml::node& g : *grids) {
      const toml::table* grid = g.as_table();
      const long runs = grid == nullptr ? -1 : grid_runs(*grid, scale);
      if (runs < 0) {
        total = -1;
        break;
      }
      total = std::min(total + runs, 1L << 30);
    }
    info.runs[s] = static_cast<int>(total);
  }
  return info;
}

std::vector<SuiteInfo> list_suite_infos(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().extension() == ".toml") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  std::vector<SuiteInfo> out;
  for (const std::string& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) {
      SuiteInfo info;
      info.path = f;
      info.stem = std::filesystem::path(f).stem().string();
      info.error = f + ": cannot be read";
      out.push_back(std::move(info));
      continue;
    }
    out.push_back(parse_suite_info(text.str(), f));
  }
  return out;
}

std::string estimate_headline(const std::string& full_estimate) {
  const size_t paren = full_estimate.find(" (");
  return paren == std::string::npos ? full_estimate : full_estimate.substr(0, paren);
}

}  // namespace headroom::explorer

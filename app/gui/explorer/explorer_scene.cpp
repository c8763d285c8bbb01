#include "app/gui/explorer/explorer_scene.h"

#include <algorithm>
#include <map>
#include <set>

#include "app/gui/explorer/data_paths.h"
#include "core/io/install_paths.h"

namespace headroom::gui {

bool parse_explorer_scene(const nlohmann::json& j, ExplorerScene* out, std::string* error) {
  if (!j.is_object()) return *error = "explorer: expected an object", false;
  static const std::set<std::string> kKeys = {"db",     "select",       "metric",   "x",         "log_y", "tab",
                                              "filter", "figure",       "figure_x", "smoothing", "group", "open_in_lab",
                                              "export", "bench_select", "pin"};
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!kKeys.count(it.key())) {
      *error = "explorer." + it.key() +
               ": unknown key (known: db, select, metric, x, log_y, tab, filter, figure, figure_x, smoothing, group, "
               "open_in_lab, export, bench_select, pin)";
      return false;
    }
  auto text = [&](const char* key, std::string* into) {
    if (!j.contains(key)) return true;
    if (!j[key].is_string()) {
      *error = std::string("explorer.") + key + ": expected a string, got " + j[key].dump();
      return false;
    }
    *into = j[key].get<std::string>();
    return true;
  };
  ExplorerScene s;
  std::string x = "step", tab = "curves", smoothing = "none", group = "none", figure_x = "default";
  if (!text("db", &s.db) || !text("open_in_lab", &s.open_in_lab) || !text("export", &s.export_stem) ||
      !text("metric", &s.metric) || !text("x", &x) || !text("tab", &tab) || !text("filter", &s.filter) ||
      !text("figure", &s.figure) || !text("smoothing", &smoothing) || !text("group", &group) ||
      !text("figure_x", &figure_x))
    return false;
  if (const auto known = explorer::figure_suites();
      !s.figure.empty() && std::find(known.begin(), known.end(), s.figure) == known.end()) {
    std::string list;
    for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
    return *error = "explorer.figure: \"" + s.figure +
                    "\" is not a paper figure (a suite's name as its [suite] says, e.g. " +
                    "\"lrb-heads\"; known: " + list + ")",
           false;
  }
  const std::map<std::string, explorer::FigureAxis> figure_axes = {{"default", explorer::FigureAxis::Default},
                                                                   {"suite", explorer::FigureAxis::SuiteKey},
                                                                   {"parameters", explorer::FigureAxis::Parameters}};
  const std::map<std::string, explorer::XAxis> axes = {{"step", explorer::XAxis::Step},
                                                       {"tokens", explorer::XAxis::Tokens},
                                                       {"time", explorer::XAxis::TrainSeconds},
                                                       {"relative", explorer::XAxis::RelativeHours}};
  const std::map<std::string, ExplorerTab> tabs = {{"curves", ExplorerTab::Curves},
                                                   {"figures", ExplorerTab::Figures},
                                                   {"run", ExplorerTab::Run},
                                                   {"compare", ExplorerTab::Compare}};
  const std::map<std::string, Smoothing> smooth = {
      {"none", Smoothing::None}, {"ema", Smoothing::Ema}, {"moving-average", Smoothing::MovingAverage}};
  if (!figure_axes.count(figure_x)) return *error = "explorer.figure_x: use default, suite or parameters", false;
  if (!axes.count(x)) return *error = "explorer.x: use step, tokens, time or relative", false;
  if (!tabs.count(tab)) return *error = "explorer.tab: use curves, compare, figures or run", false;
  if (!smooth.count(smoothing)) return *error = "explorer.smoothing: use none, ema or moving-average", false;
  if (group != "none" && group != "seeds") return *error = "explorer.group: use none or seeds", false;
  s.figure_x = figure_axes.at(figure_x);
  s.x = axes.at(x);
  s.tab = tabs.at(tab);
  s.smoothing = smooth.at(smoothing);
  s.grouping = group == "seeds" ? Grouping::SeedsOnly : Grouping::None;
  if (j.contains("bench_select")) {  // --bench-frames: after the timed re-open, select this many other runs at once
    if (!j["bench_select"].is_number_integer() || j["bench_select"].get<int>() < 1)
      return *error = "explorer.bench_select: expected a number of runs (1 or more)", false;
    s.bench_select = j["bench_select"].get<int>();
  }
  if (j.contains("log_y")) {
    if (!j["log_y"].is_boolean()) return *error = "explorer.log_y: expected true or false", false;
    s.log_y = j["log_y"].get<bool>();
  }
  if (j.contains("select")) {
    if (!j["select"].is_array()) return *error = "explorer.select: expected a list of run names", false;
    s.select.emplace();
    for (const auto& n : j["select"]) {
      if (!n.is_string()) return *error = "explorer.select: expected run names (strings), got " + n.dump(), false;
      s.select->push_back(n.get<std::string>());
    }
  }
  if (j.contains("pin")) {  // [["A run", "B run"], ...]: comparisons pinned on the Compare tab
    const char* what =
        "explorer.pin: expected a list of [A run, B run] pairs of run names, e.g. [[\"s/a/seed=0\", "
        "\"s/b/seed=0\"]], got ";
    if (!j["pin"].is_array()) return *error = what + j["pin"].dump(), false;
    for (const auto& pair : j["pin"]) {
      if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string())
        return *error = what + pair.dump(), false;
      s.pins.push_back({pair[0].get<std::string>(), pair[1].get<std::string>()});
    }
  }
  if (std::string why; !s.db.empty() && explorer::resolve_db_name(s.db, &why).empty())
    return *error = "explorer.db: " + why, false;
  *out = std::move(s);
  return true;
}

}  // namespace headroom::gui

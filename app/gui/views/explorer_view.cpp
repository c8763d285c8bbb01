// The explorer's shell: opening DBs, the run table, the worker bar, scene / state / benchmark.
// The tab panels (curves, figures, run details) are in explorer_panels.cpp.
#include "app/gui/views/explorer_view.h"

#include <imgui.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "app/gui/explorer/data_paths.h"
#include "app/gui/gui_options.h"
#include "app/gui/settings.h"

namespace headroom::gui {
namespace {

const ImVec4 kProblem(1.0f, 0.45f, 0.40f, 1.0f);
constexpr size_t kMaxRecent = 8;
constexpr size_t kDefaultSelection = 12;

void tooltip(const char* text) {
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text);
}

std::string assets_dir() {
  if (const char* env = std::getenv("HEADROOM_ASSETS"); env != nullptr && env[0] != '\0') return env;
  return HEADROOM_ASSETS_DIR;
}

std::string format_number(double v, const char* fmt) {
  if (!std::isfinite(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string human_count(std::int64_t v) {
  char buf[32];
  if (v >= 1000000) std::snprintf(buf, sizeof buf, "%.2fM", static_cast<double>(v) / 1e6);
  else if (v >= 10000) std::snprintf(buf, sizeof buf, "%.1fk", static_cast<double>(v) / 1e3);
  else std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  return buf;
}

ImVec4 status_color(db::RunStatus s) {
  switch (s) {
    case db::RunStatus::Queued: return ImVec4(0.6f, 0.6f, 0.6f, 1.0f);
    case db::RunStatus::Running: return ImVec4(0.35f, 0.65f, 1.0f, 1.0f);
    case db::RunStatus::Done: return ImVec4(0.40f, 0.80f, 0.45f, 1.0f);
    case db::RunStatus::Failed: return kProblem;
    case db::RunStatus::Cancelled: return ImVec4(0.85f, 0.70f, 0.30f, 1.0f);
  }
  return ImVec4(1, 1, 1, 1);
}

nlohmann::json load_recent(const std::string& dir) {
  std::ifstream in(dir + "/recent_dbs.json");
  if (!in) return nlohmann::json::array();
  const auto j = nlohmann::json::parse(in, nullptr, false);
  return j.is_array() ? j : nlohmann::json::array();
}

}  // namespace

ExplorerView::ExplorerView(ViewContext& context) : context_(context), assets_dir_(assets_dir()) {
  std::snprintf(export_path_, sizeof export_path_, "%s", "headroom-curves");
  // With --db the loader starts reading while the window is still being created.
  if (context_.options && !context_.options->db_path.empty()) {
    open_db(context_.options->db_path);
    started_ = true;
  }
}

ExplorerView::~ExplorerView() = default;

void ExplorerView::open_db(std::string path, bool create) {
  loader_ = std::make_unique<explorer::ExplorerLoader>(path, 0.25, create);
  std::snprintf(path_buffer_, sizeof path_buffer_, "%s", path.c_str());
  rows_.reset();
  curves_.reset();
  shown_.clear();
  selected_.clear();
  focused_ = -1;
  selection_defaulted_ = false;
  frames_with_rows_ = 0;
  filtered_version_ = 0;
  figures_.clear();
  figures_version_ = 0;
  zoom_steps_.reset();
  run_wanted_ = {};
  replay_step_ = -1;
  weights_index_ = -1;
  opened_at_ = Clock::now();
  open_to_full_draw_ms_ = -1;
}

void ExplorerView::ensure_started() {
  if (started_) return;
  started_ = true;
  const bool automation = context_.options && context_.options->automation();
  if (!automation && !context_.config_dir.empty())
    for (const auto& p : load_recent(context_.config_dir))
      if (p.is_string()) recent_.push_back(p.get<std::string>());
  for (const auto& p : recent_) {
    struct stat st {};
    if (stat(p.c_str(), &st) == 0) {
      open_db(p);
      return;
    }
  }
  // First launch (or the last DB is gone): the user's own experiments DB in their data dir.
  // Scripted runs do this too (tests point XDG_DATA_HOME at a scratch dir), but never read
  // the recent list, so they stay hermetic.
  const std::string path = explorer::default_db_path();
  if (path.empty()) return;
  std::string error;
  if (!ensure_dir(std::filesystem::path(path).parent_path().string(), &error)) {
    worker_message_ = error;
    return;
  }
  open_db(path, /*create=*/true);  // the loader creates it, off the UI thread; a failure shows as the DB's error
}

void ExplorerView::remember_recent(const std::string& path) {
  if (context_.options && context_.options->automation()) return;
  recent_.erase(std::remove(recent_.begin(), recent_.end(), path), recent_.end());
  recent_.insert(recent_.begin(), path);
  if (recent_.size() > kMaxRecent) recent_.resize(kMaxRecent);
  std::string error;
  if (context_.config_dir.empty() || !ensure_dir(context_.config_dir, &error)) return;
  std::ofstream(context_.config_dir + "/recent_dbs.json") << nlohmann::json(recent_).dump(2) << "\n";
}

const explorer::RunRow* ExplorerView::find_row(std::int64_t id) const {
  if (!rows_) return nullptr;
  const auto& rows = rows_->rows;
  auto it = std::lower_bound(rows.begin(), rows.end(), id, [](const explorer::RunRow& r, std::int64_t v) { return r.id < v; });
  return it != rows.end() && it->id == id ? &*it : nullptr;
}

std::string ExplorerView::short_name(const explorer::RunRow& row) const {
  if (!row.suite.empty() && row.name.rfind(row.suite + "/", 0) == 0) return row.name.substr(row.suite.size() + 1);
  return row.name;
}

void ExplorerView::sync() {
  if (!loader_) return;
  auto rows = loader_->rows();
  const bool rows_changed = rows != rows_;
  rows_ = rows;
  if (rows_changed && rows_->open && rows_->version == 1) remember_recent(loader_->db_path());

  const std::string filter_text = filter_buffer_;
  if (filter_text != filter_text_) {
    filter_text_ = filter_text;
    filter_error_.clear();
    filter_ = explorer::parse_run_filter(filter_text_, &filter_error_);
    filtered_version_ = 0;
  }
  if (rows_->version != filtered_version_ || sort_dirty_) {
    filtered_version_ = rows_->version;
    sort_dirty_ = false;
    shown_.clear();
    for (const auto& r : rows_->rows)
      if (!filter_ || explorer::matches(*filter_, r)) shown_.push_back(&r);
    explorer::sort_rows(shown_, sort_column_, sort_ascending_);
  }
  // What to show first: the runs named by a scene, else the newest suite's runs.
  if (!selection_defaulted_ && !rows_->rows.empty()) {
    selection_defaulted_ = true;
    if (!scene_select_.empty()) {
      for (const auto& r : rows_->rows)
        if (std::find(scene_select_.begin(), scene_select_.end(), r.name) != scene_select_.end()) selected_.insert(r.id);
    } else {
      const std::string& newest_suite = rows_->rows.back().suite;
      for (auto it = rows_->rows.rbegin(); it != rows_->rows.rend() && selected_.size() < kDefaultSelection; ++it)
        if (it->suite == newest_suite) selected_.insert(it->id);
    }
    if (!selected_.empty()) focused_ = *selected_.begin();
  }

  // A scene's "open_in_lab": that run's last stored weights, as the Run tab's button does.
  if (!scene_open_in_lab_.empty() && rows_->open && !rows_->rows.empty()) {
    for (const auto& r : rows_->rows)
      if (r.name == scene_open_in_lab_) {
        context_.open_in_lab = StoredCheckpoint{loader_->db_path(), r.id, r.name, r.tokenizer, r.step};
        context_.select_view = "Lab";
      }
    if (!context_.open_in_lab) worker_message_ = "scene: no run named " + scene_open_in_lab_ + " in this database";
    scene_open_in_lab_.clear();
  }

  // The curves the Curves tab needs: each selected run's whole curve (also the map from x back
  // to steps) and, when zoomed, its zoomed window at full resolution.
  std::vector<explorer::CurveKey> keys;
  for (std::int64_t id : selected_) {
    if (!find_row(id)) continue;
    keys.push_back({id, metric_, x_axis_, std::nullopt, buckets_});
    if (zoom_steps_) keys.push_back({id, metric_, x_axis_, zoom_steps_, buckets_});
  }
  std::sort(keys.begin(), keys.end());
  if (keys != curves_wanted_) {
    curves_wanted_ = keys;
    loader_->want(keys);
    refetch_started_ = Clock::now();
    refetch_pending_ = true;
  }
  curves_ = loader_->curves();
  const bool all_here = curves_->complete && std::all_of(curves_wanted_.begin(), curves_wanted_.end(), [&](const explorer::CurveKey& k) {
    return curves_->curves.count(k) > 0;
  });
  if (refetch_pending_ && all_here) {
    refetch_pending_ = false;
    if (zoom_steps_) refetch_ms_.push_back(std::chrono::duration<double, std::milli>(Clock::now() - refetch_started_).count());
  }
}

void ExplorerView::draw() {
  ensure_started();
  worker_.poll();
  if (!worker_.running() && !queued_commands_.empty()) {
    auto args = std::move(queued_commands_.front());
    queued_commands_.pop_front();
    start_worker_command(std::move(args));
  }
  sync();
  draw_toolbar();
  if (!loader_) {
    ImGui::TextWrapped("No experiments database is open. Type a path above and press Open, or start the GUI with "
                       "--db FILE. `headroom-worker run assets/suites/<suite>.toml --db FILE` makes one.");
    return;
  }
  if (!rows_ || (!rows_->open && rows_->error.empty())) {
    ImGui::TextDisabled("Opening %s ...", loader_->db_path().c_str());
    return;
  }
  if (!rows_->error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, kProblem);
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(rows_->error.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
    ImGui::TextDisabled("The file was not modified. Open another experiments DB above.");
    if (!rows_->open) return;
  }
  draw_worker_bar();
  if (rows_->rows.empty()) {
    ImGui::Spacing();
    ImGui::TextWrapped("This database has no runs yet. Enqueue a suite above (quick scale: a minute or two on two "
                       "cores) and start a worker; runs appear here as the worker writes them.");
    if (ImGui::Button("Run every quick suite")) {
      for (const auto& file : suite_files()) enqueue_suite(file, "quick");
      queued_commands_.push_back({"serve", "--db", loader_->db_path()});
    }
    tooltip(("Enqueues the " + std::to_string(suite_files().size()) +
             " suites of assets/suites at quick scale, then starts `headroom-worker serve`.").c_str());
    return;
  }
  ++frames_with_rows_;
  const float table_h = std::max(120.0f, ImGui::GetContentRegionAvail().y * 0.38f);
  ImGui::BeginChild("##runs", ImVec2(0, table_h), false);
  draw_table();
  ImGui::EndChild();

  if (ImGui::BeginTabBar("##explorer_tabs")) {
    const ExplorerTab tabs[] = {ExplorerTab::Curves, ExplorerTab::Figures, ExplorerTab::Run};
    const char* labels[] = {"Curves", "Paper figures", "Run"};
    for (int i = 0; i < 3; ++i) {
      const ImGuiTabItemFlags flags = select_tab_ == i ? ImGuiTabItemFlags_SetSelected : 0;
      if (ImGui::BeginTabItem(labels[i], nullptr, flags)) {
        if (select_tab_ < 0) tab_ = tabs[i];
        if (tabs[i] == ExplorerTab::Curves) draw_curves();
        if (tabs[i] == ExplorerTab::Figures) draw_figures();
        if (tabs[i] == ExplorerTab::Run) draw_run();
        ImGui::EndTabItem();
      }
    }
    select_tab_ = -1;
    ImGui::EndTabBar();
  }
  if (open_to_full_draw_ms_ < 0 && settled()) {
    open_to_full_draw_ms_ = std::chrono::duration<double, std::milli>(Clock::now() - opened_at_).count();
    // Benchmark: the first open also paid for the window and fonts. Open the DB again, as
    // "Open" in a running window does, and time that (the figure the README reports).
    if (context_.options && context_.options->bench_frames > 0 && startup_to_full_draw_ms_ < 0) {
      startup_to_full_draw_ms_ = open_to_full_draw_ms_;
      std::vector<std::string> keep;  // the same runs selected again
      for (std::int64_t id : selected_)
        if (const explorer::RunRow* r = find_row(id)) keep.push_back(r->name);
      open_db(loader_->db_path());
      scene_select_ = std::move(keep);
    }
  }
}

void ExplorerView::draw_toolbar() {
  ImGui::SetNextItemWidth(std::max(200.0f, ImGui::GetContentRegionAvail().x * 0.45f));
  if (context_.request_open_db) {  // File > Open experiments DB...
    ImGui::SetKeyboardFocusHere();
    context_.request_open_db = false;
  }
  const bool enter = ImGui::InputTextWithHint("##db_path", "experiments database (.sqlite)", path_buffer_, sizeof path_buffer_,
                                              ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  if (ImGui::Button("Open") || enter) open_db(path_buffer_);
  tooltip("Opens the file read-only. A file that is not a Headroom experiments DB is explained and left untouched.");
  ImGui::SameLine();
  if (ImGui::BeginCombo("##recent", "Recent", ImGuiComboFlags_NoPreview)) {
    if (recent_.empty()) ImGui::TextDisabled("(none yet)");
    for (const auto& p : recent_)
      if (ImGui::Selectable(p.c_str())) open_db(p);
    ImGui::EndCombo();
  }
  tooltip("Recently opened databases");
  if (loader_ && rows_ && rows_->open) {
    ImGui::SameLine();
    std::size_t running = 0, done = 0;
    for (const auto& r : rows_->rows) {
      running += r.status == db::RunStatus::Running;
      done += r.status == db::RunStatus::Done;
    }
    ImGui::TextDisabled("%zu runs, %zu done, %zu running", rows_->rows.size(), done, running);
  }
}

const std::vector<std::string>& ExplorerView::suite_files() {
  if (suite_files_loaded_) return suite_files_;
  suite_files_loaded_ = true;
  std::vector<std::string>& files = suite_files_;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(assets_dir_ + "/suites", ec))
    if (e.path().extension() == ".toml") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

void ExplorerView::start_worker_command(std::vector<std::string> args) {
  std::string error;
  if (!worker_.start(explorer::find_worker_program(), args, &error)) worker_message_ = error;
  else worker_message_.clear();
}

void ExplorerView::enqueue_suite(const std::string& suite_file, const std::string& scale) {
  queued_commands_.push_back({"enqueue", suite_file, "--scale", scale, "--db", loader_->db_path()});
}

void ExplorerView::draw_worker_bar() {
  const auto& files = suite_files();
  ImGui::SetNextItemWidth(200.0f * context_.ui_scale);
  suite_index_ = std::clamp(suite_index_, 0, std::max(0, static_cast<int>(files.size()) - 1));
  const std::string current = files.empty() ? "(no suites found)" : std::filesystem::path(files[suite_index_]).stem().string();
  if (ImGui::BeginCombo("##suite", current.c_str())) {
    for (int i = 0; i < static_cast<int>(files.size()); ++i)
      if (ImGui::Selectable(std::filesystem::path(files[i]).stem().string().c_str(), i == suite_index_)) suite_index_ = i;
    ImGui::EndCombo();
  }
  tooltip("A suite from assets/suites: one of the papers' experiments as a grid of runs.");
  ImGui::SameLine();
  const char* scales[] = {"quick", "full", "paper"};
  ImGui::SetNextItemWidth(80.0f * context_.ui_scale);
  ImGui::Combo("##scale", &scale_index_, scales, 3);
  tooltip("quick: seconds per run (tests, demos). full: sized to finish overnight on 2 cores (estimate in the file). "
          "paper: the papers' sizes (depth >= 6, widths 256-1024, n 128-512; token budget in the file), only in "
          "suites that have it: the worker says which grids lack paper values.");
  ImGui::SameLine();
  ImGui::BeginDisabled(files.empty() || worker_.running());
  if (ImGui::Button("Enqueue")) enqueue_suite(files[suite_index_], scales[scale_index_]);
  ImGui::EndDisabled();
  tooltip("Runs `headroom-worker enqueue SUITE --scale S --db FILE`: validates the suite, adds its runs to the queue.");
  ImGui::SameLine();
  if (!worker_.running()) {
    if (ImGui::Button("Start worker")) start_worker_command({"serve", "--db", loader_->db_path(), "--follow"});
    tooltip("Launches `headroom-worker serve --db FILE --follow` (no shell): trains queued runs, and runs whose worker died.");
  } else {
    if (ImGui::Button("Stop worker")) worker_.request_stop();
    tooltip("SIGTERM: the worker checkpoints its run at the current step and puts it back in the queue.");
  }
  if (worker_.running()) {
    ImGui::SameLine();
    ImGui::TextColored(status_color(db::RunStatus::Running), "worker running");
  } else if (worker_.exit_code()) {
    ImGui::SameLine();
    ImGui::TextDisabled("last command exited with %d", *worker_.exit_code());
  }
  if (!worker_.lines().empty()) {
    ImGui::SameLine();
    ImGui::TextDisabled("| %s", worker_.lines().back().c_str());
    if (ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      ImGui::TextUnformatted(worker_.command().c_str());
      ImGui::Separator();
      const size_t from = worker_.lines().size() > 20 ? worker_.lines().size() - 20 : 0;
      for (size_t i = from; i < worker_.lines().size(); ++i) ImGui::TextUnformatted(worker_.lines()[i].c_str());
      ImGui::EndTooltip();
    }
  }
  if (!worker_message_.empty()) ImGui::TextColored(kProblem, "%s", worker_message_.c_str());
}

void ExplorerView::draw_table() {
  ImGui::SetNextItemWidth(std::max(200.0f, ImGui::GetContentRegionAvail().x * 0.5f));
  ImGui::InputTextWithHint("##filter", "filter: h>=8 kind=talking-heads status!=failed val<2.5 (bare words match names)",
                           filter_buffer_, sizeof filter_buffer_);
  ImGui::SameLine();
  if (!filter_error_.empty()) ImGui::TextColored(kProblem, "%s", filter_error_.c_str());
  else ImGui::TextDisabled("%zu of %zu runs, %zu selected (ctrl/shift-click for more)", shown_.size(), rows_->rows.size(),
                           selected_.size());

  using explorer::RunColumn;
  struct Column {
    const char* name;
    RunColumn id;
    float width;
  };
  static const Column kColumns[] = {
      {"suite", RunColumn::Suite, 110}, {"name", RunColumn::Name, 230},   {"kind", RunColumn::Kind, 95},
      {"d", RunColumn::D, 40},          {"h", RunColumn::H, 32},          {"d_p", RunColumn::DP, 44},
      {"r", RunColumn::R, 40},          {"L", RunColumn::L, 26},          {"V", RunColumn::V, 48},
      {"status", RunColumn::Status, 62}, {"step", RunColumn::Step, 86},   {"best val", RunColumn::BestVal, 62},
      {"params", RunColumn::Params, 58}, {"tok/s", RunColumn::TokensPerS, 56}};
  const ImGuiTableFlags flags = ImGuiTableFlags_Sortable | ImGuiTableFlags_Resizable | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersOuter | ImGuiTableFlags_BordersV |
                                ImGuiTableFlags_Hideable | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("##run_table", 14, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  for (const auto& c : kColumns)
    ImGui::TableSetupColumn(c.name, c.id == RunColumn::Name ? ImGuiTableColumnFlags_WidthStretch : ImGuiTableColumnFlags_WidthFixed,
                            c.id == RunColumn::Name ? 0.0f : c.width * context_.ui_scale, static_cast<ImGuiID>(c.id));
  ImGui::TableHeadersRow();
  if (ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs(); specs && specs->SpecsDirty) {
    if (specs->SpecsCount > 0) {
      sort_column_ = static_cast<RunColumn>(specs->Specs[0].ColumnUserID);
      sort_ascending_ = specs->Specs[0].SortDirection != ImGuiSortDirection_Descending;
      sort_dirty_ = true;
    }
    specs->SpecsDirty = false;
  }
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(shown_.size()));
  static std::int64_t anchor = -1;
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const explorer::RunRow& r = *shown_[static_cast<size_t>(i)];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushID(static_cast<int>(r.id));
      const bool is_selected = selected_.count(r.id) > 0;
      if (ImGui::Selectable(r.suite.empty() ? "-" : r.suite.c_str(), is_selected, ImGuiSelectableFlags_SpanAllColumns)) {
        const ImGuiIO& io = ImGui::GetIO();
        if (io.KeyShift && anchor >= 0) {
          auto a = std::find_if(shown_.begin(), shown_.end(), [&](const explorer::RunRow* x) { return x->id == anchor; });
          if (a != shown_.end()) {
            const int lo = std::min(i, static_cast<int>(a - shown_.begin())), hi = std::max(i, static_cast<int>(a - shown_.begin()));
            for (int k = lo; k <= hi; ++k) selected_.insert(shown_[static_cast<size_t>(k)]->id);
          }
        } else if (io.KeyCtrl) {
          if (is_selected) selected_.erase(r.id);
          else selected_.insert(r.id);
          anchor = r.id;
        } else {
          selected_ = {r.id};
          anchor = r.id;
        }
        focused_ = r.id;
      }
      if (ImGui::IsItemHovered() && ImGui::IsMouseDoubleClicked(0)) {
        focused_ = r.id;
        select_tab_ = 2;
      }
      ImGui::PopID();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(short_name(r).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.kind.c_str());
      for (int v : {r.d, r.h, r.d_p, r.r, r.L, r.V}) {
        ImGui::TableNextColumn();
        ImGui::Text("%d", v);
      }
      ImGui::TableNextColumn();
      ImGui::TextColored(status_color(r.status), "%s", std::string(db::to_string(r.status)).c_str());
      if (r.status == db::RunStatus::Failed && ImGui::IsItemHovered()) ImGui::SetTooltip("failed (see the Run tab)");
      ImGui::TableNextColumn();
      ImGui::Text("%s/%s", human_count(r.step).c_str(), human_count(r.steps_total).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_number(r.best_val_loss, "%.4f").c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(human_count(r.params).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_number(r.tokens_per_s, "%.0f").c_str());
    }
  }
  ImGui::EndTable();
}

bool ExplorerView::load_scene(const nlohmann::json& scene, std::string* error) {
  if (!scene.contains("explorer")) return true;
  const auto& j = scene["explorer"];
  if (!j.is_object()) {
    *error = "explorer: expected an object";
    return false;
  }
  static const std::set<std::string> kKeys = {"db", "select", "metric", "x", "log_y", "tab", "filter", "figure",
                                              "figure_x", "smoothing", "group", "open_in_lab", "export"};
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!kKeys.count(it.key())) {
      *error = "explorer." + it.key() + ": unknown key (known: db, select, metric, x, log_y, tab, filter, figure, figure_x, smoothing, group, open_in_lab, export)";
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
  std::string db, x = "step", tab = "curves", filter, smoothing = "none", group = "none", figure_x = "default";
  if (!text("figure_x", &figure_x)) return false;
  const std::map<std::string, explorer::FigureAxis> figure_axes = {{"default", explorer::FigureAxis::Default},
                                                                  {"suite", explorer::FigureAxis::SuiteKey},
                                                                  {"parameters", explorer::FigureAxis::Parameters}};
  if (!figure_axes.count(figure_x)) return *error = "explorer.figure_x: use default, suite or parameters", false;
  scene_figure_axis_ = figure_axes.at(figure_x);
  if (!text("db", &db) || !text("open_in_lab", &scene_open_in_lab_) || !text("export", &scene_export_) || !text("metric", &metric_) || !text("x", &x) || !text("tab", &tab) || !text("filter", &filter) ||
      !text("figure", &scene_figure_) || !text("smoothing", &smoothing) || !text("group", &group))
    return false;
  const std::map<std::string, explorer::XAxis> axes = {{"step", explorer::XAxis::Step},
                                                       {"tokens", explorer::XAxis::Tokens},
                                                       {"time", explorer::XAxis::TrainSeconds},
                                                       {"relative", explorer::XAxis::RelativeHours}};
  const std::map<std::string, ExplorerTab> tabs = {
      {"curves", ExplorerTab::Curves}, {"figures", ExplorerTab::Figures}, {"run", ExplorerTab::Run}};
  if (!axes.count(x)) return *error = "explorer.x: use step, tokens, time or relative", false;
  if (!tabs.count(tab)) return *error = "explorer.tab: use curves, figures or run", false;
  const std::map<std::string, Smoothing> smooth = {{"none", Smoothing::None}, {"ema", Smoothing::Ema}, {"moving-average", Smoothing::MovingAverage}};
  if (!smooth.count(smoothing)) return *error = "explorer.smoothing: use none, ema or moving-average", false;
  if (group != "none" && group != "seeds") return *error = "explorer.group: use none or seeds", false;
  x_axis_ = axes.at(x);
  tab_ = tabs.at(tab);
  select_tab_ = static_cast<int>(tab_);
  smoothing_ = smooth.at(smoothing);
  grouping_ = group == "seeds" ? Grouping::SeedsOnly : Grouping::None;
  if (j.contains("log_y")) {
    if (!j["log_y"].is_boolean()) return *error = "explorer.log_y: expected true or false", false;
    log_y_ = j["log_y"].get<bool>();
  }
  std::snprintf(filter_buffer_, sizeof filter_buffer_, "%s", filter.c_str());
  if (j.contains("select")) {
    if (!j["select"].is_array()) return *error = "explorer.select: expected a list of run names", false;
    scene_select_.clear();
    for (const auto& n : j["select"]) {
      if (!n.is_string()) return *error = "explorer.select: expected run names (strings), got " + n.dump(), false;
      scene_select_.push_back(n.get<std::string>());
    }
  }
  if (!db.empty() && !(context_.options && !context_.options->db_path.empty())) {
    open_db(db);
    started_ = true;
  }
  return true;
}

nlohmann::json ExplorerView::state() const {
  nlohmann::json j = {{"db", loader_ ? loader_->db_path() : ""},
                      {"runs", rows_ ? rows_->rows.size() : 0},
                      {"runs_shown", shown_.size()},
                      {"selected", selected_.size()},
                      {"curves_drawn", curves_drawn_},
                      {"figures", figures_.size()},
                      {"error", rows_ ? rows_->error : ""}};
  return {{"explorer", j}};
}

nlohmann::json ExplorerView::bench_metrics() const {
  if (!loader_) return nlohmann::json::object();
  std::vector<double> r = refetch_ms_;
  std::sort(r.begin(), r.end());
  nlohmann::json j = {{"open_to_full_draw_ms", open_to_full_draw_ms_},
                      {"startup_to_full_draw_ms", startup_to_full_draw_ms_},
                      {"rows_load_ms", rows_ ? rows_->load_ms : -1.0},
                      {"runs", rows_ ? rows_->rows.size() : 0},
                      {"curves", curves_wanted_.size()},
                      {"zoom_refetches", r.size()}};
  if (!r.empty()) j["zoom_refetch_ms_median"] = r[r.size() / 2];
  return j;
}

bool ExplorerView::settled() const {
  if (!loader_) return true;
  if (!rows_ || (!rows_->open && rows_->error.empty())) return false;
  if (!rows_->open) return true;
  if (frames_with_rows_ < 3 && !rows_->rows.empty()) return false;
  if (tab_ == ExplorerTab::Figures) return figures_version_ == rows_->version;
  if (tab_ == ExplorerTab::Curves) return curves_ready() && svg_request_.empty() && (scene_export_.empty() || selected_.empty());
  if (tab_ == ExplorerTab::Run && focused_ >= 0) {
    const auto d = loader_->run_detail();  // the run's details have arrived
    return d->request == run_wanted_ && (!run_wanted_.projections || d->projection_steps.empty() ||
                                         replay_step_ < 0 || d->projection_step == replay_step_);
  }
  return true;
}

bool ExplorerView::curves_ready() const {
  return curves_ && curves_->complete && curves_->curves.size() == curves_wanted_.size();
}

}  // namespace headroom::gui

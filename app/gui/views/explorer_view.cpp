// The explorer's shell: opening DBs, the toolbar, the layout, scene / state / benchmark. The
// panels are in explorer_table.cpp, explorer_curves.cpp, explorer_figures.cpp, explorer_run.cpp
// and explorer_worker_bar.cpp.
#include "app/gui/views/explorer_view.h"

#include <imgui.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "app/gui/explorer/data_paths.h"
#include "app/gui/explorer/explorer_scene.h"
#include "app/gui/gui_options.h"
#include "app/gui/settings.h"
#include "app/gui/ui_util.h"
#include "core/io/atomic_file.h"
#include "core/io/install_paths.h"

namespace headroom::gui {
namespace {

constexpr size_t kMaxRecent = 8;
constexpr size_t kDefaultSelection = 12;

nlohmann::json load_recent(const std::string& dir) {
  std::ifstream in(dir + "/recent_dbs.json");
  if (!in) return nlohmann::json::array();
  const auto j = nlohmann::json::parse(in, nullptr, false);
  return j.is_array() ? j : nlohmann::json::array();
}

}  // namespace

ExplorerView::ExplorerView(ViewContext& context)
    : context_(context), assets_dir_(io::share_dir()), session_(context), worker_bar_(assets_dir_ + "/suites") {
  // With --db the loader starts reading while the window is still being created ("@results": the
  // results DB Headroom ships).
  if (context_.options && !context_.options->db_path.empty()) {
    std::string why;
    const std::string path = explorer::resolve_db_name(context_.options->db_path, &why);
    if (!path.empty()) open_db(path);
    else session_.message = "--db " + context_.options->db_path + ": " + why;
    started_ = true;
  }
}

ExplorerView::~ExplorerView() = default;

void ExplorerView::open_db(std::string path, bool create) {
  // The old DB's loader (its thread joins) and tables go away off the UI thread.
  disposer_.dispose(std::shared_ptr<explorer::ExplorerLoader>(std::move(session_.loader)));
  disposer_.dispose(std::move(session_.rows));
  disposer_.dispose(std::move(session_.curves));
  const std::uint64_t ticket = disposer_.posted();
  session_.loader = std::make_unique<explorer::ExplorerLoader>(path, 0.25, create,
                                                               [this, ticket] { disposer_.wait_until_freed(ticket); });
  std::snprintf(path_buffer_, sizeof path_buffer_, "%s", path.c_str());
  session_.rows.reset();
  session_.curves.reset();
  session_.curves_wanted.clear();
  session_.shown.clear();
  session_.shown_filtered = false;
  session_.selected.clear();
  session_.focused = -1;
  session_.frames_with_rows = 0;
  selection_defaulted_ = false;
  table_.reset();
  curves_.reset();
  compare_.reset();
  figures_.reset();
  run_.reset();
  opened_at_ = Clock::now();
  open_to_full_draw_ms_ = -1;
  open_to_first_page_ms_ = -1;
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
    session_.message = error;
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
  if (!core::write_file_atomically(context_.config_dir + "/recent_dbs.json", nlohmann::json(recent_).dump(2) + "\n",
                                   &error))
    session_.message = error + "; the recent list will not be remembered";
}

void ExplorerView::sync() {
  if (!session_.loader) return;
  const auto before = session_.rows;
  table_.update(session_, session_.loader->rows());  // the rows arrive with their table order
  const auto& rows = session_.rows;
  if (!rows) return;
  if (rows != before && rows->open && rows->version == 1) remember_recent(session_.loader->db_path());
  apply_scene_selection();

  auto keys = curves_.wanted(session_);
  if (tab_ == ExplorerTab::Compare) {  // the paired runs' curves too, while that tab shows
    compare_.refresh(session_);
    const auto paired = compare_.wanted();
    keys.insert(keys.end(), paired.begin(), paired.end());
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  }
  if (keys != session_.curves_wanted) {
    session_.curves_wanted = keys;
    session_.loader->want(std::move(keys));
    refetch_started_ = Clock::now();
    refetch_pending_ = true;
  }
  session_.curves = session_.loader->curves();
  // A soak counts the frames that showed a read error (the loader reports curves' errors there too).
  if (session_.benchmarking() && !rows->error.empty() && bench_error_frames_++ == 0) bench_first_error_ = rows->error;
  if (refetch_pending_ && session_.curves_ready()) {
    refetch_pending_ = false;
    if (curves_.zoomed())
      refetch_ms_.push_back(std::chrono::duration<double, std::milli>(Clock::now() - refetch_started_).count());
  }
}

void ExplorerView::apply_scene_selection() {
  const auto& rows = session_.rows->rows;
  const bool partial = session_.rows->partial;
  // What to show first: the runs named by a scene, else the newest suite's runs (of those the
  // filter keeps). While a big DB is still being read (only its newest runs are here), choose
  // only if the choice cannot change once every run is in.
  if (!selection_defaulted_ && !rows.empty()) {
    std::set<std::int64_t> chosen;
    if (!scene_select_.empty()) {
      for (const auto& r : rows)
        if (std::find(scene_select_.begin(), scene_select_.end(), r.name) != scene_select_.end()) chosen.insert(r.id);
    } else {  // within what the filter shows, where a scene or lesson gave one
      const auto ids = explorer::newest_suite_runs(rows, table_.filter_now(), kDefaultSelection);
      chosen.insert(ids.begin(), ids.end());
    }
    const std::size_t enough = scene_select_.empty() ? kDefaultSelection : scene_select_.size();
    if (!partial || chosen.size() >= enough) {
      selection_defaulted_ = true;
      session_.selected.insert(chosen.begin(), chosen.end());
      if (!session_.selected.empty()) session_.focused = *session_.selected.begin();
      table_.scroll_to(chosen);
    }
  }
  // The lab's "Open a trained run", once the shipped results are read: one of their runs with
  // stored weights, at its last stored step.
  if (context_.request_trained_example && session_.rows->open && !partial) {
    context_.request_trained_example = false;
    const explorer::RunRow* example =
        session_.loader->db_path() == explorer::results_db_path() ? explorer::trained_example(rows) : nullptr;
    if (example) session_.open_in_lab(*example, example->step);
    else session_.message = "this database holds no finished run with stored weights for the lab to open";
  }
  // A scene's "open_in_lab": that run's last stored weights, as the Run tab's button does.
  if (!scene_open_in_lab_.empty() && session_.rows->open && !rows.empty() && !partial) {
    for (const auto& r : rows)
      if (r.name == scene_open_in_lab_) session_.open_in_lab(r, r.step);
    if (!context_.open_in_lab) session_.message = "scene: no run named " + scene_open_in_lab_ + " in this database";
    scene_open_in_lab_.clear();
  }
}

void ExplorerView::draw() {
  if (!context_.request_open_path.empty()) {  // File > Open the papers' results, a paper-scale suite, an offer
    open_db(context_.request_open_path);
    context_.request_open_path.clear();
    started_ = true;
  }
  ensure_started();
  context_.open_db = session_.loader ? session_.loader->db_path() : std::string();
  worker_bar_.poll(session_);
  sync();
  session_.check_workers(std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count());
  drawn_panel_.clear();
  lesson_problem_.clear();
  if (lesson_.active && !lesson_.panel.empty()) {
    draw_lesson_panel();
    return;
  }
  draw_toolbar();
  if (!session_.loader) {
    // Why nothing opened (--db naming a shipped DB this installation lacks, a recent list that
    // cannot be read): the worker bar, which shows it beside an open DB, is not drawn here.
    if (!session_.message.empty()) problem_text(session_.message);
    wrapped_text(
        "No experiments database is open. Type a path above and press Open, or start the GUI with "
        "--db FILE. `headroom-worker run assets/suites/<suite>.toml --db FILE` makes one.");
    return;
  }
  const auto& rows = session_.rows;
  if (!rows || (!rows->open && rows->error.empty())) {
    ImGui::TextDisabled("Opening %s ...", session_.loader->db_path().c_str());
    return;
  }
  if (rows->can_create) {  // a new path: offer to make it a DB, then the empty DB's offer trains into it
    const std::string path = session_.loader->db_path();
    ImGui::TextUnformatted((path + " does not exist yet.").c_str());
    if (ImGui::Button("Create an experiments DB here")) open_db(path, /*create=*/true);
    tooltip("Creates an empty Headroom experiments DB at this path; then enqueue a suite and start a worker.");
    ImGui::SameLine();
    ImGui::TextDisabled("or open another one above.");
    return;
  }
  if (!rows->error.empty()) {
    problem_text(rows->error);
    ImGui::TextDisabled("The file was not modified. Open another experiments DB above.");
    if (!rows->open) return;
  }
  if (!rows->notice.empty()) ImGui::TextDisabled("%s: %s", session_.loader->db_path().c_str(), rows->notice.c_str());
  worker_bar_.draw(session_);
  if (rows->rows.empty()) {
    worker_bar_.draw_empty_db_offer(session_);
    return;
  }
  ++session_.frames_with_rows;
  const float table_h = std::max(120.0f, ImGui::GetContentRegionAvail().y * 0.38f);
  ImGui::BeginChild("##runs", ImVec2(0, table_h), false);
  table_.draw(session_, context_.ui_scale, session_.benchmarking() && open_to_full_draw_ms_ >= 0);
  ImGui::EndChild();
  draw_tabs();
  time_open();
}

void ExplorerView::set_lesson_focus(const LessonFocus& focus) {
  lesson_ = focus;
  lesson_problem_.clear();
  const std::map<std::string, ExplorerTab> tab_of = {{"figures", ExplorerTab::Figures},
                                                     {"curves", ExplorerTab::Curves},
                                                     {"compare", ExplorerTab::Compare},
                                                     {"run", ExplorerTab::Run},
                                                     {"replay", ExplorerTab::Run}};
  if (const auto it = tab_of.find(focus.panel); it != tab_of.end()) {
    tab_ = it->second;
    session_.select_tab = static_cast<int>(tab_);  // and the tab shows it when the lesson ends
  }
}

bool ExplorerView::set_control(const std::string& name, double value) {
  if (name != "replay") return false;
  run_.set_replay_fraction(value);
  return true;
}

nlohmann::json ExplorerView::lesson_state() const {
  return {{"panel", drawn_panel_},
          {"highlighted", nlohmann::json::array()},
          {"explorer",
           {{"db", session_.loader ? session_.loader->db_path() : ""},
            {"figure", tab_ == ExplorerTab::Figures ? figures_.current_suite() : ""},
            {"selected", session_.selected.size()},
            {"replay_step", run_.replay_step()},
            {"pins", compare_.pin_count()},
            {"pin_problem", compare_.pin_problem()},
            {"problem", lesson_problem_}}}};
}

bool ExplorerView::lesson_panel_ready(std::string* why) {
  why->clear();
  if (!session_.loader) return *why = "This step shows stored runs, but no experiments database is open.", false;
  const auto& rows = session_.rows;
  const std::string& path = session_.loader->db_path();
  if (!rows || (!rows->open && rows->error.empty())) return false;  // still opening: no problem yet
  if (!rows->error.empty()) return *why = rows->error + " (the file was not modified)", false;
  if (rows->rows.empty()) return *why = path + " has no runs yet.", false;
  if (rows->partial) return false;
  const bool figure = lesson_.panel == "figures";
  if (figure && !lesson_figure_.empty() &&
      std::none_of(rows->suites.begin(), rows->suites.end(), [&](const auto& s) { return s.name == lesson_figure_; })) {
    std::string file = lesson_figure_;  // the suite "lrb-heads" is the file lrb_heads.toml
    std::replace(file.begin(), file.end(), '-', '_');
    return *why = path + " has no runs of the suite " + lesson_figure_ + ". Make them with: headroom-worker run " +
                  "assets/suites/" + file + ".toml --scale full --db " + path,
           false;
  }
  if ((lesson_.panel == "run" || lesson_.panel == "replay" || lesson_.panel == "compare") && !scene_select_.empty() &&
      selection_defaulted_ && session_.selected.empty())
    return *why = path + " has no run named " + scene_select_.front() + ".", false;
  return true;
}

void ExplorerView::draw_lesson_panel() {
  std::string why;
  const bool ready = lesson_panel_ready(&why);
  lesson_problem_ = why;
  if (!ready) {
    if (!why.empty()) problem_text(why);
    else ImGui::TextDisabled("Opening %s ...", session_.loader ? session_.loader->db_path().c_str() : "");
    return;
  }
  ++session_.frames_with_rows;
  drawn_panel_ = lesson_.panel;
  if (lesson_.panel == "figures") figures_.draw(session_, assets_dir_ + "/reference");
  if (lesson_.panel == "curves") curves_.draw(session_, false);
  if (lesson_.panel == "compare") compare_.draw(session_);
  if (lesson_.panel == "table") table_.draw(session_, context_.ui_scale, false);
  if (lesson_.panel == "run") run_.draw(session_);
  if (lesson_.panel == "replay") run_.draw_replay_panel(session_);
}

void ExplorerView::draw_tabs() {
  if (!ImGui::BeginTabBar("##explorer_tabs")) return;
  const ExplorerTab tabs[] = {ExplorerTab::Curves, ExplorerTab::Compare, ExplorerTab::Figures, ExplorerTab::Run};
  const TabLabel names[] = {{"Curves", "Curves"}, {"Compare", "Compare"}, {"Paper figures", "Figures"}, {"Run", "Run"}};
  const FittingTabs fitting = fitting_tab_labels(names, 4, ImGui::GetContentRegionAvail().x);
  const auto& labels = fitting.labels;
  tab_labels_cut_ = 0;
  for (int i = 0; i < 4; ++i) {
    const bool select = session_.select_tab == static_cast<int>(tabs[i]);
    const bool open = ImGui::BeginTabItem(labels[i].c_str(), nullptr, select ? ImGuiTabItemFlags_SetSelected : 0);
    tab_labels_cut_ += tab_label_cut(labels[i].c_str());
    if (fitting.brief && std::string_view(names[i].brief) != names[i].full) tooltip(names[i].full);
    if (open) {
      if (session_.select_tab < 0) tab_ = tabs[i];
      if (tabs[i] == ExplorerTab::Curves) curves_.draw(session_, session_.benchmarking() && open_to_full_draw_ms_ >= 0);
      if (tabs[i] == ExplorerTab::Compare) compare_.draw(session_);
      if (tabs[i] == ExplorerTab::Figures) figures_.draw(session_, assets_dir_ + "/reference");
      if (tabs[i] == ExplorerTab::Run) run_.draw(session_);
      ImGui::EndTabItem();
    }
  }
  session_.select_tab = -1;
  ImGui::EndTabBar();
}

void ExplorerView::time_open() {
  time_selection();
  if (open_to_first_page_ms_ < 0 && content_ready(/*first_page=*/true))
    open_to_first_page_ms_ = std::chrono::duration<double, std::milli>(Clock::now() - opened_at_).count();
  if (open_to_full_draw_ms_ >= 0 || !content_ready()) return;
  open_to_full_draw_ms_ = std::chrono::duration<double, std::milli>(Clock::now() - opened_at_).count();
  // Benchmark: the first open also paid for the window and fonts. Open the DB again, as "Open"
  // in a running window does, and time that (the figure the README reports).
  if (session_.benchmarking() && startup_to_full_draw_ms_ < 0) {
    startup_to_full_draw_ms_ = open_to_full_draw_ms_;
    std::vector<std::string> keep;  // the same runs selected again
    for (std::int64_t id : session_.selected)
      if (const explorer::RunRow* r = session_.find_row(id)) keep.push_back(r->name);
    // Free the first open's tables before timing (reported apart: a user opening another DB
    // waits for both, the window for neither).
    const std::string path = session_.loader->db_path();
    const auto free_started = Clock::now();
    disposer_.dispose(std::shared_ptr<explorer::ExplorerLoader>(std::move(session_.loader)));
    disposer_.dispose(std::move(session_.rows));
    disposer_.wait_until_freed(disposer_.dispose(std::move(session_.curves)));
    previous_free_ms_ = std::chrono::duration<double, std::milli>(Clock::now() - free_started).count();
    open_db(path);
    scene_select_ = std::move(keep);
  }
}

void ExplorerView::draw_toolbar() {
  ImGui::SetNextItemWidth(std::max(200.0f, ImGui::GetContentRegionAvail().x * 0.45f));
  if (context_.request_open_db) {  // File > Open experiments DB...
    ImGui::SetKeyboardFocusHere();
    context_.request_open_db = false;
  }
  const bool enter = ImGui::InputTextWithHint("##db_path", "experiments database (.sqlite)", path_buffer_,
                                              sizeof path_buffer_, ImGuiInputTextFlags_EnterReturnsTrue);
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
  if (session_.open()) {
    ImGui::SameLine();
    if (session_.rows->partial)
      ImGui::TextDisabled("reading %lld runs: the newest %zu are here",
                          static_cast<long long>(session_.rows->total_runs), session_.rows->rows.size());
    else {
      std::size_t interrupted = 0;
      for (const auto& [id, check] : session_.stranded) interrupted += check.state == db::WorkerState::Gone;
      ImGui::TextDisabled(
          "%s", explorer::run_counts_text(session_.rows->rows.size(), session_.rows->done, session_.rows->running,
                                          interrupted, session_.stranded.size() - interrupted)
                    .c_str());
    }
  }
}

bool ExplorerView::validate_scene(const nlohmann::json& scene, std::string* error) const {
  ExplorerScene parsed;
  return !scene.contains("explorer") || parse_explorer_scene(scene["explorer"], &parsed, error);
}

bool ExplorerView::load_scene(const nlohmann::json& scene, std::string* error) {
  if (!scene.contains("explorer")) return true;
  ExplorerScene s;
  if (!parse_explorer_scene(scene["explorer"], &s, error)) return false;
  figures_.scene_axis = s.figure_x;
  scene_open_in_lab_ = s.open_in_lab;
  // "export" writes what the scene's tab shows: the figure's table, the compared pairs, else the curves.
  (s.tab == ExplorerTab::Figures   ? figures_.scene_export
   : s.tab == ExplorerTab::Compare ? compare_.scene_export
                                   : curves_.scene_export) = s.export_stem;
  curves_.settings.metric = s.metric;
  curves_.settings.x_axis = s.x;
  if (s.log_y) curves_.settings.log_y = *s.log_y;
  curves_.settings.smoothing = s.smoothing;
  curves_.settings.grouping = s.grouping;
  figures_.scene_figure = s.figure;
  tab_ = s.tab;
  session_.select_tab = static_cast<int>(tab_);
  bench_select_ = s.bench_select;
  table_.set_filter(s.filter);
  if (s.select) scene_select_ = *s.select;
  compare_.scene_pins = s.pins;
  const std::string db = explorer::resolve_db_name(s.db, nullptr);  // parse_explorer_scene refused unresolvable names
  if (!db.empty() && !(context_.options && !context_.options->db_path.empty())) {
    open_db(db);
    started_ = true;
  }
  return true;
}

bool ExplorerView::load_lesson_scene(const nlohmann::json& scene, std::string* error) {
  // Over the explorer's defaults, as a lesson step must look the same each time it is shown.
  ExplorerScene s;
  if (scene.contains("explorer") && !parse_explorer_scene(scene["explorer"], &s, error)) return false;
  curves_.settings = ExplorerCurves::Settings{};
  figures_.scene_figure.clear();
  scene_select_.clear();
  compare_.clear_pins();  // only the step's own
  run_.set_replay_fraction(-1);
  lesson_figure_ = s.figure;
  const std::string db = explorer::resolve_db_name(s.db, nullptr);  // parse_explorer_scene refused unresolvable names
  const bool same_db = db.empty() || (session_.loader && session_.loader->db_path() == db);
  nlohmann::json without_db = scene;
  if (same_db && without_db.contains("explorer")) without_db["explorer"].erase("db");
  if (!load_scene(without_db, error)) return false;
  if (same_db && session_.loader) {  // the DB stays open: choose the step's runs again
    selection_defaulted_ = false;
    session_.selected.clear();
    session_.focused = -1;
  }
  return true;
}

void ExplorerView::time_selection() {
  // Benchmark (a scene's bench_select = N), after the timed re-open: select N other runs at once,
  // as a shift-click does, and time it until all N curves are drawn.
  if (!session_.benchmarking() || bench_select_ < 1 || open_to_full_draw_ms_ < 0 || startup_to_full_draw_ms_ < 0)
    return;
  if (bench_select_started_ == Clock::time_point{}) {
    std::set<std::int64_t> next;
    for (const explorer::RunRow* r : session_.shown)
      if (!session_.selected.count(r->id) && next.size() < static_cast<size_t>(bench_select_)) next.insert(r->id);
    if (next.size() < static_cast<size_t>(bench_select_)) return;
    session_.selected = std::move(next);
    bench_select_started_ = Clock::now();
    return;
  }
  if (bench_select_ms_ < 0 && session_.curves_ready() && curves_.curves_drawn() == bench_select_)
    bench_select_ms_ = std::chrono::duration<double, std::milli>(Clock::now() - bench_select_started_).count();
}

nlohmann::json ExplorerView::state() const {
  const auto& rows = session_.rows;
  const explorer::RunRow* focused = rows && session_.focused >= 0 ? session_.find_row(session_.focused) : nullptr;
  nlohmann::json suite_rows = nlohmann::json::object();  // stem -> the top of its row in the suite table
  for (const auto& [stem, y] : worker_bar_.suite_rows_drawn()) suite_rows[stem] = y;
  nlohmann::json j = {{"db", session_.loader ? session_.loader->db_path() : ""},
                      {"runs", rows ? rows->rows.size() : 0},
                      {"runs_shown", session_.shown.size()},
                      {"runs_without_worker", session_.stranded.size()},  // interrupted or stalled
                      {"selected", session_.selected.size()},
                      {"curves_drawn", curves_.curves_drawn()},
                      {"curves_controls_overflow", curves_.controls_overflow()},
                      {"tab_labels_cut", tab_labels_cut_},
                      {"figures", figures_.count()},
                      {"figure", tab_ == ExplorerTab::Figures ? figures_.current_suite() : ""},  // the one shown
                      {"figure_unplaced", tab_ == ExplorerTab::Figures ? figures_.unplaced() : ""},
                      {"assets_dir", assets_dir_},
                      {"suites", worker_bar_.suites().size()},
                      {"enqueue", worker_bar_.choice()},
                      {"enqueue_runs", worker_bar_.choice_runs()},
                      {"suite_rows", suite_rows},
                      {"suite_combo", worker_bar_.suite_combo_drawn()},
                      {"suite_list", worker_bar_.suite_list_drawn()},  // [] when closed
                      {"table_columns_dropped", table_.columns_dropped()},
                      {"table_names_clipped", table_.names_clipped()},
                      {"table_suites_clipped", table_.suites_clipped()},
                      {"table_focused_row_visible", table_.focused_row_visible()},
                      {"run_summary", tab_ == ExplorerTab::Run ? run_.summary() : ""},
                      {"compare", tab_ == ExplorerTab::Compare ? compare_.state() : nlohmann::json()},
                      {"focused", focused ? focused->name : ""},  // the run the Run tab shows
                      {"error", rows ? rows->error : ""},
                      {"can_create", rows && rows->can_create},
                      {"open", rows && rows->open},
                      {"message", session_.message}};
  return {{"explorer", j}};
}

nlohmann::json ExplorerView::bench_metrics() const {
  if (!session_.loader) return nlohmann::json::object();
  std::vector<double> r = refetch_ms_;
  std::sort(r.begin(), r.end());
  nlohmann::json j = {{"open_to_full_draw_ms", open_to_full_draw_ms_},
                      {"open_to_first_page_ms", open_to_first_page_ms_},
                      {"previous_db_free_ms", previous_free_ms_},
                      {"startup_to_full_draw_ms", startup_to_full_draw_ms_},
                      {"rows_load_ms", session_.rows ? session_.rows->load_ms : -1.0},
                      {"runs", session_.rows ? session_.rows->rows.size() : 0},
                      {"curves", session_.curves_wanted.size()},
                      {"zoom_refetches", r.size()},
                      {"table_orders", table_.orders_asked()},
                      {"rows_version", session_.rows ? session_.rows->version : 0},
                      {"db_error_frames", bench_error_frames_}};
  if (!bench_first_error_.empty()) j["db_first_error"] = bench_first_error_;
  if (!r.empty()) j["zoom_refetch_ms_median"] = r[r.size() / 2];
  if (bench_select_ms_ >= 0) j["select_to_drawn_ms"] = bench_select_ms_, j["selected_by_bench"] = bench_select_;
  return j;
}

bool ExplorerView::bench_frames_may_start() const {
  // After the timed re-open and the timed selection: frames then scroll the table and pan the plot.
  return startup_to_full_draw_ms_ >= 0 && open_to_full_draw_ms_ >= 0 && (bench_select_ < 1 || bench_select_ms_ >= 0);
}

bool ExplorerView::settled() const {
  // --bench-frames with a scene's bench_select: the selection timed after the re-open must be drawn.
  if (session_.benchmarking() && bench_select_ > 0 && session_.rows && bench_select_ms_ < 0) return false;
  // A lesson step whose panel cannot be drawn shows why in its place: that is the step, drawn.
  if (lesson_.active && !lesson_problem_.empty()) return true;
  return content_ready();
}

bool ExplorerView::content_ready(bool first_page) const {
  if (!session_.loader) return true;
  const auto& rows = session_.rows;
  if (!rows || (!rows->open && rows->error.empty())) return false;
  if (!table_.current() || rows != session_.loader->rows()) return false;  // newer rows are on their way
  if (!rows->open) return true;
  if (rows->partial && (!first_page || !selection_defaulted_)) return false;
  if (session_.frames_with_rows < 3 && !rows->rows.empty()) return false;
  if (table_.scrolling()) return false;
  if (tab_ == ExplorerTab::Figures) return figures_.settled(session_);
  if (tab_ == ExplorerTab::Curves) return curves_.settled(session_);
  if (tab_ == ExplorerTab::Run) return run_.settled(session_);
  if (tab_ == ExplorerTab::Compare) return compare_.settled(session_);
  return true;
}

}  // namespace headroom::gui

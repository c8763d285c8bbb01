#include "app/gui/views/explorer_worker_bar.h"

#include <imgui.h>

#include <algorithm>
#include <filesystem>

#include "app/gui/explorer/data_paths.h"
#include "app/gui/ui_util.h"
#include "app/gui/views/explorer_table.h"

namespace headroom::gui {

void ExplorerWorkerBar::poll(ExplorerSession& session) {
  worker_.poll();
  if (!worker_.running() && !queued_commands_.empty()) {
    auto args = std::move(queued_commands_.front());
    queued_commands_.pop_front();
    start(std::move(args), session);
  }
}

void ExplorerWorkerBar::draw_empty_db_offer(ExplorerSession& session) {
  ImGui::Spacing();
  wrapped_text(
      "This database has no runs yet. Enqueue a suite above (quick scale: a minute or two on two "
      "cores) and start a worker; runs appear here as the worker writes them.");
  if (ImGui::Button("Run every quick suite")) {
    for (const auto& file : suite_files()) enqueue_suite(file, "quick", session.loader->db_path());
    queued_commands_.push_back({"serve", "--db", session.loader->db_path()});
  }
  tooltip("Enqueues the " + std::to_string(suite_files().size()) +
          " shipped suites at quick scale, then starts `headroom-worker serve`.");
  if (!explorer::results_db_path().empty()) {
    ImGui::SameLine();
    if (ImGui::Button("Open the papers' results")) session.context.request_open_path = explorer::results_db_path();
    tooltip(
        "The suites' full-scale runs shipped with Headroom (assets/results/README.md lists them): curves, the "
        "papers' figures, P_l / P_w replays, and trained weights to open in the lab. Nothing to train.");
  }
}

const std::vector<std::string>& ExplorerWorkerBar::suite_files() const {
  if (suite_files_loaded_) return suite_files_;
  suite_files_loaded_ = true;
  std::vector<std::string>& files = suite_files_;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(suites_dir_, ec))
    if (e.path().extension() == ".toml") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

void ExplorerWorkerBar::start(std::vector<std::string> args, ExplorerSession& session) {
  std::string error;
  if (!worker_.start(explorer::find_worker_program(), args, &error)) session.message = error;
  else session.message.clear();
}

void ExplorerWorkerBar::enqueue_suite(const std::string& suite_file, const std::string& scale,
                                      const std::string& db_path) {
  queued_commands_.push_back({"enqueue", suite_file, "--scale", scale, "--db", db_path});
}

std::string ExplorerWorkerBar::choice() const {
  const auto& files = suite_files();
  if (files.empty()) return "";
  const int i = std::clamp(suite_index_, 0, static_cast<int>(files.size()) - 1);
  return std::filesystem::path(files[static_cast<size_t>(i)]).stem().string() + " " + kScales[scale_index_];
}

void ExplorerWorkerBar::preselect(const std::string& suite_name, const std::string& scale) {
  const auto& files = suite_files();
  std::string stem = suite_name;  // suite "th-heads" lives in th_heads.toml
  std::replace(stem.begin(), stem.end(), '-', '_');
  for (int i = 0; i < static_cast<int>(files.size()); ++i)
    if (std::filesystem::path(files[static_cast<size_t>(i)]).stem().string() == stem) suite_index_ = i;
  for (int i = 0; i < 3; ++i)
    if (scale == kScales[i]) scale_index_ = i;
}

void ExplorerWorkerBar::draw(ExplorerSession& session) {
  const std::string& db_path = session.loader->db_path();
  if (explorer::is_shipped_db(db_path)) {  // shipped with Headroom: nothing is trained into it
    ImGui::PushTextWrapPos(0.0f);
    wrapped_text_disabled(
        "%s", db_path == explorer::results_db_path()
                  ? "The papers' results shipped with Headroom, read-only (assets/results/README.md lists the "
                    "runs). To train, open or create another database above."
                  : "Paper-scale results shipped with Headroom, trained on a GPU, read-only (their write-ups "
                    "are in docs/results/). To train, open or create another database above.");
    ImGui::PopTextWrapPos();
    return;
  }
  const auto& files = suite_files();
  if (session.open() && preselected_for_ != db_path) {
    // A DB just opened: offer the suite (and scale) it was last enqueued with, not the first file.
    preselected_for_ = db_path;
    if (!session.rows->suites.empty()) preselect(session.rows->suites.back().name, session.rows->suites.back().scale);
  }
  ImGui::SetNextItemWidth(200.0f * session.context.ui_scale);
  suite_index_ = std::clamp(suite_index_, 0, std::max(0, static_cast<int>(files.size()) - 1));
  const std::string current =
      files.empty() ? "(no suites found)" : std::filesystem::path(files[suite_index_]).stem().string();
  if (ImGui::BeginCombo("##suite", current.c_str())) {
    for (int i = 0; i < static_cast<int>(files.size()); ++i)
      if (ImGui::Selectable(std::filesystem::path(files[i]).stem().string().c_str(), i == suite_index_))
        suite_index_ = i;
    ImGui::EndCombo();
  }
  tooltip("A suite from assets/suites: one of the papers' experiments as a grid of runs.");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(80.0f * session.context.ui_scale);
  ImGui::Combo("##scale", &scale_index_, kScales, 3);
  tooltip(
      "quick: seconds per run (tests, demos). full: sized to finish overnight on 2 cores (estimate in the file). "
      "paper: the papers' sizes for one GPU (depth >= 6, widths up to 1024, n 128-512, bf16, linux-docs; token "
      "budget and expected time in the file); a suite file without paper values is refused with the grids that "
      "lack them.");
  ImGui::SameLine();
  ImGui::BeginDisabled(files.empty() || worker_.running());
  if (ImGui::Button("Enqueue")) enqueue_suite(files[suite_index_], kScales[scale_index_], db_path);
  ImGui::EndDisabled();
  tooltip("Runs `headroom-worker enqueue SUITE --scale S --db FILE`: validates the suite, adds its runs to the queue.");
  ImGui::SameLine();
  if (!worker_.running()) {
    if (ImGui::Button("Start worker")) start({"serve", "--db", db_path, "--follow"}, session);
    tooltip(
        "Launches `headroom-worker serve --db FILE --follow` (no shell): trains queued runs, and runs whose worker "
        "died.");
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
  if (!session.message.empty()) ImGui::TextColored(kProblem, "%s", session.message.c_str());
}

}  // namespace headroom::gui

#include "app/gui/views/explorer_worker_bar.h"

#include <imgui.h>

#include <algorithm>
#include <string_view>

#include "app/gui/explorer/data_paths.h"
#include "app/gui/ui_util.h"
#include "app/gui/views/explorer_table.h"
#include "widgets/text_wrap.h"

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
  int quick_suites = 0, quick_runs = 0;
  for (const auto& suite : suites()) {
    if (suite.runs[0] < 0) continue;
    ++quick_suites;
    quick_runs += suite.runs[0];
  }
  if (ImGui::Button("Run every quick suite")) {
    for (const auto& suite : suites())
      if (suite.runs[0] >= 0) enqueue_suite(suite.path, "quick", session.loader->db_path());
    queued_commands_.push_back({"serve", "--db", session.loader->db_path()});
  }
  tooltip("Enqueues the " + std::to_string(quick_suites) + " shipped suites at quick scale (" +
          std::to_string(quick_runs) + " runs), then starts `headroom-worker serve`.");
  if (!explorer::results_db_path().empty()) {
    ImGui::SameLine();
    if (ImGui::Button("Open the papers' results")) session.context.request_open_path = explorer::results_db_path();
    tooltip(
        "The suites' full-scale runs shipped with Headroom (assets/results/README.md lists them): curves, the "
        "papers' figures, P_l / P_w replays, and trained weights to open in the lab. Nothing to train.");
  }
  draw_suite_table();
}

void ExplorerWorkerBar::draw_suite_table() {
  if (suites().empty()) return;
  ImGui::Spacing();
  ImGui::TextUnformatted("The shipped suites");
  ImGui::SameLine();
  ImGui::TextDisabled("(click one to pick it above; its file's header says how it is scaled from the paper)");
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingFixedFit |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_PadOuterX;
  if (!ImGui::BeginTable("##suites", 4, flags, ImVec2(0.0f, ImGui::GetContentRegionAvail().y))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("suite");
  // The two text columns share the width (what a suite reproduces is the longer), so that both wrap
  // in a narrow window or with presentation type.
  ImGui::TableSetupColumn("reproduces", ImGuiTableColumnFlags_WidthStretch, 3.0f);
  ImGui::TableSetupColumn("runs: quick / full / paper");
  ImGui::TableSetupColumn("full scale takes", ImGuiTableColumnFlags_WidthStretch, 1.2f);
  ImGui::TableHeadersRow();
  const ImU32 picked = ImGui::GetColorU32(ImGuiCol_Header);
  for (int i = 0; i < static_cast<int>(suites().size()); ++i) {
    const explorer::SuiteInfo& suite = suites()[static_cast<size_t>(i)];
    ImGui::TableNextRow();
    if (i == suite_index_) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1, picked);
    ImGui::TableNextColumn();
    suite_rows_.emplace_back(suite.stem, ImGui::GetCursorScreenPos().y);
    ImGui::PushID(i);
    if (ImGui::Selectable(suite.stem.c_str(), i == suite_index_,
                          ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowItemOverlap))
      suite_index_ = i;
    tooltip(describe(suite));
    ImGui::PopID();
    ImGui::TableNextColumn();
    if (!suite.error.empty()) {
      ImGui::PushTextWrapPos(0.0f);
      ImGui::TextColored(kProblem, "%s", suite.error.c_str());
      ImGui::PopTextWrapPos();
      continue;
    }
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(suite.reproduces.c_str());
    ImGui::PopTextWrapPos();
    ImGui::TableNextColumn();
    std::string runs;
    for (size_t s = 0; s < suite.runs.size(); ++s)
      runs += (s ? " / " : "") + (suite.runs[s] < 0 ? std::string("-") : std::to_string(suite.runs[s]));
    ImGui::TextUnformatted(runs.c_str());
    ImGui::TableNextColumn();
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("%s", explorer::estimate_headline(suite.full_estimate).c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::EndTable();
}

std::string ExplorerWorkerBar::describe(const explorer::SuiteInfo& suite) {
  if (!suite.error.empty()) return suite.stem + ": " + suite.error + "\n(`headroom-worker enqueue` says the same)";
  std::string text = suite.stem + (suite.paper.empty() ? "" : " (" + suite.paper + ")") + ": " + suite.reproduces;
  text += "\nRuns:";
  for (size_t s = 0; s < suite.runs.size(); ++s)
    text += std::string(s ? "," : "") + " " + explorer::kSuiteScales[s] + " " +
            (suite.runs[s] < 0 ? std::string("none (no values for this scale)") : std::to_string(suite.runs[s]));
  if (!suite.full_estimate.empty()) text += "\nFull scale: " + suite.full_estimate;
  return text;
}

const std::vector<explorer::SuiteInfo>& ExplorerWorkerBar::suites() const {
  if (!suites_loaded_) {
    suites_loaded_ = true;
    suites_ = explorer::list_suite_infos(suites_dir_);
  }
  return suites_;
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
  if (suites().empty()) return "";
  const int i = std::clamp(suite_index_, 0, static_cast<int>(suites().size()) - 1);
  return suites()[static_cast<size_t>(i)].stem + " " + explorer::kSuiteScales[scale_index_];
}

int ExplorerWorkerBar::choice_runs() const {
  if (suites().empty()) return -1;
  const auto& suite = suites()[static_cast<size_t>(std::clamp(suite_index_, 0, static_cast<int>(suites().size()) - 1))];
  return suite.error.empty() ? suite.runs[static_cast<size_t>(scale_index_)] : -1;
}

void ExplorerWorkerBar::preselect(const std::string& suite_name, const std::string& scale) {
  std::string stem = suite_name;  // suite "th-heads" lives in th_heads.toml
  std::replace(stem.begin(), stem.end(), '-', '_');
  for (int i = 0; i < static_cast<int>(suites().size()); ++i)
    if (suites()[static_cast<size_t>(i)].stem == stem) suite_index_ = i;
  for (int i = 0; i < static_cast<int>(explorer::kSuiteScales.size()); ++i)
    if (scale == explorer::kSuiteScales[i]) scale_index_ = i;
}

void ExplorerWorkerBar::draw(ExplorerSession& session) {
  suite_rows_.clear();  // draw_empty_db_offer fills it again when it draws the table
  suite_list_.clear();
  suite_combo_.clear();
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
  const auto& all = suites();
  if (session.open() && preselected_for_ != db_path) {
    // A DB just opened: offer the suite (and scale) it was last enqueued with, not the first file.
    preselected_for_ = db_path;
    if (!session.rows->suites.empty()) preselect(session.rows->suites.back().name, session.rows->suites.back().scale);
  }
  ImGui::SetNextItemWidth(200.0f * session.context.ui_scale);
  suite_index_ = std::clamp(suite_index_, 0, std::max(0, static_cast<int>(all.size()) - 1));
  const explorer::SuiteInfo* picked = all.empty() ? nullptr : &all[static_cast<size_t>(suite_index_)];
  // The open list stays inside the window: at most as wide as the room right of the combo (the
  // descriptions wrap there), and at most 20 lines high as ImGuiComboFlags_HeightLarge would be.
  const ImGuiStyle& style = ImGui::GetStyle();
  const ImGuiViewport* viewport = ImGui::GetMainViewport();
  const float list_width =
      std::max(200.0f * session.context.ui_scale,
               viewport->WorkPos.x + viewport->WorkSize.x - ImGui::GetCursorScreenPos().x - style.WindowPadding.x);
  ImGui::SetNextWindowSizeConstraints(
      ImVec2(0.0f, 0.0f), ImVec2(list_width, (ImGui::GetFontSize() + style.ItemSpacing.y) * 20 - style.ItemSpacing.y +
                                                 2 * style.WindowPadding.y));
  const ImVec2 combo = ImGui::GetCursorScreenPos();
  suite_combo_ = {combo.x, combo.y, combo.x + ImGui::CalcItemWidth(), combo.y + ImGui::GetFrameHeight()};
  if (ImGui::BeginCombo("##suite", picked ? picked->stem.c_str() : "(no suites found)")) {
    // Each suite with what it reproduces, in a column of its own, so that the list says which
    // paper figure each one is.
    float names = 0.0f;
    for (const auto& suite : all) names = std::max(names, ImGui::CalcTextSize(suite.stem.c_str()).x);
    const float column = style.WindowPadding.x + names + ImGui::GetFontSize();
    const float text_width = list_width - style.WindowPadding.x - column;
    float text_right = 0.0f;
    for (int i = 0; i < static_cast<int>(all.size()); ++i) {
      const explorer::SuiteInfo& suite = all[static_cast<size_t>(i)];
      // Wrapped here rather than by ImGui, so that the row's height is known before its Selectable.
      const std::string text =
          widgets::wrap_in_current_font(suite.error.empty() ? suite.reproduces : "cannot be read", text_width);
      const float height = ImGui::CalcTextSize(text.c_str()).y;
      if (ImGui::Selectable(suite.stem.c_str(), i == suite_index_, 0, ImVec2(0.0f, height))) suite_index_ = i;
      tooltip(describe(suite));
      ImGui::SameLine(column);
      if (suite.error.empty()) ImGui::TextDisabled("%s", text.c_str());
      else ImGui::TextColored(kProblem, "%s", text.c_str());
      text_right = std::max(text_right, ImGui::GetItemRectMax().x);
    }
    const ImVec2 pos = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    suite_list_ = {pos.x, pos.y, pos.x + size.x, pos.y + size.y, text_right};
    ImGui::EndCombo();
  }
  tooltip(picked ? describe(*picked) : "No suite files in " + suites_dir_ + " (assets/suites in a source tree).");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(80.0f * session.context.ui_scale);
  ImGui::Combo("##scale", &scale_index_, explorer::kSuiteScales.data(),
               static_cast<int>(explorer::kSuiteScales.size()));
  tooltip(
      "quick: seconds per run (tests, demos). full: sized to finish overnight on 2 cores (estimate in the file). "
      "paper: the papers' sizes for one GPU (depth >= 6, widths up to 1024, n 128-512, bf16, linux-docs; token "
      "budget and expected time in the file).");
  ImGui::SameLine();
  const int runs = choice_runs();
  const char* scale = explorer::kSuiteScales[static_cast<size_t>(scale_index_)];
  ImGui::BeginDisabled(runs < 0 || worker_.running());
  if (ImGui::Button("Enqueue")) enqueue_suite(picked->path, scale, db_path);
  ImGui::EndDisabled();
  if (picked && runs >= 0) {
    std::string what = "Adds the " + std::to_string(runs) + " runs of " + picked->stem + " at " + scale + " scale";
    if (std::string(scale) == "full" && !picked->full_estimate.empty())
      what += " (" + explorer::estimate_headline(picked->full_estimate) + ")";
    tooltip(what + " to the queue: runs `headroom-worker enqueue SUITE --scale S --db FILE`, which validates them.");
  } else if (picked) {
    ImGui::SameLine();
    ImGui::TextDisabled("%s", picked->error.empty() ? (picked->stem + " has no " + scale + " scale").c_str()
                                                    : (picked->stem + " cannot be read").c_str());
    tooltip(describe(*picked));
  }
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

#include "app/gui/views/explorer_run.h"

#include <nlohmann/json.hpp>

#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "app/gui/ui_util.h"
#include "app/gui/views/explorer_table.h"
#include "core/attention/attention_spec.h"
#include "widgets/heatmap.h"

namespace headroom::gui {
namespace {

// Talking-heads kinds store P_l / P_w snapshots (one per evaluation).
bool stores_projections(const std::string& kind) {
  const auto k = core::parse_attention_kind(kind);
  return k && core::is_talking_heads_family(*k);
}

// The share of a projection's weight (sum of |entries|) off its diagonal, in percent: 0 for the
// identity block the projections start near, higher as the heads mix more.
int off_diagonal_percent(const explorer::ProjectionMap& m) {
  double off = 0, all = 0;
  for (int r = 0; r < m.rows; ++r)
    for (int c = 0; c < m.cols; ++c) {
      const double v = std::fabs(m.values[static_cast<size_t>(r * m.cols + c)]);
      all += v;
      off += r == c ? 0.0 : v;
    }
  return all > 0 ? static_cast<int>(std::lround(100.0 * off / all)) : 0;
}

}  // namespace

bool ExplorerRun::settled(const ExplorerSession& session) const {
  if (session.focused < 0 || !session.loader) return true;
  const auto& d = drawn_;
  return d && d->request == wanted_ &&
         (!wanted_.projections || d->projection_steps.empty() || replay_step_ < 0 ||
          d->projection_step == replay_step_);
}

const explorer::RunRow* ExplorerRun::request(ExplorerSession& session) {
  const explorer::RunRow* row = session.focused >= 0 ? session.find_row(session.focused) : nullptr;
  if (!row) {
    ImGui::TextDisabled("Click a run in the table to see it here (double-click jumps to this tab).");
    return nullptr;
  }
  // The run's stored steps and P_l / P_w snapshot: read by the loader, never in a frame.
  if (wanted_.run_id != row->id) replay_step_ = -1, weights_index_ = -1;
  const explorer::RunDetailRequest want{row->id, stores_projections(row->kind), replay_step_};
  if (want != wanted_) {
    wanted_ = want;
    session.loader->want_run(want);
  }
  drawn_ = session.loader->run_detail();
  return row;
}

void ExplorerRun::draw_replay_panel(ExplorerSession& session) {
  const explorer::RunRow* row = request(session);
  if (!row) return;
  ImGui::Text("%s", row->name.c_str());
  ImGui::SameLine();
  ImGui::PushTextWrapPos(0.0f);
  wrapped_text_disabled("%s, h = %d (h_k %d, h_v %d), d = %d, %d layers; val loss %s after %lld steps",
                        row->kind.c_str(), row->h, row->h_k, row->h_v, row->d, row->L,
                        format_number(row->last_val_loss, "%.3f").c_str(), static_cast<long long>(row->step));
  ImGui::PopTextWrapPos();
  if (!wanted_.projections)
    ImGui::TextDisabled("P_l / P_w replay: only talking-heads kinds store projections; %s is %s.", row->name.c_str(),
                        row->kind.c_str());
  else if (drawn_->request.run_id != row->id) ImGui::TextDisabled("reading the run's stored steps...");
  else draw_projection_replay(*drawn_, session.context.ui_scale, /*large=*/true);
}

void ExplorerRun::draw(ExplorerSession& session) {
  const explorer::RunRow* row = request(session);
  if (!row) return;
  ImGui::Text("%s", row->name.c_str());
  ImGui::SameLine();
  const auto stranded = session.stranded.find(row->id);
  const bool no_worker = stranded != session.stranded.end();
  ImGui::TextDisabled(
      "(run %lld, %s)", static_cast<long long>(row->id),
      no_worker ? db::running_word(stranded->second.state) : std::string(db::to_string(row->status)).c_str());
  if (no_worker) {
    ImGui::PushTextWrapPos(0.0f);
    wrapped_text_colored(status_color(db::RunStatus::Cancelled), "%s at step %lld: %s",
                         db::running_word(stranded->second.state), static_cast<long long>(row->step),
                         db::worker_problem(row->worker, stranded->second, session.loader->db_path()).c_str());
    ImGui::PopTextWrapPos();
  }
  if (!row->error_text.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    wrapped_text_colored(kProblem, "failed: %s", row->error_text.c_str());
    ImGui::PopTextWrapPos();
  }
  // A run that has logged nothing yet (queued) shows "-" for its losses and speed, not "nan".
  summary_ = "step " + std::to_string(row->step) + " of " + std::to_string(row->steps_total) + "; train loss " +
             format_number(row->last_train_loss, "%.4f") + ", val loss " + format_number(row->last_val_loss, "%.4f") +
             " (best " + format_number(row->best_val_loss, "%.4f") + "); " + format_number(row->tokens_per_s, "%.0f") +
             " tokens/s on average; " + explorer::thousands(row->params) + " parameters";
  wrapped_unformatted(summary_);

  const auto detail = drawn_;
  if (detail->request.run_id != row->id) {
    ImGui::TextDisabled("reading the run's stored steps...");
  } else if (detail->weights_steps.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    // A worker stores weights at every checkpoint: a finished run without any lost them to an export.
    // One pass over the rows' weight counts (configs compared only where there are weights):
    // microseconds at 100,000 runs, so it is not cached.
    const explorer::RunRow* twin =
        row->status == db::RunStatus::Done ? explorer::weights_twin(session.rows->rows, *row) : nullptr;
    if (twin) {
      wrapped_text_disabled(
          "No weights of its own: it is the same model as %s (the same config and seed), whose final weights are "
          "stored; a results export keeps such weights once.",
          twin->name.c_str());
      const std::int64_t twin_id = twin->id;  // `twin` points into the rows, which a reload replaces
      if (ImGui::Button("Show that run")) session.focused = twin_id, session.selected = {twin_id};
      tooltip("Its Run tab opens those weights in the lab.");
    } else if (row->status == db::RunStatus::Done)
      wrapped_text_disabled(
          "No weights were kept for this run: a results export (like the results shipped with Headroom) keeps the "
          "final weights of a few runs per suite. The filter weights>0 lists the runs the lab can open.");
    else if (row->status == db::RunStatus::Failed || row->status == db::RunStatus::Cancelled)
      wrapped_text_disabled(
          "No stored weights: the run stopped before its first checkpoint, or an export left them out.");
    else wrapped_text_disabled("No stored weights yet (the worker stores them at every checkpoint).");
    ImGui::PopTextWrapPos();
  } else {
    const auto& steps = detail->weights_steps;
    const int last = static_cast<int>(steps.size()) - 1;
    weights_index_ = weights_index_ < 0 ? last : std::min(weights_index_, last);  // the newest by default
    ImGui::SetNextItemWidth(240.0f * session.context.ui_scale);
    const std::string label = "step " + std::to_string(steps[static_cast<size_t>(weights_index_)]);
    ImGui::SliderInt("##weights_step", &weights_index_, 0, last, label.c_str());
    ImGui::SameLine();
    if (ImGui::Button("Open in lab")) session.open_in_lab(*row, steps[static_cast<size_t>(weights_index_)]);
    tooltip(
        "The lab shows this checkpoint's attention maps on the typed input, its spectra and P_l / P_w, with a "
        "scrubber over every stored step.");
  }
  if (detail->request.run_id == row->id && !detail->error.empty())
    ImGui::TextColored(kProblem, "%s", detail->error.c_str());

  if (ImGui::BeginTable("##run_detail", 2, ImGuiTableFlags_SizingStretchProp, ImVec2(0, 0))) {
    // The maps get the larger share: the config scrolls, the maps should be readable.
    ImGui::TableSetupColumn("config", ImGuiTableColumnFlags_WidthStretch, 2.0f);
    ImGui::TableSetupColumn("replay", ImGuiTableColumnFlags_WidthStretch, 3.0f);
    ImGui::TableNextColumn();
    ImGui::TextDisabled("config");
    ImGui::BeginChild("##config", ImVec2(0, 0), true);
    if (session.context.mono_font) ImGui::PushFont(session.context.mono_font);
    if (detail->request.run_id != row->id) {
      ImGui::TextDisabled("reading ...");
    } else {
      if (config_run_ != row->id || config_version_ != detail->version) {  // once per answer, not per frame
        config_run_ = row->id, config_version_ = detail->version;
        const auto parsed = nlohmann::json::parse(detail->config_json, nullptr, /*allow_exceptions=*/false);
        config_text_ = parsed.is_discarded() ? detail->config_json + "\n(not valid JSON)" : parsed.dump(2);
      }
      ImGui::TextUnformatted(config_text_.c_str());
    }
    if (session.context.mono_font) ImGui::PopFont();
    ImGui::EndChild();
    ImGui::TableNextColumn();
    if (!wanted_.projections) ImGui::TextDisabled("P_l / P_w replay: only talking-heads kinds store projections.");
    else if (detail->request.run_id == row->id) draw_projection_replay(*detail, session.context.ui_scale);
    ImGui::EndTable();
  }
}

void ExplorerRun::draw_projection_replay(const explorer::RunDetail& detail, float ui_scale, bool large) {
  const auto& steps = detail.projection_steps;
  if (steps.empty()) {
    ImGui::TextDisabled("No P_l / P_w snapshots stored yet (one per evaluation).");
    return;
  }
  if (replay_fraction_ >= 0) {  // a lesson's animation drives the slider
    const double at = std::clamp(replay_fraction_, 0.0, 1.0) * static_cast<double>(steps.size() - 1);
    replay_step_ = steps[static_cast<size_t>(std::lround(at))];
  }
  // The slider shows the wanted step at once; the maps follow when the loader has decoded it.
  const std::int64_t wanted = replay_step_ >= 0 ? replay_step_ : detail.projection_step;
  int index = static_cast<int>(std::lower_bound(steps.begin(), steps.end(), wanted) - steps.begin());
  index = std::clamp(index, 0, static_cast<int>(steps.size()) - 1);
  // The step beside the slider, not on it: with a few snapshots the grab is wide, and text over it
  // (white on gold in presentation mode) could not be read.
  const std::string label = "P_l / P_w at step " + std::to_string(steps[static_cast<size_t>(index)]);
  ImGui::SetNextItemWidth(std::max(80.0f, ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize(label.c_str()).x -
                                              ImGui::GetStyle().ItemSpacing.x));
  if (ImGui::SliderInt("##replay", &index, 0, static_cast<int>(steps.size()) - 1, ""))
    replay_step_ = steps[static_cast<size_t>(index)];
  tooltip("Replay the talking-heads projections over training (TH §7.4, Fig. 1): drag through the stored steps.");
  ImGui::SameLine();
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(label.c_str());
  if (detail.projection_step != steps[static_cast<size_t>(index)])
    ImGui::TextDisabled("reading step %lld...", static_cast<long long>(steps[static_cast<size_t>(index)]));
  widgets::HeatmapStyle style;
  style.colormap = widgets::Colormap::Diverging;
  style.tooltip_format = "row %s, col %s: %.3f";
  // Two maps a row; large (a lesson): as big as the panel allows, the titles above each map included.
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float rows = std::ceil(static_cast<float>(detail.maps.size()) / 2.0f);
  const float title = 2.0f * (ImGui::GetTextLineHeightWithSpacing() + ImGui::GetStyle().ItemSpacing.y);
  const float half = avail.x / 2.0f - 8.0f;
  // Each map fits its box with square cells: a wide h_k x h map takes the box's width, a tall
  // h x h_v one its height.
  const ImVec2 box = large ? ImVec2(half, std::max(80.0f, avail.y / std::max(1.0f, rows) - title - 8.0f))
                           : ImVec2(std::min(220.0f * ui_scale, half), std::min(220.0f * ui_scale, half));
  for (size_t i = 0; i < detail.maps.size(); ++i) {
    if (i % 2 == 1) ImGui::SameLine();
    ImGui::BeginGroup();
    const auto& m = detail.maps[i];
    style.size = box;
    style.title = m.name.c_str();
    style.version = detail.version;
    widgets::Heatmap(("##p" + std::to_string(i)).c_str(), m.values.data(), m.rows, m.cols, style);
    ImGui::TextDisabled("%d%% off the diagonal", off_diagonal_percent(m));
    tooltip(m.rows == m.cols ? "The share of the matrix's |weights| off its diagonal: 0% is plain multi-head "
                               "attention, each head on its own; more means heads talk (TH §7.4)."
                             : "The share of the matrix's |weights| off its rectangular diagonal (row i, column i), "
                               "where training starts (identity plus a little noise: each of the first heads on its "
                               "own, the others nearly empty); more means heads talk (TH §7.4).");
    ImGui::EndGroup();
  }
}

}  // namespace headroom::gui

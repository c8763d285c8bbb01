#include "app/gui/views/explorer_curves.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "app/gui/ui_util.h"
#include "app/gui/views/plot_series.h"
#include "core/io/atomic_file.h"
#include "widgets/draw_util.h"
#include "widgets/line_plot.h"
#include "widgets/png_export.h"

namespace headroom::gui {
namespace {

ImU32 run_color(std::int64_t id) { return widgets::detail::palette_color(static_cast<int>(id)); }

std::vector<float> to_float(const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); }

}  // namespace

std::vector<explorer::CurveKey> ExplorerCurves::wanted(const ExplorerSession& session) const {
  std::vector<explorer::CurveKey> keys;
  for (std::int64_t id : session.selected) {
    if (!session.find_row(id)) continue;
    keys.push_back({id, settings.metric, settings.x_axis, std::nullopt, settings.buckets});
    if (zoom_steps_) keys.push_back({id, settings.metric, settings.x_axis, zoom_steps_, settings.buckets});
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

bool ExplorerCurves::settled(const ExplorerSession& session) const {
  return session.curves_ready() && svg_request_.empty() && (scene_export.empty() || session.selected.empty());
}

void ExplorerCurves::draw_controls(float ui_scale) {
  // One row where the window has room; a narrow one (presentation type) wraps the controls.
  Settings& s = settings;
  controls_overflow_ = false;
  const auto check = [&] { controls_overflow_ = controls_overflow_ || item_runs_past_edge(); };
  static const char* kMetrics[] = {"val_loss", "train_loss", "lr", "grad_norm", "tokens_per_s"};
  ImGui::SetNextItemWidth(combo_width(kMetrics, IM_ARRAYSIZE(kMetrics)));
  if (ImGui::BeginCombo("##metric", s.metric.c_str())) {
    for (const char* m : kMetrics)
      if (ImGui::Selectable(m, s.metric == m)) s.metric = m, zoom_steps_.reset();
    ImGui::EndCombo();
  }
  check();
  static const explorer::XAxis kAxes[] = {explorer::XAxis::Step, explorer::XAxis::Tokens, explorer::XAxis::TrainSeconds,
                                          explorer::XAxis::RelativeHours};
  const char* axis_labels[IM_ARRAYSIZE(kAxes)];
  for (int i = 0; i < IM_ARRAYSIZE(kAxes); ++i) axis_labels[i] = explorer::x_axis_label(kAxes[i]);
  same_line_if_fits(combo_width(axis_labels, IM_ARRAYSIZE(kAxes)));
  ImGui::SetNextItemWidth(combo_width(axis_labels, IM_ARRAYSIZE(kAxes)));
  if (ImGui::BeginCombo("##x_axis", explorer::x_axis_label(s.x_axis))) {
    for (auto a : kAxes)
      if (ImGui::Selectable(explorer::x_axis_label(a), a == s.x_axis)) s.x_axis = a, zoom_steps_.reset();
    ImGui::EndCombo();
  }
  check();
  same_line_if_fits(labelled_width(ImGui::GetFrameHeight(), "log x"));
  ImGui::Checkbox("log x", &s.log_x);
  check();
  same_line_if_fits(labelled_width(ImGui::GetFrameHeight(), "log y"));
  ImGui::Checkbox("log y", &s.log_y);
  check();
  const char* smoothings[] = {"no smoothing", "EMA (debiased)", "moving average"};
  int sm = static_cast<int>(s.smoothing);
  same_line_if_fits(combo_width(smoothings, 3));
  ImGui::SetNextItemWidth(combo_width(smoothings, 3));
  if (ImGui::Combo("##smoothing", &sm, smoothings, 3)) s.smoothing = static_cast<Smoothing>(sm);
  check();
  if (s.smoothing == Smoothing::Ema) {
    same_line_if_fits(90.0f * ui_scale);
    ImGui::SetNextItemWidth(90.0f * ui_scale);
    ImGui::SliderFloat("##ema", &s.ema_weight, 0.0f, 0.99f, "w %.2f");
    tooltip("TensorBoard's smoothing weight; the start is debiased (divided by 1 - w^k) so it is not pulled to 0.");
  } else if (s.smoothing == Smoothing::MovingAverage) {
    same_line_if_fits(90.0f * ui_scale);
    ImGui::SetNextItemWidth(90.0f * ui_scale);
    ImGui::SliderInt("##ma", &s.ma_window, 2, 50, "%d points");
  }
  const char* groupings[] = {"each run", "mean over seeds", "mean by config key"};
  int gr = static_cast<int>(s.grouping);
  same_line_if_fits(combo_width(groupings, 3));
  ImGui::SetNextItemWidth(combo_width(groupings, 3));
  if (ImGui::Combo("##grouping", &gr, groupings, 3)) s.grouping = static_cast<Grouping>(gr);
  check();
  tooltip(
      "Mean over seeds: runs whose configs differ only in train.seed become one mean line with a band.\n"
      "By config key: every selected run with the same value of the key (e.g. model.attention.heads).");
  if (s.grouping != Grouping::None) {
    if (s.grouping == Grouping::ConfigKey) {
      same_line_if_fits(170.0f * ui_scale);
      ImGui::SetNextItemWidth(170.0f * ui_scale);
      ImGui::InputText("##group_key", s.group_key, sizeof s.group_key);
    }
    const char* bands[] = {"min-max band", "+-std band"};
    same_line_if_fits(combo_width(bands, 2));
    int b = static_cast<int>(s.band);
    ImGui::SetNextItemWidth(combo_width(bands, 2));
    if (ImGui::Combo("##band", &b, bands, 2)) s.band = static_cast<explorer::BandKind>(b);
  }
}

void ExplorerCurves::draw(ExplorerSession& session, bool bench_pan) {
  const Settings& s = settings;
  const float ui_scale = session.context.ui_scale;
  draw_controls(ui_scale);

  // The curves of the selected runs: the zoomed window where it has arrived, else the whole run.
  std::vector<explorer::Curve> curves;
  std::vector<const explorer::RunRow*> owners;
  std::vector<const explorer::RunRow*> selected_rows;  // with or without a curve yet
  for (std::int64_t id : session.selected) {
    const explorer::RunRow* row = session.find_row(id);
    if (row) selected_rows.push_back(row);
    if (!row || !session.curves) continue;
    const explorer::Curve* shown = nullptr;
    if (zoom_steps_) {
      auto z = session.curves->curves.find({id, s.metric, s.x_axis, zoom_steps_, s.buckets});
      if (z != session.curves->curves.end() && !z->second.x.empty()) shown = &z->second;
    }
    if (!shown) {
      auto f = session.curves->curves.find({id, s.metric, s.x_axis, std::nullopt, s.buckets});
      if (f != session.curves->curves.end() && !f->second.x.empty()) shown = &f->second;
    }
    if (!shown) continue;
    curves.push_back(*shown);
    owners.push_back(row);
  }
  auto smooth = [&](const std::vector<double>& y) {
    if (s.smoothing == Smoothing::Ema) return explorer::ema_debiased(y, s.ema_weight);
    if (s.smoothing == Smoothing::MovingAverage) return explorer::moving_average(y, s.ma_window);
    return y;
  };
  std::vector<PlotSeries> series;
  if (s.grouping == Grouping::None) {
    std::vector<std::string> names, suites;
    for (const explorer::RunRow* o : owners) {
      names.push_back(session.short_name(*o));
      suites.push_back(o->suite);
    }
    names = explorer::with_suites_where_alike(std::move(names), suites);
    for (size_t i = 0; i < curves.size(); ++i) {
      const ImU32 color = run_color(owners[i]->id);
      PlotSeries raw{names[i], "", color, 2.0f, {}, {}, {}, {}};
      explorer::envelope_polyline(curves[i], &raw.x, &raw.y);
      if (s.smoothing == Smoothing::None) {
        series.push_back(std::move(raw));
      } else {  // the raw envelope faint underneath, the smoothed line on top
        raw.label = "##raw" + std::to_string(owners[i]->id);
        raw.color = with_alpha(color, 70);
        raw.thickness = 1.0f;
        series.push_back(std::move(raw));
        series.push_back({names[i], "", color, 2.0f, to_float(curves[i].x), to_float(smooth(curves[i].y)), {}, {}});
      }
    }
  } else {
    std::vector<std::string> keys;
    for (size_t i = 0; i < curves.size(); ++i) {
      curves[i].y = smooth(curves[i].y);
      keys.push_back(s.grouping == Grouping::SeedsOnly
                         ? explorer::seedless_group_key(owners[i]->suite, owners[i]->label, owners[i]->config)
                         : s.group_key + std::string("=") + explorer::config_value(owners[i]->config, s.group_key));
    }
    const auto groups = explorer::group_curves(curves, keys, s.band);
    std::vector<std::string> names, suites;
    for (const auto& g : groups) {
      const explorer::RunRow* first = session.find_row(g.run_ids.front());
      const bool seeds = s.grouping == Grouping::SeedsOnly && first;
      names.push_back(seeds ? explorer::without_seed(session.short_name(*first)) : g.key_value);
      // A seed group is one suite's; a group by a config key's value may span suites (no prefix).
      suites.push_back(seeds ? first->suite : std::string());
    }
    names = explorer::with_suites_where_alike(std::move(names), suites);
    for (size_t i = 0; i < groups.size(); ++i) {
      const auto& g = groups[i];
      const std::string label = explorer::runs_counted(names[i], g.run_ids.size());
      series.push_back({label, "##band" + label, run_color(g.run_ids.front()), 2.0f, to_float(g.x), to_float(g.mean),
                        to_float(g.lo), to_float(g.hi)});
    }
  }
  curves_drawn_ = static_cast<int>(series.size());

  const float footer = ImGui::GetFrameHeightWithSpacing();
  if (session.selected.empty()) {
    ImGui::TextDisabled("Select runs in the table to plot their %s.", s.metric.c_str());
    return;
  }
  if (curves.empty() && session.curves_ready())
    ImGui::TextDisabled("The selected runs have logged no %s yet.", s.metric.c_str());
  // Losses per byte beside losses per BPE token look comparable and are not: say so above the plot.
  if (const std::string units = explorer::loss_units_warning(selected_rows, s.metric); !units.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    wrapped_text_colored(kProblem, "%s", units.c_str());
    ImGui::PopTextWrapPos();
  }
  if (!scene_export.empty() && session.curves_ready() && session.frames_with_rows >= 3 && !curves.empty()) {
    // A scene's "export": as the buttons do.
    std::snprintf(export_path_, sizeof export_path_, "%s", scene_export.c_str());
    export_csv(session);
    svg_request_ = scene_export + ".svg";
    scene_export.clear();
  }
  const ImVec2 plot_min = ImGui::GetCursorScreenPos();
  if (widgets::BeginPlot("##curves", ImVec2(-1, -footer))) {
    widgets::SetupAxes(explorer::x_axis_label(s.x_axis), s.metric.c_str(),
                       (s.log_x ? widgets::PlotFlags_LogX : 0) | (s.log_y ? widgets::PlotFlags_LogY : 0));
    if (bench_pan && !curves.empty()) {
      double lo = curves[0].x.front(), hi = curves[0].x.back();
      for (const auto& c : curves) lo = std::min(lo, c.x.front()), hi = std::max(hi, c.x.back());
      const int phase = (++bench_frame_ / 4) % 20;
      const double width = (hi - lo) * (0.05 + 0.04 * (phase % 5));
      const double start = lo + (hi - lo - width) * phase / 19.0;
      widgets::SetupAxisLimitsX(start, start + width, widgets::PlotCond_Always);
    }
    if (!svg_request_.empty()) widgets::CapturePlotSvg(&svg_buffer_, 1200, 700);
    plot_all(series);
    if (marked_step_ >= 0) widgets::PlotVLine("##marked", marked_step_, IM_COL32(255, 255, 255, 160));
    const widgets::PlotRange range = widgets::GetPlotLimitsX();
    const bool ranged = widgets::IsPlotUserRanged() || bench_pan;
    if (widgets::IsPlotClicked() && s.x_axis == explorer::XAxis::Step) marked_step_ = widgets::GetPlotMousePosX();
    widgets::EndPlot();
    // Zoomed: fetch the window at full resolution (padded, so small pans reuse it); the store
    // answers from its min/max pyramid, faithful at any size.
    if (ranged && std::isfinite(range.min) && std::isfinite(range.max) && range.max > range.min) {
      std::optional<db::StepRange> want;
      for (std::int64_t id : session.selected) {
        if (!session.curves) break;
        auto f = session.curves->curves.find({id, s.metric, s.x_axis, std::nullopt, s.buckets});
        if (f == session.curves->curves.end()) continue;
        if (auto steps = explorer::steps_for_x_range(f->second, range.min, range.max)) {
          if (!want) want = steps;
          want->first = std::min(want->first, steps->first);
          want->last = std::max(want->last, steps->last);
        }
      }
      if (want) zoom_steps_ = explorer::next_zoom_window(zoom_steps_, *want);
    } else {
      zoom_steps_.reset();
    }
  }
  const ImVec2 plot_max(plot_min.x + ImGui::GetContentRegionAvail().x, ImGui::GetCursorScreenPos().y);
  if (!svg_request_.empty()) {
    std::string error = svg_buffer_.empty() ? "nothing to write: the plot was not drawn" : "";
    export_error_ = !error.empty() || !core::write_file_atomically(svg_request_, svg_buffer_, &error);
    export_message_ = export_error_ ? error : "wrote " + svg_request_;
    svg_request_.clear();
  }
  draw_export_bar(session, plot_min, plot_max);
}

void ExplorerCurves::draw_export_bar(ExplorerSession& session, const ImVec2& plot_min, const ImVec2& plot_max) {
  ImGui::SetNextItemWidth(220.0f * session.context.ui_scale);
  ImGui::InputText("##export_path", export_path_, sizeof export_path_);
  tooltip("File name without extension for the exports");
  ImGui::SameLine();
  if (ImGui::Button("CSV")) export_csv(session);
  tooltip("The shown curves' points (bucket last / min / max), one line per point");
  ImGui::SameLine();
  if (ImGui::Button("SVG")) svg_request_ = std::string(export_path_) + ".svg";
  tooltip("The plot as vector graphics (SVG 1.1), exactly as shown");
  ImGui::SameLine();
  if (ImGui::Button("PNG")) {
    widgets::request_panel_export(plot_min, plot_max, std::string(export_path_) + ".png");
    export_message_ = "wrote " + std::string(export_path_) + ".png";
    export_error_ = false;
  }
  ImGui::SameLine();
  if (marked_step_ >= 0 && session.focused >= 0) {
    if (const explorer::RunRow* row = session.find_row(session.focused)) {
      const std::string label = "Open step " + std::to_string(static_cast<long long>(marked_step_)) + " in lab";
      if (ImGui::Button(label.c_str())) session.open_in_lab(*row, static_cast<std::int64_t>(marked_step_));
      tooltip("Loads the focused run's stored weights nearest this step into the lab (click the plot to pick a step).");
      ImGui::SameLine();
    }
  }
  if (!export_message_.empty()) {
    if (export_error_) ImGui::TextColored(kProblem, "%s", export_message_.c_str());
    else ImGui::TextDisabled("%s", export_message_.c_str());
  }
}

void ExplorerCurves::export_csv(const ExplorerSession& session) {
  const Settings& s = settings;
  std::vector<explorer::Curve> curves;
  std::vector<std::string> labels;
  for (std::int64_t id : session.selected) {
    const explorer::RunRow* row = session.find_row(id);
    if (!row || !session.curves) continue;
    const auto& all = session.curves->curves;
    auto it = all.find(explorer::CurveKey{id, s.metric, s.x_axis, zoom_steps_, s.buckets});
    if (it == all.end()) it = all.find({id, s.metric, s.x_axis, std::nullopt, s.buckets});
    if (it == all.end()) continue;
    curves.push_back(it->second);
    labels.push_back(row->name);
  }
  const std::string path = std::string(export_path_) + ".csv";
  std::ostringstream csv;
  explorer::write_curves_csv(csv, curves, labels, s.x_axis);
  std::string error;
  export_error_ = !core::write_file_atomically(path, csv.str(), &error);
  export_message_ = export_error_ ? error : "wrote " + path + " (" + std::to_string(curves.size()) + " curves)";
}

}  // namespace headroom::gui

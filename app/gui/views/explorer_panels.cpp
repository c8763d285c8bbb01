// The explorer's tabs: overlaid curves, the papers' figures from stored runs, one run's details
// (open it in the lab, replay its P_l / P_w).
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>

#include "app/gui/gui_options.h"
#include "app/gui/views/explorer_view.h"
#include "core/io/safetensors.h"
#include "experiments_db/connection.h"
#include "experiments_db/run_store.h"
#include "widgets/draw_util.h"
#include "widgets/heatmap.h"
#include "widgets/png_export.h"

namespace headroom::gui {
namespace {

const ImVec4 kProblem(1.0f, 0.45f, 0.40f, 1.0f);

void tooltip(const char* text) {
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text);
}

ImU32 run_color(std::int64_t id) { return widgets::detail::palette_color(static_cast<int>(id)); }

ImU32 with_alpha(ImU32 c, int alpha) { return (c & ~IM_COL32_A_MASK) | (static_cast<ImU32>(alpha) << IM_COL32_A_SHIFT); }

std::vector<float> to_float(const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); }

// One line (and optional band) handed to the plot; owns its arrays until EndPlot().
struct PlotSeries {
  std::string label;
  std::string band_label;  // the plot keeps label pointers until EndPlot(): own them here
  ImU32 color = 0;
  float thickness = 1.5f;
  std::vector<float> x, y, lo, hi;
  float marker_radius = 0.0f;
};

void plot_all(const std::vector<PlotSeries>& series) {
  for (const auto& s : series)
    if (!s.lo.empty()) widgets::PlotShaded(s.band_label.c_str(), s.x.data(), s.lo.data(), s.hi.data(), static_cast<int>(s.x.size()), s.color);
  for (const auto& s : series)
    widgets::PlotLine(s.label.c_str(), s.x.data(), s.y.data(), static_cast<int>(s.x.size()), s.color, s.thickness, s.marker_radius);
}

// A bucketed curve as one polyline that visits every bucket's exact extremes: from the previous
// bucket's last value to the nearer of its min / max, to the other, to its last value, all at
// the bucket's x. With buckets no wider than a few pixels this draws what the full series would
// (the M4 idea: a vertical stroke per pixel column), so spikes survive decimation, and it costs
// a software rasterizer far less than a translucent min..max band.
void envelope_line(const explorer::Curve& c, std::vector<float>* xs, std::vector<float>* ys) {
  xs->clear();
  ys->clear();
  double prev = NAN;
  for (size_t k = 0; k < c.x.size(); ++k) {
    const auto x = static_cast<float>(c.x[k]);
    const double lo = c.y_min[k], hi = c.y_max[k];
    if (std::isfinite(lo) && std::isfinite(hi) && hi > lo) {
      const bool low_first = !std::isfinite(prev) || std::abs(prev - lo) <= std::abs(prev - hi);
      xs->insert(xs->end(), {x, x});
      ys->push_back(static_cast<float>(low_first ? lo : hi));
      ys->push_back(static_cast<float>(low_first ? hi : lo));
    }
    xs->push_back(x);
    ys->push_back(static_cast<float>(c.y[k]));
    prev = c.y[k];
  }
}

bool is_talking_heads_kind(const std::string& kind) {
  return kind == "talking-heads" || kind == "logits-proj" || kind == "weights-proj" || kind == "dynamic-proj";
}

// The run's config without its seed: runs that differ only in seed share it.
std::string seedless_config(const explorer::RunRow& row) {
  nlohmann::json c = row.config;
  if (c.contains("train") && c["train"].is_object()) c["train"].erase("seed");
  return row.suite + "|" + row.label + "|" + c.dump();
}

}  // namespace

void ExplorerView::draw_curves() {
  static const char* kMetrics[] = {"val_loss", "train_loss", "lr", "grad_norm", "tokens_per_s"};
  ImGui::SetNextItemWidth(120.0f * context_.ui_scale);
  if (ImGui::BeginCombo("##metric", metric_.c_str())) {
    for (const char* m : kMetrics)
      if (ImGui::Selectable(m, metric_ == m)) metric_ = m, zoom_steps_.reset();
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  static const explorer::XAxis kAxes[] = {explorer::XAxis::Step, explorer::XAxis::Tokens, explorer::XAxis::TrainSeconds,
                                          explorer::XAxis::RelativeHours};
  ImGui::SetNextItemWidth(150.0f * context_.ui_scale);
  if (ImGui::BeginCombo("##x_axis", explorer::x_axis_label(x_axis_))) {
    for (auto a : kAxes)
      if (ImGui::Selectable(explorer::x_axis_label(a), a == x_axis_)) x_axis_ = a, zoom_steps_.reset();
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  ImGui::Checkbox("log x", &log_x_);
  ImGui::SameLine();
  ImGui::Checkbox("log y", &log_y_);
  ImGui::SameLine();
  const char* smoothings[] = {"no smoothing", "EMA (debiased)", "moving average"};
  int sm = static_cast<int>(smoothing_);
  ImGui::SetNextItemWidth(140.0f * context_.ui_scale);
  if (ImGui::Combo("##smoothing", &sm, smoothings, 3)) smoothing_ = static_cast<Smoothing>(sm);
  if (smoothing_ == Smoothing::Ema) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(90.0f * context_.ui_scale);
    ImGui::SliderFloat("##ema", &ema_weight_, 0.0f, 0.99f, "w %.2f");
    tooltip("TensorBoard's smoothing weight; the start is debiased (divided by 1 - w^k) so it is not pulled to 0.");
  } else if (smoothing_ == Smoothing::MovingAverage) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(90.0f * context_.ui_scale);
    ImGui::SliderInt("##ma", &ma_window_, 2, 50, "%d points");
  }
  ImGui::SameLine();
  const char* groupings[] = {"each run", "mean over seeds", "mean by config key"};
  int gr = static_cast<int>(grouping_);
  ImGui::SetNextItemWidth(150.0f * context_.ui_scale);
  if (ImGui::Combo("##grouping", &gr, groupings, 3)) grouping_ = static_cast<Grouping>(gr);
  tooltip("Mean over seeds: runs whose configs differ only in train.seed become one mean line with a band.\n"
          "By config key: every selected run with the same value of the key (e.g. model.attention.heads).");
  if (grouping_ != Grouping::None) {
    if (grouping_ == Grouping::ConfigKey) {
      ImGui::SameLine();
      ImGui::SetNextItemWidth(170.0f * context_.ui_scale);
      ImGui::InputText("##group_key", group_key_, sizeof group_key_);
    }
    ImGui::SameLine();
    const char* bands[] = {"min-max band", "+-std band"};
    int b = static_cast<int>(band_);
    ImGui::SetNextItemWidth(120.0f * context_.ui_scale);
    if (ImGui::Combo("##band", &b, bands, 2)) band_ = static_cast<explorer::BandKind>(b);
  }

  // The curves of the selected runs: the zoomed window where it has arrived, else the whole run.
  std::vector<explorer::Curve> curves;
  std::vector<const explorer::RunRow*> owners;
  for (std::int64_t id : selected_) {
    const explorer::RunRow* row = find_row(id);
    if (!row || !curves_) continue;
    const explorer::Curve* shown = nullptr;
    if (zoom_steps_) {
      auto z = curves_->curves.find({id, metric_, x_axis_, zoom_steps_, buckets_});
      if (z != curves_->curves.end() && !z->second.x.empty()) shown = &z->second;
    }
    if (!shown) {
      auto f = curves_->curves.find({id, metric_, x_axis_, std::nullopt, buckets_});
      if (f != curves_->curves.end() && !f->second.x.empty()) shown = &f->second;
    }
    if (!shown) continue;
    curves.push_back(*shown);
    owners.push_back(row);
  }
  auto smooth = [&](const std::vector<double>& y) {
    if (smoothing_ == Smoothing::Ema) return explorer::ema_debiased(y, ema_weight_);
    if (smoothing_ == Smoothing::MovingAverage) return explorer::moving_average(y, ma_window_);
    return y;
  };
  std::vector<PlotSeries> series;
  if (grouping_ == Grouping::None) {
    for (size_t i = 0; i < curves.size(); ++i) {
      const ImU32 color = run_color(owners[i]->id);
      PlotSeries raw{short_name(*owners[i]), "", color, 2.0f, {}, {}, {}, {}};
      envelope_line(curves[i], &raw.x, &raw.y);
      if (smoothing_ == Smoothing::None) {
        series.push_back(std::move(raw));
      } else {  // the raw envelope faint underneath, the smoothed line on top
        raw.label = "##raw" + std::to_string(owners[i]->id);
        raw.color = with_alpha(color, 70);
        raw.thickness = 1.0f;
        series.push_back(std::move(raw));
        series.push_back({short_name(*owners[i]), "", color, 2.0f, to_float(curves[i].x), to_float(smooth(curves[i].y)), {}, {}});
      }
    }
  } else {
    std::vector<std::string> keys;
    for (size_t i = 0; i < curves.size(); ++i) {
      curves[i].y = smooth(curves[i].y);
      keys.push_back(grouping_ == Grouping::SeedsOnly ? seedless_config(*owners[i])
                                                      : group_key_ + std::string("=") + explorer::config_value(owners[i]->config, group_key_));
    }
    const auto groups = explorer::group_curves(curves, keys, band_);
    for (const auto& g : groups) {
      const explorer::RunRow* first = find_row(g.run_ids.front());
      std::string label = grouping_ == Grouping::SeedsOnly && first ? short_name(*first) : g.key_value;
      if (grouping_ == Grouping::SeedsOnly) {  // "…,seed=0" -> "…, mean of 2 seeds"
        const auto seed = label.find("seed=");
        if (seed != std::string::npos) label = label.substr(0, seed > 0 && label[seed - 1] == ',' ? seed - 1 : seed);
      }
      label += " (" + std::to_string(g.run_ids.size()) + (g.run_ids.size() == 1 ? " run)" : " runs)");
      series.push_back({label, "##band" + label, run_color(g.run_ids.front()), 2.0f, to_float(g.x), to_float(g.mean), to_float(g.lo), to_float(g.hi)});
    }
  }
  curves_drawn_ = static_cast<int>(series.size());

  const float footer = ImGui::GetFrameHeightWithSpacing();
  if (selected_.empty()) {
    ImGui::TextDisabled("Select runs in the table to plot their %s.", metric_.c_str());
    return;
  }
  if (curves.empty() && curves_ && curves_->complete && curves_->curves.size() == curves_wanted_.size()) {
    ImGui::TextDisabled("The selected runs have logged no %s yet.", metric_.c_str());
  }
  const bool bench = context_.options && context_.options->bench_frames > 0 && open_to_full_draw_ms_ >= 0;
  if (!scene_export_.empty() && curves_ready() && frames_with_rows_ >= 3 && !curves.empty()) {  // a scene's "export": as the buttons do
    std::snprintf(export_path_, sizeof export_path_, "%s", scene_export_.c_str());
    export_curves_csv();
    svg_request_ = scene_export_ + ".svg";
    scene_export_.clear();
  }
  const ImVec2 plot_min = ImGui::GetCursorScreenPos();
  if (widgets::BeginPlot("##curves", ImVec2(-1, -footer))) {
    widgets::SetupAxes(explorer::x_axis_label(x_axis_), metric_.c_str(),
                       (log_x_ ? widgets::PlotFlags_LogX : 0) | (log_y_ ? widgets::PlotFlags_LogY : 0));
    if (bench && !curves.empty()) {
      // Benchmark: pan and zoom through the whole run, a new window every 4 frames.
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
    const bool ranged = widgets::IsPlotUserRanged() || bench;
    if (widgets::IsPlotClicked() && x_axis_ == explorer::XAxis::Step) marked_step_ = widgets::GetPlotMousePosX();
    widgets::EndPlot();
    // Zoomed: fetch the window at full resolution (padded by a quarter each side, so small pans
    // reuse it); the store answers from its min/max pyramid, faithful at any size.
    if (ranged && std::isfinite(range.min) && std::isfinite(range.max) && range.max > range.min) {
      std::optional<db::StepRange> want;
      for (std::int64_t id : selected_) {
        auto f = curves_ ? curves_->curves.find({id, metric_, x_axis_, std::nullopt, buckets_}) : curves_->curves.end();
        if (!curves_ || f == curves_->curves.end()) continue;
        if (auto s = explorer::steps_for_x_range(f->second, range.min, range.max)) {
          if (!want) want = s;
          want->first = std::min(want->first, s->first);
          want->last = std::max(want->last, s->last);
        }
      }
      if (want) {
        const bool inside = zoom_steps_ && want->first >= zoom_steps_->first && want->last <= zoom_steps_->last &&
                            (want->last - want->first) * 3 > (zoom_steps_->last - zoom_steps_->first);
        if (!inside) {
          const std::int64_t pad = (want->last - want->first) / 4;
          zoom_steps_ = db::StepRange{std::max<std::int64_t>(0, want->first - pad), want->last + pad};
        }
      }
    } else {
      zoom_steps_.reset();
    }
  }
  const ImVec2 plot_max(plot_min.x + ImGui::GetContentRegionAvail().x, ImGui::GetCursorScreenPos().y);
  if (!svg_request_.empty()) {
    std::ofstream out(svg_request_);
    out << svg_buffer_;
    export_error_ = !out || svg_buffer_.empty();
    export_message_ = export_error_ ? "cannot write " + svg_request_ : "wrote " + svg_request_;
    svg_request_.clear();
  }

  ImGui::SetNextItemWidth(220.0f * context_.ui_scale);
  ImGui::InputText("##export_path", export_path_, sizeof export_path_);
  tooltip("File name without extension for the exports");
  ImGui::SameLine();
  if (ImGui::Button("CSV")) export_curves_csv();
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
  if (marked_step_ >= 0 && focused_ >= 0) {
    if (const explorer::RunRow* row = find_row(focused_)) {
      const std::string label = "Open step " + std::to_string(static_cast<long long>(marked_step_)) + " in lab";
      if (ImGui::Button(label.c_str())) {
        context_.open_in_lab = StoredCheckpoint{loader_->db_path(), row->id, row->name, row->tokenizer,
                                                static_cast<std::int64_t>(marked_step_)};
        context_.select_view = "Lab";
      }
      tooltip("Loads the focused run's stored weights nearest this step into the lab (click the plot to pick a step).");
      ImGui::SameLine();
    }
  }
  if (!export_message_.empty()) {
    if (export_error_) ImGui::TextColored(kProblem, "%s", export_message_.c_str());
    else ImGui::TextDisabled("%s", export_message_.c_str());
  }
}

void ExplorerView::export_curves_csv() {
  std::vector<explorer::Curve> curves;
  std::vector<std::string> labels;
  for (std::int64_t id : selected_) {
    const explorer::RunRow* row = find_row(id);
    if (!row || !curves_) continue;
    auto key = explorer::CurveKey{id, metric_, x_axis_, zoom_steps_, buckets_};
    auto it = curves_->curves.find(key);
    if (it == curves_->curves.end()) it = curves_->curves.find({id, metric_, x_axis_, std::nullopt, buckets_});
    if (it == curves_->curves.end()) continue;
    curves.push_back(it->second);
    labels.push_back(row->name);
  }
  const std::string path = std::string(export_path_) + ".csv";
  std::ofstream out(path, std::ios::binary);
  explorer::write_curves_csv(out, curves, labels, x_axis_);
  export_error_ = !out;
  export_message_ = export_error_ ? "cannot write " + path : "wrote " + path + " (" + std::to_string(curves.size()) + " curves)";
}

void ExplorerView::draw_figures() {
  if (rows_->version != figures_version_ || figures_stale_) {
    figures_version_ = rows_->version;
    figures_stale_ = false;
    figures_.clear();
    figure_warnings_.clear();
    for (const auto& suite : rows_->suites) {
      const auto chosen = figure_axes_.find(suite.name);
      const auto axis = chosen != figure_axes_.end() ? chosen->second : explorer::FigureAxis::Default;
      if (auto f = explorer::build_figure(suite, rows_->rows, assets_dir_ + "/reference", &figure_warnings_, axis))
        figures_.push_back(std::move(*f));
    }
    if (!scene_figure_.empty())
      for (size_t i = 0; i < figures_.size(); ++i)
        if (figures_[i].suite == scene_figure_) {
          figure_index_ = static_cast<int>(i);
          if (scene_figure_axis_ != explorer::FigureAxis::Default) {
            figure_axes_[scene_figure_] = scene_figure_axis_;
            figures_stale_ = true;  // rebuilt next frame on the scene's axis
          }
          scene_figure_.clear();
        }
  }
  if (figures_.empty()) {
    ImGui::TextWrapped("No suite in this database reproduces a paper figure yet. Enqueue one of the suites above "
                       "(e.g. th_heads at quick scale) and start a worker.");
    return;
  }
  figure_index_ = std::clamp(figure_index_, 0, static_cast<int>(figures_.size()) - 1);
  const explorer::Figure& fig = figures_[static_cast<size_t>(figure_index_)];
  ImGui::SetNextItemWidth(260.0f * context_.ui_scale);
  if (ImGui::BeginCombo("##figure", fig.suite.c_str())) {
    for (size_t i = 0; i < figures_.size(); ++i)
      if (ImGui::Selectable(figures_[i].suite.c_str(), static_cast<int>(i) == figure_index_)) figure_index_ = static_cast<int>(i);
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  // x: the suite's own axis or each run's parameter count (VB plots loss against parameters).
  {
    const std::string key_item = "x: " + fig.key_x_label;
    const bool on_params = fig.axis == explorer::FigureAxis::Parameters;
    ImGui::SetNextItemWidth(220.0f * context_.ui_scale);
    if (ImGui::BeginCombo("##figure_x", on_params ? "x: parameters" : key_item.c_str())) {
      const auto pick = [&](explorer::FigureAxis a, const std::string& text, bool selected) {
        const bool is_default = a == fig.default_axis;
        if (ImGui::Selectable((text + (is_default ? " (default)" : "")).c_str(), selected) && !selected) {
          figure_axes_[fig.suite] = a;
          figures_stale_ = true;
        }
      };
      pick(explorer::FigureAxis::SuiteKey, key_item, !on_params);
      pick(explorer::FigureAxis::Parameters, "x: parameters", on_params);
      ImGui::EndCombo();
    }
    tooltip("x: the suite's own axis (its [suite] x key or its grid labels) or each run's parameter count (all "
            "trainable parameters: embeddings, blocks, head; the runs table's 'parameters'). The VB figures use "
            "parameters by default: VB's figures plot loss against parameter count.");
  }
  ImGui::SameLine();
  ImGui::TextWrapped("%s", fig.title.c_str());
  // The notes scroll in a band of their own, so the plots keep their room however many there are.
  ImGui::BeginChild("##figure_notes", ImVec2(0, std::max(60.0f, ImGui::GetContentRegionAvail().y * 0.2f)));
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  for (const auto& note : fig.notes) ImGui::TextWrapped("- %s", note.c_str());
  ImGui::PopStyleColor();
  ImGui::EndChild();
  if (!figure_warnings_.empty()) ImGui::TextColored(kProblem, "%s", figure_warnings_.c_str());

  auto make_series = [&](const std::vector<explorer::FigureSeries>& in, bool ours) {
    std::vector<PlotSeries> out;
    int i = ours ? 0 : 5;
    for (const auto& s : in) {
      PlotSeries p;
      p.label = s.label;
      p.band_label = "##band" + s.label;
      p.color = widgets::detail::palette_color(i++);
      p.thickness = 2.0f;
      p.marker_radius = 3.5f * context_.ui_scale;
      for (const auto& pt : s.points) {
        if (!std::isfinite(pt.mean)) continue;
        p.x.push_back(static_cast<float>(pt.x));
        p.y.push_back(static_cast<float>(pt.mean));
        p.lo.push_back(static_cast<float>(std::isfinite(pt.lo) ? pt.lo : pt.mean));
        p.hi.push_back(static_cast<float>(std::isfinite(pt.hi) ? pt.hi : pt.mean));
      }
      if (!p.x.empty()) out.push_back(std::move(p));
    }
    return out;
  };
  const auto ours = make_series(fig.ours, true), paper = make_series(fig.paper, false);
  const bool two = !paper.empty();
  const float h = std::max(160.0f, ImGui::GetContentRegionAvail().y * 0.72f);
  const float w = two ? ImGui::GetContentRegionAvail().x * 0.5f - 4.0f : -1.0f;
  const int flags = fig.log_x ? widgets::PlotFlags_LogX : 0;
  // A little room left and right so the end points' dots are whole (in log space on a log axis).
  auto pad_x = [&](const std::vector<PlotSeries>& all) {
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    for (const auto& ps : all)
      for (float x : ps.x)
        if (!fig.log_x || x > 0) lo = std::min(lo, static_cast<double>(x)), hi = std::max(hi, static_cast<double>(x));
    if (!(lo <= hi)) return;
    if (fig.log_x) {
      const double a = std::log10(lo), b = std::log10(hi), m = std::max(0.05, (b - a) * 0.05);
      widgets::SetupAxisLimitsX(std::pow(10.0, a - m), std::pow(10.0, b + m), widgets::PlotCond_Once);
    } else {
      const double m = std::max(0.5, (hi - lo) * 0.05);
      widgets::SetupAxisLimitsX(lo - m, hi + m, widgets::PlotCond_Once);
    }
  };
  if (widgets::BeginPlot(("Ours (this DB)##fig_ours" + fig.suite).c_str(), ImVec2(w, h))) {
    widgets::SetupAxes(fig.x_label.c_str(), fig.ours_y_label.c_str(), flags);
    pad_x(ours);
    plot_all(ours);
    widgets::EndPlot();
  }
  if (two) {
    ImGui::SameLine();
    if (widgets::BeginPlot(("Paper (reference)##fig_paper" + fig.suite).c_str(), ImVec2(-1, h))) {
      widgets::SetupAxes(fig.x_label.c_str(), fig.paper_y_label.c_str(), flags);
      pad_x(paper);
      plot_all(paper);
      widgets::EndPlot();
    }
  }
  // The numbers behind both plots, side by side per series and x.
  const ImGuiTableFlags tf = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter | ImGuiTableFlags_ScrollY |
                             ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_Resizable;
  if (ImGui::BeginTable("##figure_table", 5, tf, ImVec2(0, 0))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("source");
    ImGui::TableSetupColumn("series");
    ImGui::TableSetupColumn(fig.x_label.c_str());
    ImGui::TableSetupColumn("value (min .. max)");
    ImGui::TableSetupColumn("runs / citation", ImGuiTableColumnFlags_WidthStretch, 3.0f);
    ImGui::TableHeadersRow();
    auto rows_of = [&](const std::vector<explorer::FigureSeries>& all, const char* source) {
      for (const auto& s : all)
        for (const auto& p : s.points) {
          ImGui::TableNextRow();
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(source);
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(s.label.c_str());
          ImGui::TableNextColumn();
          const int xi = static_cast<int>(p.x);
          if (!fig.x_categories.empty() && xi >= 0 && xi < static_cast<int>(fig.x_categories.size()))
            ImGui::TextUnformatted(fig.x_categories[static_cast<size_t>(xi)].c_str());
          else if (fig.axis == explorer::FigureAxis::Parameters)
            ImGui::Text("%.0f", p.x);
          else
            ImGui::Text("%g", p.x);
          ImGui::TableNextColumn();
          if (std::isfinite(p.mean)) ImGui::Text("%.4f (%.4f .. %.4f)", p.mean, p.lo, p.hi);
          else ImGui::TextDisabled("-");
          ImGui::TableNextColumn();
          if (!p.source.empty()) ImGui::TextDisabled("%s", p.source.c_str());
          else ImGui::Text("%d of %d done", p.done, p.runs);
        }
    };
    rows_of(fig.ours, "ours");
    rows_of(fig.paper, "paper");
    ImGui::EndTable();
  }
}

void ExplorerView::draw_run() {
  const explorer::RunRow* row = focused_ >= 0 ? find_row(focused_) : nullptr;
  if (!row) {
    ImGui::TextDisabled("Click a run in the table to see it here (double-click jumps to this tab).");
    return;
  }
  ImGui::Text("%s", row->name.c_str());
  ImGui::SameLine();
  ImGui::TextDisabled("(run %lld, %s)", static_cast<long long>(row->id), std::string(db::to_string(row->status)).c_str());
  if (!row->error_text.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(kProblem, "failed: %s", row->error_text.c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::Text("step %lld of %lld; train loss %.4f, val loss %.4f (best %.4f); %.0f tokens/s; %lld parameters",
              static_cast<long long>(row->step), static_cast<long long>(row->steps_total), row->last_train_loss,
              row->last_val_loss, row->best_val_loss, row->tokens_per_s, static_cast<long long>(row->params));

  // The run's stored steps and P_l / P_w snapshot: read by the loader, never in a frame.
  if (run_wanted_.run_id != row->id) replay_step_ = -1, weights_index_ = -1;
  const explorer::RunDetailRequest want{row->id, is_talking_heads_kind(row->kind), replay_step_};
  if (want != run_wanted_) {
    run_wanted_ = want;
    loader_->want_run(want);
  }
  const auto detail = loader_->run_detail();
  if (detail->request.run_id != row->id) {
    ImGui::TextDisabled("reading the run's stored steps...");
  } else if (detail->weights_steps.empty()) {
    ImGui::TextDisabled("No stored weights yet (the worker stores them at every checkpoint).");
  } else {
    const auto& steps = detail->weights_steps;
    const int last = static_cast<int>(steps.size()) - 1;
    weights_index_ = weights_index_ < 0 ? last : std::min(weights_index_, last);  // the newest by default
    ImGui::SetNextItemWidth(240.0f * context_.ui_scale);
    const std::string label = "step " + std::to_string(steps[static_cast<size_t>(weights_index_)]);
    ImGui::SliderInt("##weights_step", &weights_index_, 0, last, label.c_str());
    ImGui::SameLine();
    if (ImGui::Button("Open in lab")) {
      context_.open_in_lab = StoredCheckpoint{loader_->db_path(), row->id, row->name, row->tokenizer,
                                              steps[static_cast<size_t>(weights_index_)]};
      context_.select_view = "Lab";
    }
    tooltip("The lab shows this checkpoint's attention maps on the typed input, its spectra and P_l / P_w, with a "
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
    if (context_.mono_font) ImGui::PushFont(context_.mono_font);
    ImGui::TextUnformatted(row->config.dump(2).c_str());
    if (context_.mono_font) ImGui::PopFont();
    ImGui::EndChild();
    ImGui::TableNextColumn();
    if (!want.projections) ImGui::TextDisabled("P_l / P_w replay: only talking-heads kinds store projections.");
    else if (detail->request.run_id == row->id) draw_projection_replay(*detail);
    ImGui::EndTable();
  }
}

void ExplorerView::draw_projection_replay(const explorer::RunDetail& detail) {
  const auto& steps = detail.projection_steps;
  if (steps.empty()) {
    ImGui::TextDisabled("No P_l / P_w snapshots stored yet (one per evaluation).");
    return;
  }
  // The slider shows the wanted step at once; the maps follow when the loader has decoded it.
  const std::int64_t wanted = replay_step_ >= 0 ? replay_step_ : detail.projection_step;
  int index = static_cast<int>(std::lower_bound(steps.begin(), steps.end(), wanted) - steps.begin());
  index = std::clamp(index, 0, static_cast<int>(steps.size()) - 1);
  ImGui::SetNextItemWidth(-1);
  const std::string label = "P_l / P_w at step " + std::to_string(steps[static_cast<size_t>(index)]);
  if (ImGui::SliderInt("##replay", &index, 0, static_cast<int>(steps.size()) - 1, label.c_str()))
    replay_step_ = steps[static_cast<size_t>(index)];
  tooltip("Replay the talking-heads projections over training (TH §7.4, Fig. 1): drag through the stored steps.");
  if (detail.projection_step != steps[static_cast<size_t>(index)])
    ImGui::TextDisabled("reading step %lld...", static_cast<long long>(steps[static_cast<size_t>(index)]));
  widgets::HeatmapStyle style;
  style.colormap = widgets::Colormap::Diverging;
  style.tooltip_format = "row %s, col %s: %.3f";
  const float tile = std::min(220.0f * context_.ui_scale, ImGui::GetContentRegionAvail().x / 2.0f - 8.0f);
  style.size = ImVec2(tile, tile);
  for (size_t i = 0; i < detail.maps.size(); ++i) {
    if (i % 2 == 1) ImGui::SameLine();
    ImGui::BeginGroup();
    const auto& m = detail.maps[i];
    style.title = m.name.c_str();
    style.version = detail.version;
    widgets::Heatmap(("##p" + std::to_string(i)).c_str(), m.values.data(), m.size, m.size, style);
    ImGui::EndGroup();
  }
}

}  // namespace headroom::gui

#include "app/gui/views/explorer_figures.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

#include "app/gui/ui_util.h"
#include "app/gui/views/plot_series.h"
#include "core/io/atomic_file.h"
#include "widgets/draw_util.h"
#include "widgets/line_plot.h"
#include "widgets/plot_math.h"

namespace headroom::gui {
namespace {

// A legend under the plots, its entries flowed left to right. The paper's series have long names
// ("LRB Table 2A: fixed head size 128, d=512"): beside a half-width plot the plot's own legend
// would cut them to "LRB Tab...", so that plot draws none and they are listed whole here.
float legend_swatch_width() { return ImGui::GetFontSize() * 1.8f; }

float legend_entry_width(const PlotSeries& s) {
  return legend_swatch_width() + ImGui::CalcTextSize(s.label.c_str()).x + ImGui::GetStyle().ItemSpacing.x * 3.0f;
}

int legend_rows(const std::vector<PlotSeries>& all, float width) {
  int rows = all.empty() ? 0 : 1;
  float x = 0.0f;
  for (const auto& s : all) {
    const float w = legend_entry_width(s);
    if (x > 0.0f && x + w > width) ++rows, x = 0.0f;
    x += w;
  }
  return rows;
}

void draw_legend_below(const std::vector<PlotSeries>& all, float width) {
  float x = 0.0f;
  for (const auto& s : all) {
    const float w = legend_entry_width(s);
    if (x > 0.0f && x + w <= width) ImGui::SameLine(0.0f, ImGui::GetStyle().ItemSpacing.x * 2.0f);
    else x = 0.0f;
    x += w;
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const float line = ImGui::GetTextLineHeight(), sw = legend_swatch_width() - ImGui::GetStyle().ItemSpacing.x;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddLine(ImVec2(at.x, at.y + line * 0.5f), ImVec2(at.x + sw, at.y + line * 0.5f), s.color, s.thickness);
    if (s.marker_radius > 0.0f)
      dl->AddCircleFilled(ImVec2(at.x + sw * 0.5f, at.y + line * 0.5f), s.marker_radius, s.color);
    ImGui::Dummy(ImVec2(sw, line));
    ImGui::SameLine();
    ImGui::TextUnformatted(s.label.c_str());
  }
}

}  // namespace

void ExplorerFigures::follow(const ExplorerSession& session) {
  if (pinned_ || !scene_figure.empty()) return;  // a scene's figure waits for its suite's runs
  if (followed_ && session.selected == followed_selection_ &&
      session.shown_filter_generation == followed_filter_generation_)
    return;
  followed_ = true;
  followed_selection_ = session.selected;
  followed_filter_generation_ = session.shown_filter_generation;
  std::vector<std::int64_t> shown;
  if (session.shown_filtered) {
    shown.reserve(session.shown.size());
    for (const explorer::RunRow* r : session.shown) shown.push_back(r->id);
  }
  const int i = explorer::figure_for_runs(figures_, session.selected, shown);
  if (i >= 0) index_ = i;
  // None of those runs is in a figure (a stored suite that reproduces no paper figure Headroom
  // draws, nor pools into one): name their suites, so the figure left shown is not taken for theirs.
  std::set<std::string> suites;
  if (i < 0) {
    for (const std::int64_t id : session.selected)
      if (const explorer::RunRow* r = session.find_row(id)) suites.insert(r->suite);
    if (suites.empty() && session.shown_filtered)
      for (const explorer::RunRow* r : session.shown) suites.insert(r->suite);
  }
  unplaced_.clear();
  for (const std::string& s : suites) unplaced_ += (unplaced_.empty() ? "" : ", ") + s;
}

void ExplorerFigures::draw(const ExplorerSession& session, const std::string& reference_dir) {
  const float ui_scale = session.context.ui_scale;
  const auto& rows = *session.rows;
  if (want_request_ || rows.version != requested_version_ || stale_) {
    want_request_ = false;
    stale_ = false;
    requested_version_ = rows.version;
    last_request_ = builder_.build({session.rows, reference_dir, axes_});
  }
  const auto built = builder_.built();
  if (built->request > adopted_request_) {
    adopted_request_ = built->request;
    version_ = built->rows_version;
    have_figures_ = true;
    figures_ = built->figures;  // notes break only at spaces (wrapped_text): "1,387,264" stays whole
    warnings_ = built->warnings;
  }
  // First the figure of what the person looks at, so that a scene's axis alone goes to that one.
  if (!figures_.empty()) follow(session);
  // A scene's figure and axis are applied once that suite's figure is in; an axis without a
  // figure applies to the figure shown first.
  const bool scene_pending = !scene_figure.empty();
  if ((!scene_figure.empty() || scene_axis != explorer::FigureAxis::Default) && !figures_.empty())
    for (size_t i = 0; i < figures_.size(); ++i) {
      const bool shown_first =
          scene_figure.empty() && static_cast<int>(i) == std::clamp(index_, 0, static_cast<int>(figures_.size()) - 1);
      if (figures_[i].suite != scene_figure && !shown_first) continue;
      index_ = static_cast<int>(i);
      const std::string& suite = figures_[i].suite;
      if (scene_axis != explorer::FigureAxis::Default && axes_[suite] != scene_axis) {
        axes_[suite] = scene_axis;
        stale_ = true;  // asked again next frame on the scene's axis
      }
      scene_figure.clear();
      scene_axis = explorer::FigureAxis::Default;
      break;
    }
  if (!have_figures_) {
    ImGui::TextDisabled("Building the paper figures from the stored runs...");
    return;
  }
  if (figures_.empty()) {
    wrapped_text(
        "No suite in this database reproduces a paper figure yet. Enqueue one of the suites above "
        "(e.g. th_heads at quick scale) and start a worker.");
    return;
  }
  if (scene_pending && scene_figure.empty()) pinned_ = true;  // the scene's figure is in: it stays
  index_ = std::clamp(index_, 0, static_cast<int>(figures_.size()) - 1);
  const explorer::Figure& fig = figures_[static_cast<size_t>(index_)];
  // The suite, the x axis and CSV share one row: in a lesson's half of a 1024-wide window the
  // fixed widths ran the CSV button off the panel's edge.
  ImGui::SetNextItemWidth(std::min(260.0f * ui_scale, ImGui::GetContentRegionAvail().x * 0.38f));
  if (ImGui::BeginCombo("##figure", fig.suite.c_str())) {
    for (size_t i = 0; i < figures_.size(); ++i)
      if (ImGui::Selectable(figures_[i].suite.c_str(), static_cast<int>(i) == index_))
        index_ = static_cast<int>(i), pinned_ = true, unplaced_.clear();
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  // x: the suite's own axis or each run's parameter count (VB plots loss against parameters).
  {
    const std::string key_item = "x: " + fig.key_x_label;
    const bool on_params = fig.axis == explorer::FigureAxis::Parameters;
    // As wide as its longer choice where the row has room (the CSV button beside it), else the room.
    const char* choices[] = {key_item.c_str(), "x: parameters"};
    const float room = ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize("CSV").x -
                       2.0f * ImGui::GetStyle().FramePadding.x - 2.0f * ImGui::GetStyle().ItemSpacing.x;
    ImGui::SetNextItemWidth(std::max(80.0f * ui_scale, std::min(combo_width(choices, 2), room)));
    if (ImGui::BeginCombo("##figure_x", on_params ? "x: parameters" : key_item.c_str())) {
      const auto pick = [&](explorer::FigureAxis a, const std::string& text, bool selected) {
        const bool is_default = a == fig.default_axis;
        if (ImGui::Selectable((text + (is_default ? " (default)" : "")).c_str(), selected) && !selected) {
          axes_[fig.suite] = a;
          stale_ = true;
        }
      };
      pick(explorer::FigureAxis::SuiteKey, key_item, !on_params);
      pick(explorer::FigureAxis::Parameters, "x: parameters", on_params);
      ImGui::EndCombo();
    }
    tooltip((on_params ? std::string("x: parameters") : key_item) +
            ".\n\nx: the suite's own axis (its [suite] x key or its grid labels) or each run's parameter count "
            "(all trainable parameters: embeddings, blocks, head; the runs table's 'parameters'). The VB "
            "figures use parameters by default: VB's figures plot loss against parameter count.");
  }
  // The numbers behind the figure as a file, for a paper or another tool.
  ImGui::SameLine();
  if (ImGui::Button("CSV")) {
    const char* axis = fig.axis == explorer::FigureAxis::Parameters ? "parameters" : "key";
    export_csv(fig, "headroom-" + fig.suite + "-" + axis + ".csv");
  }
  tooltip("Writes the table below (ours and the paper's, with citations) as CSV into the current directory");
  if (!scene_export.empty() && scene_figure.empty() && current()) {  // a scene's, once its figure and axis are in
    export_csv(fig, scene_export + ".csv");
    scene_export.clear();
  }
  if (!export_message_.empty()) {
    ImGui::SameLine();
    if (export_error_) ImGui::TextColored(kProblem, "%s", export_message_.c_str());
    else ImGui::TextDisabled("%s", export_message_.c_str());
  }
  // The title beside the two combos where it takes at most two lines of a readable column, else on
  // a line of its own (a 1024-wide presenter leaves a sliver that wrapped it one letter per line).
  ImGui::SameLine();
  const float beside = ImGui::GetContentRegionAvail().x;
  if (beside < 14.0f * ImGui::GetFontSize() || ImGui::CalcTextSize(fig.title.c_str()).x > 1.8f * beside)
    ImGui::NewLine();
  wrapped_text("%s", fig.title.c_str());
  if (!unplaced_.empty()) {
    const bool several = unplaced_.find(", ") != std::string::npos;
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.95f, 0.76f, 0.36f, 1.0f));  // a caution, not a failure
    wrapped_text(
        "The runs you look at (suite%s %s) are in none of these figures: Headroom draws one per suite that "
        "reproduces a paper figure, with the stored suites of the same reproduces, x and scale pooled into "
        "it. Compare %s runs in the Curves tab. Shown here: %s.",
        several ? "s" : "", unplaced_.c_str(), several ? "their" : "its", fig.suite.c_str());
    ImGui::PopStyleColor();
  }
  // The notes scroll in a band of their own, so the plots keep their room however many there are.
  // Its height is whole lines, and the notes follow each other without gaps, so the band never
  // shows half a line at its edge.
  const float note_line = ImGui::GetTextLineHeight();
  const float band = std::max(3.0f, std::floor(ImGui::GetContentRegionAvail().y * 0.2f / note_line)) * note_line;
  ImGui::BeginChild("##figure_notes", ImVec2(0, band));
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(ImGui::GetStyle().ItemSpacing.x, 0.0f));
  for (const auto& note : fig.notes) wrapped_text("- %s", note.c_str());
  ImGui::PopStyleVar();
  ImGui::PopStyleColor();
  ImGui::EndChild();
  if (!warnings_.empty()) ImGui::TextColored(kProblem, "%s", warnings_.c_str());

  // The x span of the series a log axis can place: where a level series (FigureSeries::level) is drawn.
  double span_lo = HUGE_VAL, span_hi = -HUGE_VAL;
  for (const auto& s : fig.ours)
    for (const auto& pt : s.points)
      if (!s.level && pt.x > 0 && std::isfinite(pt.mean))
        span_lo = std::min(span_lo, pt.x), span_hi = std::max(span_hi, pt.x);
  auto make_series = [&](const std::vector<explorer::FigureSeries>& in, bool ours) {
    std::vector<PlotSeries> out;
    int i = ours ? 0 : 5;
    for (const auto& s : in) {
      PlotSeries p;
      p.label = s.label;
      p.band_label = "##band" + s.label;
      p.color = widgets::detail::palette_color(i++);
      p.thickness = 2.0f;
      p.marker_radius = 3.5f * ui_scale;
      for (const auto& pt : s.points) {
        if (!std::isfinite(pt.mean)) continue;
        const float lo = static_cast<float>(std::isfinite(pt.lo) ? pt.lo : pt.mean);
        const float hi = static_cast<float>(std::isfinite(pt.hi) ? pt.hi : pt.mean);
        if (s.level) {  // one point at x = 0: a level line across the others' span, no markers
          if (!(span_lo <= span_hi)) continue;
          p.x = {static_cast<float>(span_lo), static_cast<float>(span_hi)};
          p.y.assign(2, static_cast<float>(pt.mean));
          p.lo.assign(2, lo);
          p.hi.assign(2, hi);
          p.marker_radius = 0.0f;
          break;
        }
        p.x.push_back(static_cast<float>(pt.x));
        p.y.push_back(static_cast<float>(pt.mean));
        p.lo.push_back(lo);
        p.hi.push_back(hi);
      }
      if (!p.x.empty()) out.push_back(std::move(p));
    }
    return out;
  };
  const auto ours = make_series(fig.ours, true), paper = make_series(fig.paper, false);
  const bool two = !paper.empty();
  // Ours in one plot, or one per tokenizer (their losses are different units) side by side.
  struct Panel {
    std::string title;
    std::vector<PlotSeries> series;
  };
  std::vector<Panel> panels;
  if (!two && fig.ours_panels.size() > 1) {
    for (const explorer::FigurePanel& fp : fig.ours_panels) {
      Panel panel{"Ours, " + fp.tokenizer + ": " + fp.y_label, {}};
      for (const PlotSeries& ps : ours) {
        const auto of = std::find_if(fig.ours.begin(), fig.ours.end(),
                                     [&](const explorer::FigureSeries& s) { return s.label == ps.label; });
        if (of != fig.ours.end() && of->tokenizer == fp.tokenizer) panel.series.push_back(ps);
      }
      panels.push_back(std::move(panel));
    }
  } else {
    panels.push_back(Panel{"Ours: " + fig.ours_y_label, ours});
  }
  const float avail_x = ImGui::GetContentRegionAvail().x;
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  const float columns = two ? 2.0f : static_cast<float>(panels.size());
  const float w = columns > 1.0f ? (avail_x - spacing * (columns - 1.0f)) / columns : -1.0f;
  // A plot's own legend beside it gets at most 40% of the plot area (the axes take ~5 em).
  const float plot_w = avail_x / columns - 5.0f * ImGui::GetFontSize();
  auto legend_below = [&](const std::vector<PlotSeries>& all) {
    float longest = 0.0f;
    for (const auto& ps : all) longest = std::max(longest, legend_entry_width(ps));
    return longest > 0.4f * plot_w;
  };
  const bool ours_below = legend_below(ours), paper_below = legend_below(paper);
  float below_h = 0.0f;
  if (ours_below) below_h += legend_rows(ours, avail_x - ImGui::CalcTextSize("Ours:").x);
  if (paper_below) below_h += legend_rows(paper, avail_x - ImGui::CalcTextSize("Paper:").x);
  below_h *= ImGui::GetFrameHeightWithSpacing();
  const float h = std::max(160.0f, ImGui::GetContentRegionAvail().y * 0.72f - below_h);
  const int flags = fig.log_x ? widgets::PlotFlags_LogX : 0;
  // A little room left and right so the end points' dots are whole (in log space on a log axis).
  auto pad_x = [&](const std::vector<PlotSeries>& all) {
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    for (const auto& ps : all)
      for (float x : ps.x)
        if (!fig.log_x || x > 0) lo = std::min(lo, static_cast<double>(x)), hi = std::max(hi, static_cast<double>(x));
    if (!(lo <= hi))  // nothing finished yet: the axis of the points to come, not a degenerate one
      for (const auto& s : fig.ours)
        for (const auto& pt : s.points)
          if (!fig.log_x || pt.x > 0) lo = std::min(lo, pt.x), hi = std::max(hi, pt.x);
    if (!(lo <= hi)) return;
    if (!fig.x_categories.empty()) {  // half a category either side, so the end labels fit
      widgets::SetupAxisLimitsX(lo - 0.5, hi + 0.5, widgets::PlotCond_Once);
      return;
    }
    // 5% of the data's own span (39.1M..40.4M parameters fills the axis, not a tenth of it).
    const widgets::AxisRange r = widgets::fit_range(lo, hi, fig.log_x, 0.05);
    widgets::SetupAxisLimitsX(r.lo, r.hi, widgets::PlotCond_Once);
  };
  // The metrics head the plots ("Ours: final val loss (nats/byte; ...)", "Paper: SQuAD F1 (...;
  // higher is better)"): these plots are too short for them as vertical axis labels, and the
  // two sides often measure different things in opposite directions.
  for (size_t i = 0; i < panels.size(); ++i) {
    if (i > 0) ImGui::SameLine();
    const float pw = i + 1 == panels.size() && !two ? -1.0f : w;
    const std::string id = panels[i].title + "##fig_ours" + std::to_string(i) + fig.suite;
    if (widgets::BeginPlot(id.c_str(), ImVec2(pw, h))) {
      widgets::SetupAxes(fig.x_label.c_str(), "", flags | (ours_below ? widgets::PlotFlags_NoLegend : 0));
      if (!fig.x_categories.empty()) widgets::SetupAxisCategoriesX(fig.x_categories);
      pad_x(panels[i].series);
      plot_all(panels[i].series);
      widgets::EndPlot();
    }
  }
  if (two) {
    ImGui::SameLine();
    if (widgets::BeginPlot(("Paper: " + fig.paper_y_label + "##fig_paper" + fig.suite).c_str(), ImVec2(-1, h))) {
      widgets::SetupAxes(fig.x_label.c_str(), "", flags | (paper_below ? widgets::PlotFlags_NoLegend : 0));
      if (!fig.x_categories.empty()) widgets::SetupAxisCategoriesX(fig.x_categories);
      pad_x(paper);
      plot_all(paper);
      widgets::EndPlot();
    }
  }
  for (const auto& [below, all, name] :
       {std::tuple(ours_below, &ours, "Ours:"), std::tuple(paper_below, &paper, "Paper:")}) {
    if (!below || all->empty()) continue;
    ImGui::TextDisabled("%s", name);
    ImGui::SameLine();
    draw_legend_below(*all, ImGui::GetContentRegionAvail().x);
  }
  // The numbers behind both plots, side by side per series and x.
  // The columns before the citations as wide as their contents; the citations take the rest of the
  // row, and where the numbers alone do not leave them room (a lesson's half of the screen), every
  // column keeps its width and the table scrolls sideways: squeezed, the values were cut to "3."
  // and the citations to a letter. The x column is headed by the axis label's name alone (its
  // parenthesis is on the plot). The series column is at most a third of the row: the paper's long
  // series names pushed the values out of sight (a cut name is whole in the legend above).
  const std::string x_header = fig.x_label.substr(0, fig.x_label.find(" ("));
  const float avail_w = ImGui::GetContentRegionAvail().x;
  float series_w = ImGui::CalcTextSize("series").x, value_w = ImGui::CalcTextSize("value (min .. max; paper: sd)").x;
  float x_w = std::max(ImGui::CalcTextSize(x_header.c_str()).x, ImGui::CalcTextSize("0000000000").x);
  for (const auto* all : {&fig.ours, &fig.paper})
    for (const auto& fs : *all) {
      series_w = std::max(series_w, ImGui::CalcTextSize(fs.label.c_str()).x);
      for (const auto& p : fs.points) {
        value_w = std::max(value_w, ImGui::CalcTextSize(explorer::figure_value_text(p, !p.source.empty()).c_str()).x);
        x_w = std::max(x_w, ImGui::CalcTextSize(explorer::x_category(fig, p.x).c_str()).x);
      }
    }
  series_w = std::min(series_w, avail_w / 3.0f);
  const float cell_pad = 4.0f * ImGui::GetStyle().CellPadding.x;
  const float numbers_w = ImGui::CalcTextSize("source").x + series_w + x_w + value_w + 4.0f * cell_pad;
  const bool scroll_x = numbers_w + ImGui::CalcTextSize("runs / citation").x + cell_pad > avail_w;
  const ImGuiTableFlags tf = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter | ImGuiTableFlags_ScrollY |
                             ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_Resizable |
                             (scroll_x ? ImGuiTableFlags_ScrollX : 0);
  if (ImGui::BeginTable("##figure_table", 5, tf, ImVec2(0, 0))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("source");
    ImGui::TableSetupColumn("series", ImGuiTableColumnFlags_WidthFixed, series_w);
    ImGui::TableSetupColumn(x_header.c_str());
    ImGui::TableSetupColumn("value (min .. max; paper: sd)");
    if (scroll_x) ImGui::TableSetupColumn("runs / citation");
    else ImGui::TableSetupColumn("runs / citation", ImGuiTableColumnFlags_WidthStretch);
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
          if (const std::string category = explorer::x_category(fig, p.x); !category.empty())
            ImGui::TextUnformatted(category.c_str());
          else if (fig.axis == explorer::FigureAxis::Parameters) ImGui::Text("%.0f", p.x);
          else ImGui::Text("%g", p.x);
          ImGui::TableNextColumn();
          const std::string value = explorer::figure_value_text(p, !p.source.empty());
          if (std::isfinite(p.mean)) ImGui::TextUnformatted(value.c_str());
          else ImGui::TextDisabled("%s", value.c_str());
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

void ExplorerFigures::export_csv(const explorer::Figure& fig, const std::string& path) {
  std::ostringstream csv;
  explorer::write_figure_csv(csv, fig);
  std::string error;
  export_error_ = !core::write_file_atomically(path, csv.str(), &error);
  export_message_ = export_error_ ? error : "wrote " + path;
}

}  // namespace headroom::gui

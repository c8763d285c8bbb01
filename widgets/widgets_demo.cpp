#include "widgets/widgets_demo.h"

#include <imgui.h>
#include <imgui_internal.h>  // RenderTextEllipsis

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "widgets/colormap.h"
#include "widgets/demo_data.h"
#include "widgets/frame_stats.h"
#include "widgets/heatmap.h"
#include "widgets/line_plot.h"
#include "widgets/spectrum.h"

#include <string>
#include <vector>

namespace headroom::widgets {
namespace {

struct DemoState {
  WidgetsDemoOptions o;
  DemoData data = make_demo_data();
  std::vector<std::vector<float>> stress_maps;  // built on first use
  std::vector<const float*> stress_ptrs;
  std::vector<std::string> stress_names;
  std::vector<const char*> stress_titles;
  uint64_t version = 1;
  float phase = 0.0f;
};

DemoState& state() {
  static DemoState s;
  return s;
}

// A panel's title and a rule under it; a title wider than the room left ends in "..." (whole in
// its tooltip) instead of running off the window.
void section(const char* title) {
  const ImVec2 size = ImGui::CalcTextSize(title);
  const float room = ImGui::GetContentRegionAvail().x;
  if (size.x <= room) {
    ImGui::TextUnformatted(title);
  } else {
    const ImVec2 at = ImGui::GetCursorScreenPos();
    ImGui::Dummy(ImVec2(room, size.y));
    ImGui::RenderTextEllipsis(ImGui::GetWindowDrawList(), at, ImVec2(at.x + room, at.y + size.y), at.x + room,
                              at.x + room, title, nullptr, &size);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", title);
  }
  ImGui::Separator();
}

// SameLine() unless the next item (of width w) would not fit: then wrap.
void next_item(float w) {
  ImGui::SameLine();
  if (ImGui::GetContentRegionAvail().x < w) ImGui::NewLine();
}

void checkbox(const char* label, bool* v) {
  next_item(ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label).x);
  ImGui::Checkbox(label, v);
}

void controls(DemoState& s) {
  WidgetsDemoOptions& o = s.o;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9);
  const char* names[kColormapCount];
  for (int i = 0; i < kColormapCount; ++i) names[i] = colormap_name(static_cast<Colormap>(i));
  int cm = static_cast<int>(o.colormap);
  if (ImGui::Combo("colormap", &cm, names, kColormapCount)) o.colormap = static_cast<Colormap>(cm);
  checkbox("fixed range [0, 1]", &o.fixed_range);
  checkbox("animate maps", &o.animate);
  checkbox("stress: 32 \xC3\x97 256\xC2\xB2", &o.stress);
  checkbox("log x", &o.log_x);
  checkbox("log y", &o.log_y);
  checkbox("band", &o.show_band);
  checkbox("spectrum log y", &o.spectrum_log);
}

void ensure_stress_maps(DemoState& s) {
  if (!s.stress_maps.empty()) return;
  s.stress_maps = make_stress_maps(32, 256);
  for (int i = 0; i < 32; ++i) {
    s.stress_ptrs.push_back(s.stress_maps[i].data());
    s.stress_names.push_back("h" + std::to_string(i));
  }
  for (const std::string& n : s.stress_names) s.stress_titles.push_back(n.c_str());
}

}  // namespace

void ShowWidgetsDemoContents() {
  DemoState& s = state();
  DemoData& d = s.data;
  const WidgetsDemoOptions& o = s.o;
  if (o.stress) ensure_stress_maps(s);
  if (o.animate) {
    if (!o.stress) {
      s.phase += ImGui::GetIO().DeltaTime * 2.0f;
      animate_demo_maps(d, s.phase);
    }
    ++s.version;  // in stress mode: measure re-uploads, not the demo's own math
  }
  const int heads = o.stress ? 32 : d.heads;
  const int n = o.stress ? 256 : d.tokens;
  const float* const* maps = o.stress ? s.stress_ptrs.data() : d.head_ptrs.data();
  const char* const* head_titles = o.stress ? s.stress_titles.data() : d.head_titles.data();
  const char* const* head_short = o.stress ? s.stress_titles.data() : d.head_labels.data();
  const char* const* tokens = o.stress ? nullptr : d.token_labels.data();
  const int selected = std::clamp(o.selected_head, 0, heads - 1);
  controls(s);
  ImGui::Spacing();

  const ImGuiStyle& st = ImGui::GetStyle();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float top_h = std::max(260.0f, std::floor(avail.y * 0.56f));
  const float bottom_h = std::max(200.0f, avail.y - top_h - st.ItemSpacing.y);
  const float w = avail.x - 2 * st.ItemSpacing.x;
  const float grid_w = std::floor(w * 0.30f), big_w = std::floor(w * 0.37f), mix_w = w - grid_w - big_w;
  const ImGuiWindowFlags child = ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse;
  const float header = ImGui::GetTextLineHeightWithSpacing() + st.ItemSpacing.y + 1;

  HeatmapStyle base;
  base.colormap = o.colormap;
  base.auto_range = !o.fixed_range;
  base.vmin = 0.0f;
  base.vmax = 1.0f;
  base.row_labels = tokens;
  base.col_labels = tokens;
  base.version = s.version;
  base.max_label_chars = 10;
  base.auto_percentile = 99.0f;  // the first query's lone 1.0 would wash out every map

  // 1. Every head of a layer at a glance.
  ImGui::BeginChild("##grid", ImVec2(grid_w, top_h), false, child);
  char title[96];
  std::snprintf(title, sizeof title, "Attention heads (%d \xC3\x97 %dx%d)", heads, n, n);
  section(title);
  HeatmapStyle gs = base;
  gs.size = ImVec2(0, ImGui::GetContentRegionAvail().y);
  const int clicked = HeatmapGrid("heads", maps, heads, n, n, head_short, gs, selected, 32.0f);
  if (clicked >= 0) s.o.selected_head = clicked;
  ImGui::EndChild();
  ImGui::SameLine();

  // 2. The selected head, large, with token labels and a color scale.
  ImGui::BeginChild("##big", ImVec2(big_w, top_h), false, child);
  std::snprintf(title, sizeof title, "Selected head: %s (click a tile)", head_titles[selected]);
  section(title);
  HeatmapStyle bs = base;
  bs.title = "query (rows) \xC2\xB7 key (columns)";
  bs.size = ImVec2(0, top_h - header);
  Heatmap("selected", maps[selected], n, n, bs);
  ImGui::EndChild();
  ImGui::SameLine();

  // 3. A signed matrix on the diverging map.
  ImGui::BeginChild("##mix", ImVec2(mix_w, top_h), false, child);
  section("Talking-heads mixing (diverging, [-1, 1])");
  HeatmapStyle ms;
  ms.title = "source head (rows) \xC2\xB7 target head (columns)";
  ms.colormap = Colormap::Diverging;
  ms.auto_range = false;
  ms.vmin = -1.0f;
  ms.vmax = 1.0f;
  ms.row_labels = d.head_labels.data();
  ms.col_labels = d.head_labels.data();
  ms.tooltip_format = "%s -> %s: %+.3f";
  ms.size = ImVec2(0, top_h - header);
  Heatmap("mixing", d.mixing.data(), d.heads, d.heads, ms);
  ImGui::EndChild();

  // 4. Training curves: 3 series x 20,000 points and a band, decimated per pixel.
  const float plot_w = std::floor((avail.x - st.ItemSpacing.x) * 0.6f);
  ImGui::BeginChild("##curves", ImVec2(plot_w, bottom_h), false, child);
  if (BeginPlot("Training curves (3 x 20,000 points; wheel: zoom, drag: pan, double-click: fit)##curves",
                ImVec2(-1, -1))) {
    SetupAxes("step", "loss", (o.log_x ? PlotFlags_LogX : 0) | (o.log_y ? PlotFlags_LogY : 0));
    if (o.show_band)
      PlotShaded("train EMA \xC2\xB1 std", d.steps.data(), d.band_lo.data(), d.band_hi.data(), d.points,
                 IM_COL32(255, 127, 14, 255));
    PlotLine("train", d.steps.data(), d.train.data(), d.points, IM_COL32(31, 119, 180, 200), 1.0f);
    PlotLine("train EMA", d.steps.data(), d.train_ema.data(), d.points, IM_COL32(255, 127, 14, 255), 2.0f);
    PlotLine("validation", d.steps.data(), d.val.data(), d.points, IM_COL32(44, 160, 44, 255), 2.0f);
    EndPlot();
  }
  ImGui::EndChild();
  ImGui::SameLine();

  // 5. A rank-deficient spectrum with its markers.
  ImGui::BeginChild("##spectrum", ImVec2(0, bottom_h), false, child);
  SpectrumStyle ss;
  ss.log_y = o.spectrum_log;
  ss.tolerance = 1e-4f;
  SpectrumBars("Singular values of W_Q W_K^T (d_head = 16)##spectrum", d.spectrum.data(),
               static_cast<int>(d.spectrum.size()), d.rank, d.cap, ImVec2(-1, -1), ss);
  ImGui::EndChild();
}

WidgetsDemoOptions* GetWidgetsDemoOptions() { return &state().o; }

void ShowWidgetsDemo(bool* open) {
  ImGui::SetNextWindowSize(ImVec2(1200, 760), ImGuiCond_FirstUseEver);
  if (ImGui::Begin("Headroom widgets demo", open)) ShowWidgetsDemoContents();
  ImGui::End();
}

}  // namespace headroom::widgets

// The line plot's query API under simulated input in headless ImGui frames:
// x limits (fit, Once, Always, user zoom/pan), hover/mouse position/clicks,
// vertical markers and SVG capture of what is shown.
#include <gtest/gtest.h>

#include "tests/widgets/headless_imgui.h"
#include <imgui.h>
#include <imgui_internal.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "svg_test_util.h"
#include "widgets/axis_ticks.h"
#include "widgets/frame_stats.h"
#include "widgets/line_plot.h"
#include "widgets/line_plot_internal.h"
#include "xml_check.h"

namespace hw = headroom::widgets;
namespace ht = headroom::widgets::test;

namespace {

struct Options {
  hw::PlotFlags flags = hw::PlotFlags_None;
  bool limits = false;
  double lo = 0.0, hi = 0.0;
  hw::PlotCond cond = hw::PlotCond_Once;
  const char* vline_label = "##opened";
  bool capture = false;
};

struct Result {
  hw::PlotRange limits;
  bool user = false, hovered = false, clicked = false;
  double mouse_x = 0.0;
  std::string svg;
};

// Plot at (8, 8) .. (908, 358) in the window; no title, so the legend's rows start at
// y = 23 and are one text line (13 px) high.
const ImVec2 kInside(450, 200);
const ImVec2 kOutside(-100, -100);
ImVec2 legend_row(int i) { return ImVec2(885, 29.0f + 13.0f * i); }

class PlotInteraction : public ::testing::Test {
 protected:
  void SetUp() override {
    headroom::widgets::testing::create_headless_imgui_context();
    xs.clear();
    train.clear();
    val.clear();
    for (int i = 0; i <= 1000; ++i) {
      xs.push_back(static_cast<float>(i + 1));  // 1..1001: positive for log x
      train.push_back(2.0f + std::sin(i * 0.05f));
      val.push_back(2.5f + std::cos(i * 0.05f));
    }
  }
  void TearDown() override { ImGui::DestroyContext(); }

  Result frame(ImVec2 mouse, float wheel = 0.0f, bool down = false, const Options& o = Options()) {
    headroom::widgets::testing::begin_frame(mouse, wheel, down);
    Result r;
    // Plot state is kept per ID for the process, so every test uses its own plot.
    const std::string id = std::string("##") + ::testing::UnitTest::GetInstance()->current_test_info()->name();
    if (hw::BeginPlot(id.c_str(), ImVec2(900, 350))) {
      hw::SetupAxes("step", "loss", o.flags);
      if (o.limits) hw::SetupAxisLimitsX(o.lo, o.hi, o.cond);
      r.limits = hw::GetPlotLimitsX();
      r.user = hw::IsPlotUserRanged();
      r.hovered = hw::IsPlotHovered();
      r.mouse_x = hw::GetPlotMousePosX();
      r.clicked = hw::IsPlotClicked();
      hw::PlotLine("train", xs.data(), train.data(), static_cast<int>(xs.size()), IM_COL32(31, 119, 180, 255));
      hw::PlotLine("val", xs.data(), val.data(), static_cast<int>(xs.size()), IM_COL32(44, 160, 44, 255));
      hw::PlotVLine(o.vline_label, 500.0, IM_COL32(214, 39, 40, 255));
      if (o.capture) hw::CapturePlotSvg(&r.svg);
      hw::EndPlot();
    }
    headroom::widgets::testing::end_frame();
    return r;
  }
  // Enough frames for the next press not to be a double-click.
  void idle(const Options& o = Options()) {
    for (int i = 0; i < 25; ++i) frame(kOutside, 0.0f, false, o);
  }
  Result click(ImVec2 p, const Options& o = Options()) {
    frame(p, 0.0f, true, o);
    return frame(p, 0.0f, false, o);
  }

  std::vector<float> xs, train, val;
};

}  // namespace

TEST_F(PlotInteraction, LimitsAreUnknownBeforeTheFirstFrameThenTheFit) {
  const Result first = frame(kOutside);
  EXPECT_TRUE(std::isnan(first.limits.min));
  EXPECT_TRUE(std::isnan(first.limits.max));
  const Result second = frame(kOutside);
  EXPECT_DOUBLE_EQ(second.limits.min, 1.0);
  EXPECT_DOUBLE_EQ(second.limits.max, 1001.0);
  EXPECT_FALSE(second.user);
  EXPECT_FALSE(second.hovered);
}

TEST_F(PlotInteraction, WheelZoomNarrowsTheRangeAroundTheCursor) {
  frame(kOutside);
  const Result before = frame(kInside);
  ASSERT_TRUE(before.hovered);
  const double x0 = before.mouse_x;
  EXPECT_GT(x0, 300.0);
  EXPECT_LT(x0, 700.0);
  const Result zoomed = frame(kInside, 1.0f);
  EXPECT_TRUE(zoomed.user);
  EXPECT_NEAR(zoomed.limits.Size(), 0.8 * 1000.0, 1e-6);  // 0.8 per wheel notch
  EXPECT_GT(zoomed.limits.min, 1.0);
  EXPECT_LT(zoomed.limits.max, 1001.0);
  EXPECT_TRUE(zoomed.limits.Contains(x0));
  EXPECT_NEAR(zoomed.mouse_x, x0, 1e-6);  // the step under the cursor stays under it
  // The anchor splits the range in the same proportion as before.
  EXPECT_NEAR((x0 - zoomed.limits.min) / zoomed.limits.Size(), (x0 - 1.0) / 1000.0, 1e-9);
  // The zoomed range persists while the user does not refit.
  const Result later = frame(kOutside);
  EXPECT_TRUE(later.user);
  EXPECT_DOUBLE_EQ(later.limits.min, zoomed.limits.min);
  EXPECT_DOUBLE_EQ(later.limits.max, zoomed.limits.max);
  // Double-click refits: no longer user-ranged, and the next frame shows the data again.
  frame(kInside, 0.0f, true);
  frame(kInside, 0.0f, false);
  const Result dbl = frame(kInside, 0.0f, true);
  EXPECT_FALSE(dbl.user);
  const Result up = frame(kInside, 0.0f, false);
  EXPECT_FALSE(up.clicked);  // the double-click's second release is not a click
  const Result refit = frame(kOutside);
  EXPECT_DOUBLE_EQ(refit.limits.min, 1.0);
  EXPECT_DOUBLE_EQ(refit.limits.max, 1001.0);
}

TEST_F(PlotInteraction, MousePositionIsInDataCoordinatesOnLinearAndLogAxes) {
  frame(kOutside);
  const Result a = frame(ImVec2(300, 200)), b = frame(ImVec2(400, 200)), c = frame(ImVec2(500, 200));
  ASSERT_TRUE(a.hovered && b.hovered && c.hovered);
  EXPECT_NEAR(b.mouse_x - a.mouse_x, c.mouse_x - b.mouse_x, 1e-6);
  EXPECT_GT(b.mouse_x - a.mouse_x, 100.0);  // 1000 steps over < 900 px

  Options log;
  log.flags = hw::PlotFlags_LogX;
  frame(kOutside, 0.0f, false, log);
  const Result la = frame(ImVec2(300, 200), 0.0f, false, log), lb = frame(ImVec2(400, 200), 0.0f, false, log),
               lc = frame(ImVec2(500, 200), 0.0f, false, log);
  EXPECT_DOUBLE_EQ(lb.limits.min, 1.0);
  EXPECT_DOUBLE_EQ(lb.limits.max, 1001.0);
  // Un-logged values: equal pixel steps multiply x by the same factor.
  EXPECT_NEAR(lb.mouse_x / la.mouse_x, lc.mouse_x / lb.mouse_x, 1e-9);
  EXPECT_GT(lb.mouse_x / la.mouse_x, 1.5);
  EXPECT_TRUE(la.limits.Contains(la.mouse_x) && lc.limits.Contains(lc.mouse_x));
  EXPECT_FALSE(frame(kOutside, 0.0f, false, log).hovered);
}

TEST_F(PlotInteraction, AClickWithoutDragIsReportedOnReleaseAndADragPans) {
  frame(kOutside);
  const double x_at = frame(kInside).mouse_x;
  const Result press = frame(kInside, 0.0f, true);
  EXPECT_FALSE(press.clicked);
  const Result release = frame(kInside, 0.0f, false);
  EXPECT_TRUE(release.clicked);
  EXPECT_NEAR(release.mouse_x, x_at, 1e-9);
  EXPECT_FALSE(release.user);
  EXPECT_FALSE(frame(kInside).clicked);  // one frame only

  idle();
  frame(kInside, 0.0f, true);
  const Result small = frame(ImVec2(kInside.x + 3, kInside.y), 0.0f, true);  // under the drag threshold
  EXPECT_FALSE(small.user);
  EXPECT_DOUBLE_EQ(small.limits.min, 1.0);
  const Result drag = frame(ImVec2(kInside.x + 60, kInside.y), 0.0f, true);
  EXPECT_TRUE(drag.user);
  EXPECT_NEAR(drag.mouse_x, x_at, 1e-6);  // the grabbed step follows the pointer
  EXPECT_LT(drag.limits.min, 1.0);
  EXPECT_NEAR(drag.limits.Size(), 1000.0, 1e-6);
  const Result end = frame(ImVec2(kInside.x + 60, kInside.y), 0.0f, false);
  EXPECT_FALSE(end.clicked);
  // Releasing a press that started outside the plot is not a click either.
  idle();
  frame(ImVec2(950, 200), 0.0f, true);
  frame(kInside, 0.0f, true);
  EXPECT_FALSE(frame(kInside, 0.0f, false).clicked);
}

TEST_F(PlotInteraction, LegendClicksToggleSeriesAndAreNotPlotClicks) {
  Options o;
  o.capture = true;
  o.vline_label = "opened";
  frame(kOutside, 0.0f, false, o);
  Result r = frame(kOutside, 0.0f, false, o);
  // Markers are drawn in the SVG but have no SVG legend entry (SvgPlot::vlines has no labels).
  EXPECT_EQ(ht::svg_texts(ht::svg_group(r.svg, "legend")), (std::vector<std::string>{"train", "val"}));
  EXPECT_EQ(ht::count_of(ht::svg_group(r.svg, "vlines"), "<line"), 1);
  EXPECT_FALSE(click(legend_row(1), o).clicked);  // hides "val"
  r = frame(kOutside, 0.0f, false, o);
  EXPECT_EQ(ht::svg_texts(ht::svg_group(r.svg, "legend")), (std::vector<std::string>{"train"}));
  const std::string lines = ht::svg_group(r.svg, "lines");
  EXPECT_EQ(ht::count_of(lines, "<polyline"), 1);
  EXPECT_NE(lines.find("#1f77b4"), std::string::npos);
  EXPECT_EQ(lines.find("#2ca02c"), std::string::npos);
  idle(o);
  // With "val" hidden the legend still has three rows on screen (hidden entries are greyed).
  EXPECT_FALSE(click(legend_row(2), o).clicked);  // hides the marker
  r = frame(kOutside, 0.0f, false, o);
  EXPECT_EQ(ht::count_of(ht::svg_group(r.svg, "vlines"), "<line"), 0);
  EXPECT_FALSE(r.user);
}

TEST_F(PlotInteraction, OnceLimitsAreTheHomeViewUntilTheUserZooms) {
  Options o;
  o.limits = true;
  o.lo = 300.0;
  o.hi = 100.0;  // either order
  o.capture = true;
  const Result first = frame(kInside, 0.0f, false, o);
  EXPECT_DOUBLE_EQ(first.limits.min, 100.0);  // known from the first frame
  EXPECT_DOUBLE_EQ(first.limits.max, 300.0);
  EXPECT_FALSE(first.user);
  EXPECT_TRUE(first.limits.Contains(first.mouse_x));
  // The first frame lays out with a guessed y tick label width; from then on it is stable.
  EXPECT_NEAR(frame(kInside, 0.0f, false, o).mouse_x, frame(kInside, 0.0f, false, o).mouse_x, 1e-9);
  const Result z = frame(kInside, 1.0f, false, o);
  EXPECT_TRUE(z.user);
  EXPECT_GT(z.limits.min, 100.0);
  EXPECT_LT(z.limits.max, 300.0);
  const Result kept = frame(kOutside, 0.0f, false, o);
  EXPECT_DOUBLE_EQ(kept.limits.min, z.limits.min);
  EXPECT_DOUBLE_EQ(kept.limits.max, z.limits.max);
  // The SVG shows the zoomed range: its x tick labels are axis ticks of that range.
  const std::vector<std::string> ticks = ht::svg_texts(ht::svg_group(kept.svg, "xticks"));
  ASSERT_GE(ticks.size(), 2u);
  bool matches = false;
  for (int k = 2; k <= 30 && !matches; ++k) {
    std::vector<std::string> want;
    for (const hw::AxisTick& t : hw::nice_ticks(z.limits.min, z.limits.max, k)) want.push_back(t.label);
    matches = want == ticks;
  }
  EXPECT_TRUE(matches) << ticks.front() << " .. " << ticks.back();
  idle(o);
  frame(kInside, 0.0f, true, o);
  frame(kInside, 0.0f, false, o);
  frame(kInside, 0.0f, true, o);
  const Result home = frame(kInside, 0.0f, false, o);
  EXPECT_FALSE(home.user);
  EXPECT_DOUBLE_EQ(home.limits.min, 100.0);
  EXPECT_DOUBLE_EQ(home.limits.max, 300.0);
}

TEST_F(PlotInteraction, AlwaysLimitsAreForcedAndLinkedThroughGetPlotLimits) {
  Options o;
  o.limits = true;
  o.lo = 100.0;
  o.hi = 300.0;
  o.cond = hw::PlotCond_Always;
  frame(kOutside, 0.0f, false, o);
  const Result z = frame(kInside, 1.0f, false, o);
  EXPECT_NEAR(z.limits.Size(), 160.0, 1e-9);  // this frame's zoom on top of the forced range
  EXPECT_TRUE(z.user);
  const Result forced = frame(kOutside, 0.0f, false, o);  // not fed back: forced again
  EXPECT_DOUBLE_EQ(forced.limits.min, 100.0);
  EXPECT_DOUBLE_EQ(forced.limits.max, 300.0);
  // Linked: the shared range follows the user's zoom.
  hw::PlotRange shared{100.0, 300.0};
  for (int i = 0; i < 3; ++i) {
    o.lo = shared.min;
    o.hi = shared.max;
    shared = frame(kInside, 1.0f, false, o).limits;
  }
  EXPECT_NEAR(shared.Size(), 200.0 * 0.8 * 0.8 * 0.8, 1e-9);
  o.lo = shared.min;
  o.hi = shared.max;
  const Result linked = frame(kOutside, 0.0f, false, o);
  EXPECT_DOUBLE_EQ(linked.limits.min, shared.min);
  EXPECT_DOUBLE_EQ(linked.limits.max, shared.max);
}

TEST_F(PlotInteraction, NoInputsStillReportsClicksButDoesNotZoom) {
  Options o;
  o.flags = hw::PlotFlags_NoInputs;
  frame(kOutside, 0.0f, false, o);
  const Result w = frame(kInside, 1.0f, false, o);
  EXPECT_FALSE(w.user);
  EXPECT_DOUBLE_EQ(w.limits.Size(), 1000.0);
  EXPECT_TRUE(click(kInside, o).clicked);
}

TEST_F(PlotInteraction, CaptureWritesTheOnScreenSizeAndTheMarker) {
  Options o;
  o.capture = true;
  frame(kOutside, 0.0f, false, o);
  const Result r = frame(kOutside, 0.0f, false, o);
  EXPECT_EQ(ht::xml_problem(r.svg), "");
  EXPECT_NE(r.svg.find("width=\"900\" height=\"350\""), std::string::npos);
  EXPECT_NE(r.svg.find(">step</text>"), std::string::npos);
  EXPECT_NE(r.svg.find(">loss</text>"), std::string::npos);
  // "##opened" is drawn but has no legend entry.
  EXPECT_EQ(ht::svg_texts(ht::svg_group(r.svg, "legend")), (std::vector<std::string>{"train", "val"}));
  const std::string vl = ht::svg_group(r.svg, "vlines");
  ASSERT_EQ(ht::count_of(vl, "<line"), 1);
  EXPECT_NE(vl.find("stroke=\"#d62728\""), std::string::npos);
  EXPECT_EQ(ht::count_of(ht::svg_group(r.svg, "lines"), "<polyline"), 2);
  // Not capturing leaves the string alone.
  Result none = frame(kOutside);
  EXPECT_TRUE(none.svg.empty());
}

TEST_F(PlotInteraction, ZoomStateDoesNotLeakIntoANewImGuiContext) {
  frame(kOutside);
  EXPECT_TRUE(frame(kInside, 1.0f).user);
  TearDown();
  SetUp();  // a fresh context; the plot has the same ID
  const Result r = frame(kInside);
  EXPECT_FALSE(r.user);
  EXPECT_TRUE(std::isnan(r.limits.min));
}

// --- the legend never covers data -------------------------------------------------

namespace {

// Draws one 900 x 350 plot of `ys` (x = 0, 1, ...) with two labelled series, frames times;
// returns the plot area and the legend of the last frame.
// A plot of `size` drawn for a few frames, `series` adding its series; its area and legend as
// the last frame drew them, and (in *top) the plot frame's top edge.
std::pair<hw::PlotBox, hw::PlotBox> plot_frames(const char* id, ImVec2 size, const std::function<void()>& series,
                                                float* top = nullptr, int frames = 3, ImVec2 mouse = kOutside,
                                                bool down = false) {
  for (int f = 0; f < frames; ++f) {
    headroom::widgets::testing::set_mouse(mouse, 0.0f, down);
    ImGui::NewFrame();
    hw::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImGui::GetIO().DisplaySize);
    ImGui::Begin("legend", nullptr, ImGuiWindowFlags_NoDecoration);
    if (top) *top = ImGui::GetCursorScreenPos().y;
    if (hw::BeginPlot(id, size)) {
      hw::SetupAxes("x", "y");
      series();
      hw::EndPlot();
    }
    ImGui::End();
    ImGui::Render();
  }
  return {hw::GetLastPlotArea(), hw::GetLastPlotLegend()};
}

std::pair<hw::PlotBox, hw::PlotBox> legend_frames(const char* id, const std::vector<float>& a,
                                                  const std::vector<float>& b) {
  std::vector<float> xs(a.size());
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<float>(i);
  return plot_frames(id, ImVec2(900, 350), [&] {
    hw::PlotLine("first series", xs.data(), a.data(), static_cast<int>(a.size()));
    hw::PlotLine("second series", xs.data(), b.data(), static_cast<int>(b.size()));
  });
}

bool inside(const hw::PlotBox& in, const hw::PlotBox& out) {
  return in.x0 >= out.x0 && in.x1 <= out.x1 && in.y0 >= out.y0 && in.y1 <= out.y1;
}

}  // namespace

TEST(PlotLegend, TakesTheFirstCornerWithoutDataUnderIt) {
  headroom::widgets::testing::create_headless_imgui_context();
  // Rising lines: the top-right and bottom-left corners hold data, the top-left is free.
  std::vector<float> a, b;
  for (int i = 0; i <= 100; ++i) a.push_back(static_cast<float>(i)), b.push_back(static_cast<float>(i) * 0.9f);
  auto [area, legend] = legend_frames("##rising", a, b);
  ASSERT_FALSE(legend.empty());
  EXPECT_TRUE(inside(legend, area));
  EXPECT_LT(legend.x0 - area.x0, 20.0f);  // left
  EXPECT_LT(legend.y0 - area.y0, 20.0f);  // top
  // A flat line along the bottom and a peak in the middle: both top corners are free, and the
  // top-right one is preferred.
  std::vector<float> flat(101, 0.0f), peak;
  for (int i = 0; i <= 100; ++i) peak.push_back(10.0f - std::abs(static_cast<float>(i) - 50.0f) * 0.2f);
  std::tie(area, legend) = legend_frames("##peak", flat, peak);
  EXPECT_TRUE(inside(legend, area));
  EXPECT_LT(area.x1 - legend.x1, 20.0f);  // right
  ImGui::DestroyContext();
}

TEST(PlotLegend, GoesBesideThePlotWhenEveryCornerHoldsData) {
  headroom::widgets::testing::create_headless_imgui_context();
  // A zigzag between the bottom and the top covers all four corners.
  std::vector<float> a, b;
  for (int i = 0; i <= 200; ++i) a.push_back(i % 2 ? 1.0f : 0.0f), b.push_back(i % 2 ? 0.0f : 1.0f);
  const auto [area, legend] = legend_frames("##zigzag", a, b);
  ASSERT_FALSE(legend.empty());
  EXPECT_GE(legend.x0, area.x1);       // right of the plot area, not over it
  EXPECT_LT(area.x1, 900.0f - 40.0f);  // the plot gave up room for it
  ImGui::DestroyContext();
}

namespace {

// Twenty zigzag series "seed 0".."seed 19" over x = 0..100: every corner of a plot holds data, so
// the legend goes beside it, and in a 120-pixel plot it has room for a few rows.
constexpr int kSeries = 20;
struct ManySeries {
  std::vector<float> xs;
  std::vector<std::vector<float>> ys;
  std::vector<std::string> names;
  ManySeries() : ys(kSeries) {
    for (int i = 0; i <= 100; ++i) xs.push_back(static_cast<float>(i));
    for (int s = 0; s < kSeries; ++s) {
      for (int i = 0; i <= 100; ++i) ys[s].push_back((i + s) % 2 ? 1.0f : 0.0f);
      names.push_back("seed " + std::to_string(s));
    }
  }
  void plot() const {
    for (int s = 0; s < kSeries; ++s) hw::PlotLine(names[s].c_str(), xs.data(), ys[s].data(), 101);
  }
};

}  // namespace

TEST(PlotLegend, BesideAShortPlotItKeepsToTheFrameAndCountsWhatItLeftOut) {
  headroom::widgets::testing::create_headless_imgui_context();
  const ManySeries many;
  const float plot_h = 120.0f;
  float frame_top = 0.0f;
  const auto [area, legend] = plot_frames(
      "##many", ImVec2(600, plot_h), [&] { many.plot(); }, &frame_top);
  ASSERT_FALSE(legend.empty());
  EXPECT_GE(legend.x0, area.x1);  // beside the plot
  EXPECT_LE(legend.y1, frame_top + plot_h + 0.5f) << "the legend runs below the plot's frame";
  // Every series would need kSeries rows; it shows fewer, and one row more for "+ N more".
  const float row = ImGui::GetTextLineHeight();
  EXPECT_LT(legend.y1 - legend.y0, kSeries * row);
  EXPECT_GE(legend.y1 - legend.y0, 2.0f * row);
  ImGui::DestroyContext();
}

TEST(PlotLegend, ItsMoreRowListsWhatItLeftOutAndAClickThereHidesASeries) {
  headroom::widgets::testing::create_headless_imgui_context();
  const ManySeries many;
  std::string svg;
  const auto series = [&] {
    many.plot();
    hw::CapturePlotSvg(&svg);
  };
  const auto lines_drawn = [&] { return ht::count_of(ht::svg_group(svg, "lines"), "<polyline"); };
  const auto [area, legend] = plot_frames("##more", ImVec2(600, 120), series);
  ASSERT_FALSE(legend.empty());
  ASSERT_EQ(lines_drawn(), kSeries);
  EXPECT_FALSE(ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId));
  // The "+ N more" row is the legend's last; a click there opens the list.
  const float pad = ImGui::GetStyle().FramePadding.y, row = ImGui::GetTextLineHeight();
  const ImVec2 more((legend.x0 + legend.x1) * 0.5f, legend.y1 - pad - row * 0.5f);
  plot_frames("##more", ImVec2(600, 120), series, nullptr, 1, more, true);
  plot_frames("##more", ImVec2(600, 120), series, nullptr, 2, more, false);
  ImGuiContext& g = *ImGui::GetCurrentContext();
  ASSERT_EQ(g.OpenPopupStack.Size, 1) << "a click on '+ N more' opens no list";
  ImGuiWindow* popup = g.OpenPopupStack[0].Window;
  ASSERT_NE(popup, nullptr);
  // Its first row is a caption, then one row per series left out; the legend showed the first
  // shown_rows of them, so the list begins with the series after them.
  const int shown_rows = static_cast<int>(std::lround((legend.y1 - legend.y0 - 2.0f * pad) / row)) - 1;
  ASSERT_GT(shown_rows, 0);
  ASSERT_LT(shown_rows, kSeries);
  const ImVec2 pitch(0.0f, row + ImGui::GetStyle().ItemSpacing.y);
  const ImVec2 first_entry(popup->Pos.x + popup->Size.x * 0.5f,
                           popup->Pos.y + ImGui::GetStyle().WindowPadding.y + pitch.y + row * 0.5f);
  plot_frames("##more", ImVec2(600, 120), series, nullptr, 1, first_entry, true);
  plot_frames("##more", ImVec2(600, 120), series, nullptr, 2, first_entry, false);
  EXPECT_EQ(lines_drawn(), kSeries - 1) << "a click on the list's first series did not hide it";
  EXPECT_EQ(ht::svg_group(svg, "legend").find(">" + many.names[shown_rows] + "<"), std::string::npos)
      << "the hidden series is seed " << shown_rows;
  EXPECT_EQ(g.OpenPopupStack.Size, 1) << "the list closed on a click: several series take several clicks";
  ImGui::DestroyContext();
}

TEST(PlotLegend, RowsFittingKeepEveryEntryWhereTheyFitElseOneRowForTheRest) {
  using headroom::widgets::detail::legend_rows_fitting;
  EXPECT_EQ(legend_rows_fitting(5, 5 * 10.0f + 4.0f, 10.0f, 2.0f), 5);  // exactly fits
  EXPECT_EQ(legend_rows_fitting(6, 5 * 10.0f + 4.0f, 10.0f, 2.0f), 4);  // 4 rows + "+ 2 more"
  EXPECT_EQ(legend_rows_fitting(20, 15.0f, 10.0f, 2.0f), 1);            // never 0
}

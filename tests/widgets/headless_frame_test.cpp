// Runs whole ImGui frames without a window or GL context (line plots and spectra
// do not touch GL), checking the immediate-mode plumbing: item registration,
// decimation budget, hover paths, frame statistics.
#include <gtest/gtest.h>

#include "tests/widgets/headless_imgui.h"
#include <imgui.h>

#include <cmath>
#include <vector>

#include "widgets/demo_data.h"
#include "widgets/draw_util.h"
#include "widgets/frame_stats.h"
#include "widgets/heatmap.h"
#include "widgets/line_plot.h"
#include "widgets/spectrum.h"

namespace hw = headroom::widgets;

namespace {

class HeadlessImGui : public ::testing::Test {
 protected:
  void SetUp() override { headroom::widgets::testing::create_headless_imgui_context(); }
  void TearDown() override { ImGui::DestroyContext(); }

  // One frame with a 900-px-wide plot of `d`'s curves and a spectrum.
  hw::FrameStats frame(const hw::DemoData& d, ImVec2 mouse, float wheel = 0.0f, bool down = false) {
    headroom::widgets::testing::begin_frame(mouse, wheel, down);
    if (hw::BeginPlot("Loss##p", ImVec2(900, 350))) {
      hw::SetupAxes("step", "loss", hw::PlotFlags_LogY);
      hw::PlotShaded("band", d.steps.data(), d.band_lo.data(), d.band_hi.data(), d.points);
      hw::PlotLine("train", d.steps.data(), d.train.data(), d.points);
      hw::PlotLine("val", d.steps.data(), d.val.data(), d.points);
      hw::EndPlot();
    }
    hw::SpectrumBars("Spectrum##s", d.spectrum.data(), static_cast<int>(d.spectrum.size()), d.rank, d.cap,
                     ImVec2(900, 250));
    return headroom::widgets::testing::end_frame();
  }
};

}  // namespace

TEST_F(HeadlessImGui, PlotsAreDrawnWithinTheDecimationBudget) {
  const hw::DemoData d = hw::make_demo_data(8, 1, 20000);
  const hw::FrameStats s = frame(d, ImVec2(-1, -1));
  EXPECT_EQ(s.plots_drawn, 2);
  EXPECT_EQ(s.heatmaps_drawn, 0);
  EXPECT_GT(s.plot_points, 900);                // every pixel column has data
  EXPECT_LE(s.plot_points, 3 * (2 * 900 + 2));  // and never more than the budget
}

TEST_F(HeadlessImGui, HoverZoomAndPanDoNotBreakFrames) {
  const hw::DemoData d = hw::make_demo_data(8, 1, 20000);
  frame(d, ImVec2(-1, -1));
  const hw::FrameStats before = frame(d, ImVec2(450, 150));
  // Zoom in a lot around the cursor: fewer samples are visible, fewer points drawn.
  hw::FrameStats after = before;
  for (int i = 0; i < 12; ++i) after = frame(d, ImVec2(450, 150), 1.0f);
  EXPECT_EQ(after.plots_drawn, 2);
  EXPECT_LT(after.plot_points, before.plot_points);
  // Hovering the spectrum.
  const hw::FrameStats sp = frame(d, ImVec2(300, 500));
  EXPECT_EQ(sp.plots_drawn, 2);
}

TEST_F(HeadlessImGui, LegendClickHidesASeriesWithoutPanning) {
  const hw::DemoData d = hw::make_demo_data(8, 1, 20000);
  const ImVec2 legend_train(880, 55);  // second legend row, top-right of the plot
  frame(d, ImVec2(-1, -1));
  const hw::FrameStats before = frame(d, legend_train);
  frame(d, legend_train, 0.0f, true);   // press
  frame(d, legend_train, 0.0f, false);  // release
  const hw::FrameStats hidden = frame(d, ImVec2(-1, -1));
  EXPECT_LT(hidden.plot_points, before.plot_points);
  EXPECT_GT(hidden.plot_points, before.plot_points / 3);  // one of three series gone, x range kept
  // Clicking again shows it again.
  frame(d, legend_train, 0.0f, true);
  frame(d, legend_train, 0.0f, false);
  EXPECT_EQ(frame(d, ImVec2(-1, -1)).plot_points, before.plot_points);
}

TEST_F(HeadlessImGui, EmptyAndDegenerateSeries) {
  ImGui::NewFrame();
  hw::NewFrame();
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(ImVec2(800, 600));
  ImGui::Begin("empty");
  if (hw::BeginPlot("##empty", ImVec2(300, 200))) {
    hw::SetupAxes("x", "y", hw::PlotFlags_LogX | hw::PlotFlags_LogY);
    const float y[3] = {0.0f, -1.0f, NAN};
    hw::PlotLine("nothing valid", nullptr, y, 3);
    hw::PlotLine("null", nullptr, nullptr, 5);
    hw::EndPlot();
  }
  hw::SpectrumBars("##nothing", nullptr, 0, -1, -1, ImVec2(300, 200));
  ImGui::End();
  ImGui::Render();
  EXPECT_EQ(hw::frame_stats().plots_drawn, 2);
}

// A colour scale's width covers its widest tick label: a difference map's range of +-1e-6 labels
// its ticks "-1e-06", wider than the "-0.000" the bar reserves by default (the labels were cut at
// a panel's edge).
TEST_F(HeadlessImGui, ColorScaleWidthCoversItsTickLabels) {
  ImGui::NewFrame();
  const float plain = hw::ColorScaleWidth();
  EXPECT_EQ(hw::ColorScaleWidth(0.0f, 1.0f), plain);  // "0.2", "1.0": the default room suffices
  const float tiny = hw::ColorScaleWidth(-1e-6f, 1e-6f);
  EXPECT_GT(tiny, plain);
  EXPECT_GE(tiny - plain + ImGui::CalcTextSize("-0.000").x, ImGui::CalcTextSize("-1e-06").x);
  ImGui::EndFrame();
}

// A y label longer than its plot is tall gives way to the short label (when the font has its
// glyphs), else to none, so that a short plot (the lab's rank view at 16 heads) keeps no empty
// margin for a label it cannot show.
TEST_F(HeadlessImGui, YLabelGivesWayToItsShortFormOrNoneWhenThePlotIsShort) {
  namespace d = headroom::widgets::detail;
  ImGui::NewFrame();
  const char* label = "singular value";
  const float long_w = ImGui::CalcTextSize(label).x;
  EXPECT_STREQ(d::fitting_y_label(label, "s", long_w), label);
  EXPECT_STREQ(d::fitting_y_label(label, "s", long_w - 1.0f), "s");
  EXPECT_EQ(d::fitting_y_label(label, nullptr, long_w - 1.0f), nullptr);
  EXPECT_EQ(d::fitting_y_label(label, "s", 1.0f), nullptr);  // not even the short one fits
  // ImGui's built-in font has no sigma: a symbol it would draw as '?' is not shown.
  ASSERT_EQ(ImGui::GetFont()->FindGlyphNoFallback(0x3C3), nullptr);
  EXPECT_EQ(d::fitting_y_label(label, "\u03c3", long_w - 1.0f), nullptr);
  EXPECT_EQ(d::fitting_y_label(nullptr, nullptr, 500.0f), nullptr);
  ImGui::EndFrame();
}

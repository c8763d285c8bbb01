// render_svg: a well-formed standalone document, escaped text, polylines split at gaps
// and clipped to the plot area, ticks from axis_ticks, decimation, bands and markers.
#include "widgets/svg_plot.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "svg_test_util.h"
#include "widgets/axis_ticks.h"
#include "xml_check.h"

namespace hw = headroom::widgets;
namespace ht = headroom::widgets::test;

namespace {

hw::SvgPlot line_plot(int n, double x_max = 99.0) {
  hw::SvgPlot p;
  p.title = "loss";
  p.x_label = "step";
  p.y_label = "value";
  p.x_min = 0.0;
  p.x_max = x_max;
  p.y_min = -1.5;
  p.y_max = 1.5;
  hw::SvgPlot::Series s;
  s.label = "sin";
  s.color = IM_COL32(255, 127, 14, 255);
  for (int i = 0; i < n; ++i) {
    s.xs.push_back(i);
    s.ys.push_back(std::sin(i * 0.1));
  }
  p.series.push_back(s);
  return p;
}

std::vector<std::string> labeled(const std::vector<hw::AxisTick>& ticks) {
  std::vector<std::string> out;
  for (const hw::AxisTick& t : ticks)
    if (!t.label.empty()) out.push_back(t.label);
  return out;
}

}  // namespace

TEST(XmlCheck, RejectsBrokenDocuments) {
  EXPECT_EQ(ht::xml_problem("<svg><g></g></svg>"), "");
  EXPECT_NE(ht::xml_problem("<svg><g></svg>"), "");
  EXPECT_NE(ht::xml_problem("<svg><text>a<b</text></svg>"), "");
  EXPECT_NE(ht::xml_problem("<svg><text>a & b</text></svg>"), "");
  EXPECT_NE(ht::xml_problem("<svg title=\"a\"b\"></svg>"), "");
  EXPECT_NE(ht::xml_problem("<svg></svg><svg></svg>"), "");
}

TEST(XmlEscape, EscapesTheFiveCharactersAndDropsControls) {
  EXPECT_EQ(hw::xml_escape("a<b>&\"c\" 'd'"), "a&lt;b&gt;&amp;&quot;c&quot; &apos;d&apos;");
  EXPECT_EQ(hw::xml_escape(std::string("x\x01y\tz")), "xy\tz");
  EXPECT_EQ(hw::xml_escape("\xce\xbb=2"), "\xce\xbb=2");  // UTF-8 kept
}

TEST(SvgPlot, WellFormedStandaloneDocumentWithEscapedText) {
  hw::SvgPlot p = line_plot(100);
  p.title = "run <a> & \"b\"";
  p.series[0].label = "lr='3e-4' & <warm>";
  p.x_label = "step > 0";
  const std::string svg = hw::render_svg(p, 640, 400);
  EXPECT_EQ(ht::xml_problem(svg), "") << svg.substr(0, 400);
  EXPECT_EQ(svg.rfind("<?xml version=\"1.0\"", 0), 0u);
  EXPECT_NE(svg.find("xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  EXPECT_NE(svg.find("width=\"640\" height=\"400\""), std::string::npos);
  EXPECT_NE(svg.find(">run &lt;a&gt; &amp; &quot;b&quot;</text>"), std::string::npos);
  EXPECT_NE(svg.find(">lr=&apos;3e-4&apos; &amp; &lt;warm&gt;</text>"), std::string::npos);
  EXPECT_NE(svg.find(">step &gt; 0</text>"), std::string::npos);
  EXPECT_EQ(svg.find("<warm>"), std::string::npos);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  EXPECT_EQ(svg.find("inf"), std::string::npos);
  // The legend has the series' color.
  const std::string legend = ht::svg_group(svg, "legend");
  EXPECT_NE(legend.find("stroke=\"#ff7f0e\""), std::string::npos);
  EXPECT_EQ(ht::count_of(legend, "<text"), 1);
}

TEST(SvgPlot, ANanGapSplitsThePolyline) {
  hw::SvgPlot p = line_plot(100);
  EXPECT_EQ(ht::svg_polylines(ht::svg_group(hw::render_svg(p, 640, 400), "lines")).size(), 1u);
  p.series[0].ys[50] = NAN;
  const auto lines = ht::svg_polylines(ht::svg_group(hw::render_svg(p, 640, 400), "lines"));
  ASSERT_EQ(lines.size(), 2u);
  // 0..49 and 51..99, one point per sample (fewer samples than pixel columns).
  EXPECT_EQ(lines[0].size(), 50u);
  EXPECT_EQ(lines[1].size(), 49u);
  EXPECT_LT(lines[0].back().first, lines[1].front().first);
  // Two NaNs and an Inf: four runs.
  p.series[0].ys[20] = NAN;
  p.series[0].ys[80] = INFINITY;
  EXPECT_EQ(ht::svg_polylines(ht::svg_group(hw::render_svg(p, 640, 400), "lines")).size(), 4u);
}

TEST(SvgPlot, PointsAreClippedToThePlotRectangle) {
  hw::SvgPlot p = line_plot(0);
  p.x_min = 10.0;
  p.x_max = 20.0;
  p.y_min = 0.0;
  p.y_max = 1.0;
  hw::SvgPlot::Series& s = p.series[0];
  for (int i = 0; i <= 30; ++i) {  // x 0..30, y 0.5 +- 1: leaves the range in x and in y
    s.xs.push_back(i);
    s.ys.push_back(0.5 + ((i % 4 < 2) ? 1.0 : -1.0) * (i % 2));
  }
  const hw::SvgLayout L = hw::svg_layout(p, 500, 300);
  const auto lines = ht::svg_polylines(ht::svg_group(hw::render_svg(p, 500, 300), "lines"));
  ASSERT_FALSE(lines.empty());
  size_t points = 0;
  for (const auto& line : lines) {
    EXPECT_GE(line.size(), 2u);
    for (const auto& [x, y] : line) {
      EXPECT_GE(x, L.left - 0.01);
      EXPECT_LE(x, L.right + 0.01);
      EXPECT_GE(y, L.top - 0.01);
      EXPECT_LE(y, L.bottom + 0.01);
      ++points;
    }
  }
  // Lines run to the left and right borders.
  double min_x = 1e9, max_x = -1e9;
  for (const auto& line : lines)
    for (const auto& pt : line) min_x = std::min(min_x, pt.first), max_x = std::max(max_x, pt.first);
  EXPECT_NEAR(min_x, L.left, 0.01);
  EXPECT_NEAR(max_x, L.right, 0.01);
  // Every excursion above/below the range splits the line.
  EXPECT_GT(lines.size(), 3u);

  // A series entirely above the y range or right of the x range draws nothing.
  hw::SvgPlot q = p;
  for (double& y : q.series[0].ys) y = 5.0;
  EXPECT_EQ(ht::count_of(ht::svg_group(hw::render_svg(q, 500, 300), "lines"), "<polyline"), 0);
  q = p;
  for (double& x : q.series[0].xs) x += 100.0;
  EXPECT_EQ(ht::count_of(ht::svg_group(hw::render_svg(q, 500, 300), "lines"), "<polyline"), 0);
}

TEST(SvgPlot, TickLabelsAreTheAxisTicksOfTheRange) {
  hw::SvgPlot p = line_plot(100);
  p.x_min = 12.5;
  p.x_max = 87.0;
  const hw::SvgLayout L = hw::svg_layout(p, 800, 450);
  EXPECT_EQ(L.x_tick_target, static_cast<int>((L.right - L.left) / (12.0 * 5.5)));
  EXPECT_EQ(L.x_ticks.size(), hw::nice_ticks(12.5, 87.0, L.x_tick_target).size());
  const std::string svg = hw::render_svg(p, 800, 450);
  const std::vector<std::string> xs = ht::svg_texts(ht::svg_group(svg, "xticks"));
  EXPECT_EQ(xs, labeled(hw::nice_ticks(12.5, 87.0, L.x_tick_target)));
  EXPECT_GE(xs.size(), 3u);
  EXPECT_EQ(xs.front(), "20");  // 10-steps inside [12.5, 87]
  const std::vector<std::string> ys = ht::svg_texts(ht::svg_group(svg, "yticks"));
  EXPECT_EQ(ys, labeled(hw::nice_ticks(-1.5, 1.5, L.y_tick_target)));

  // Log y: decade labels from log_ticks.
  p.log_y = true;
  p.y_min = 1e-3;
  p.y_max = 10.0;
  const hw::SvgLayout LL = hw::svg_layout(p, 800, 450);
  const std::vector<std::string> ly = ht::svg_texts(ht::svg_group(hw::render_svg(p, 800, 450), "yticks"));
  EXPECT_EQ(ly, labeled(hw::log_ticks(1e-3, 10.0, LL.y_tick_target)));
  EXPECT_EQ(ly, (std::vector<std::string>{"0.001", "0.01", "0.1", "1", "10"}));
}

TEST(SvgPlot, LongSeriesAreDecimatedPerPixelColumn) {
  hw::SvgPlot p = line_plot(100000, 99999.0);
  const hw::SvgLayout L = hw::svg_layout(p, 600, 300);
  const auto lines = ht::svg_polylines(ht::svg_group(hw::render_svg(p, 600, 300), "lines"));
  ASSERT_EQ(lines.size(), 1u);
  const int columns = static_cast<int>(L.right - L.left);
  EXPECT_LE(static_cast<int>(lines[0].size()), 2 * columns + 2);
  EXPECT_GT(static_cast<int>(lines[0].size()), columns);  // min and max of most columns
}

TEST(SvgPlot, BandsMarkersAndLegendEntries) {
  hw::SvgPlot p = line_plot(100);
  hw::SvgPlot::Series band;
  band.label = "";  // no legend entry
  band.color = IM_COL32(31, 119, 180, 255);
  for (int i = 0; i < 100; ++i) {
    band.xs.push_back(i);
    band.ylo.push_back(-0.5);
    band.yhi.push_back(i == 30 ? NAN : 0.5);
  }
  p.series.push_back(band);
  p.vlines = {{40.0, IM_COL32(200, 0, 0, 128)}, {500.0, IM_COL32(0, 200, 0, 255)}};
  const std::string svg = hw::render_svg(p, 640, 400);
  EXPECT_EQ(ht::xml_problem(svg), "");
  const std::string bands = ht::svg_group(svg, "bands");
  EXPECT_EQ(ht::count_of(bands, "<path"), 2);  // split at the NaN
  EXPECT_NE(bands.find("fill=\"#1f77b4\" fill-opacity=\"0.250\""), std::string::npos);
  EXPECT_NE(svg.find("clip-path=\"url(#plotarea)\""), std::string::npos);
  // The band has no line and the line no band.
  EXPECT_EQ(ht::count_of(ht::svg_group(svg, "lines"), "<polyline"), 1);
  // Only the marker inside the x range, at its pixel, half transparent.
  const std::string vl = ht::svg_group(svg, "vlines");
  ASSERT_EQ(ht::count_of(vl, "<line"), 1);
  const hw::SvgLayout L = hw::svg_layout(p, 640, 400);
  const double px = L.left + (L.right - L.left) * 40.0 / 99.0;
  EXPECT_NEAR(std::stod(ht::svg_attr(vl, vl.find("<line"), "x1")), px, 0.01);
  EXPECT_NE(vl.find("stroke=\"#c80000\" stroke-opacity=\"0.502\""), std::string::npos);
  // Legend: only the labeled line.
  EXPECT_EQ(ht::svg_texts(ht::svg_group(svg, "legend")), std::vector<std::string>{"sin"});
}

TEST(SvgPlot, LogXAndDegenerateRangesStayFinite) {
  hw::SvgPlot p = line_plot(100);
  p.log_x = true;
  p.x_min = 0.0;  // invalid on a log axis: replaced
  p.x_max = 100.0;
  std::string svg = hw::render_svg(p, 300, 200);
  EXPECT_EQ(ht::xml_problem(svg), "");
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  // x = 0 is a gap on a log axis; the rest is one line.
  EXPECT_EQ(ht::count_of(ht::svg_group(svg, "lines"), "<polyline"), 1);
  p.log_x = false;
  p.x_min = p.x_max = 5.0;
  p.y_min = NAN;
  svg = hw::render_svg(p, 10, 10);  // clamped to 64 x 64
  EXPECT_EQ(ht::xml_problem(svg), "");
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  EXPECT_NE(svg.find("width=\"64\" height=\"64\""), std::string::npos);
}

TEST(SvgPlot, ACategoricalXAxisIsLabeledWithTheNames) {
  hw::SvgPlot p = line_plot(3, 2.0);
  p.x_min = -0.5;
  p.x_max = 2.5;
  p.x_categories = {"multi-head", "talking-heads", "general-bilinear"};
  const std::string svg = hw::render_svg(p, 640, 360);
  EXPECT_EQ(ht::svg_texts(ht::svg_group(svg, "xticks")), p.x_categories);
  // Too narrow for three names side by side: only the ones that fit are labeled, never overlapping.
  const auto narrow = labeled(hw::svg_layout(p, 160, 120).x_ticks);
  ASSERT_FALSE(narrow.empty());
  EXPECT_LT(narrow.size(), 3u);
  EXPECT_EQ(narrow[0], "multi-head");
}

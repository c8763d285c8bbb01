// The neuron view (BertViz's): its layout, hit test, the numbers it checks, and whole headless
// frames that draw and hover it.
#include "widgets/neuron_view.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tests/widgets/headless_imgui.h"
#include "widgets/frame_stats.h"

namespace hw = headroom::widgets;

TEST(NeuronViewGeometry, CellsFillTheWidthWithinTheirLimitsAndRowsTheHeight) {
  // 8 components in 600 px: as wide as fit, at most 28.
  auto g = hw::neuron_view_geometry(10, 8, 600, 400, 50, 16);
  EXPECT_EQ(g.cell_w, 28.0f);
  EXPECT_LE(g.size.x, 600.0f);
  EXPECT_EQ(g.cell_h, 18.0f);  // text height + 2: there is room
  EXPECT_FLOAT_EQ(g.keys_y, g.query_y + 1.5f * g.cell_h);
  EXPECT_FLOAT_EQ(g.size.y, g.keys_y + 10 * g.cell_h);
  // 256 components: narrower, never below 3 px (then the panel scrolls sideways).
  g = hw::neuron_view_geometry(10, 256, 600, 400, 50, 16);
  EXPECT_EQ(g.cell_w, 3.0f);
  EXPECT_GT(g.size.x, 600.0f);
  // 60 keys in 400 px: short rows that fit; 100 keys: never below 4 px (then the panel scrolls).
  g = hw::neuron_view_geometry(60, 8, 600, 400, 50, 16);
  EXPECT_LT(g.cell_h, 16.0f);
  EXPECT_LE(g.size.y, 400.0f);
  g = hw::neuron_view_geometry(100, 8, 600, 400, 50, 16);
  EXPECT_EQ(g.cell_h, 4.0f);
  EXPECT_GT(g.size.y, 400.0f);
  EXPECT_EQ(hw::neuron_view_geometry(0, 8, 600, 400, 50, 16).size.x, 0.0f);
  // Two wide cells under a 120 px title: the logit column starts after the title.
  g = hw::neuron_view_geometry(10, 2, 600, 400, 50, 16, 120);
  EXPECT_EQ(g.cell_w, 28.0f);
  EXPECT_GE(g.logit_x, g.products_x + 120.0f);
}

TEST(NeuronViewGeometry, HitsNameTheRowTheComponentAndTheColumn) {
  const auto g = hw::neuron_view_geometry(5, 4, 600, 400, 50, 16);
  auto hit = hw::neuron_view_hit(g, 5, 4, ImVec2(g.products_x + 2.5f * g.cell_w, g.keys_y + 3.5f * g.cell_h));
  EXPECT_EQ(hit.row, 3);
  EXPECT_EQ(hit.component, 2);
  EXPECT_EQ(hit.column, 0);
  hit = hw::neuron_view_hit(g, 5, 4, ImVec2(g.products_x + 0.5f * g.cell_w, g.query_y + 0.5f * g.cell_h));
  EXPECT_EQ(hit.row, -2);
  EXPECT_EQ(hit.component, 0);
  hit = hw::neuron_view_hit(g, 5, 4, ImVec2(g.logit_x + 1, g.keys_y + 0.5f * g.cell_h));
  EXPECT_EQ(hit.row, 0);
  EXPECT_EQ(hit.component, -1);
  EXPECT_EQ(hit.column, 1);
  hit = hw::neuron_view_hit(g, 5, 4, ImVec2(g.weight_x + 1, g.keys_y + 4.5f * g.cell_h));
  EXPECT_EQ(hit.column, 2);
  EXPECT_EQ(hw::neuron_view_hit(g, 5, 4, ImVec2(g.products_x, g.keys_y + 5.5f * g.cell_h)).row, -1);   // below
  EXPECT_EQ(hw::neuron_view_hit(g, 5, 4, ImVec2(g.products_x, g.query_y + 1.2f * g.cell_h)).row, -1);  // the gap
}

namespace {

// A query a = (1, -2, 0.5) against three keys; logits are the true sums except where `off` adds.
struct Example {
  std::vector<float> a{1.0f, -2.0f, 0.5f};
  std::vector<float> b{1, 0, 0,  //
                       0, 1, 0,  //
                       2, 1, 4};
  std::vector<float> logits{1.0f, -2.0f, 2.0f};
  std::vector<float> weights{0.25f, 0.05f, 0.7f};
  hw::NeuronViewInput input() const {
    hw::NeuronViewInput in;
    in.a = a.data();
    in.b = b.data();
    in.logits = logits.data();
    in.weights = weights.data();
    in.keys = 3;
    in.r = 3;
    return in;
  }
};

}  // namespace

TEST(NeuronViewNumbers, TheLargestProductAndHowExactlyTheCellsAddUp) {
  Example e;
  EXPECT_FLOAT_EQ(hw::neuron_products_max(e.input()), 2.0f);  // |-2 x 1| and |0.5 x 4|
  EXPECT_FLOAT_EQ(hw::neuron_sum_error(e.input()), 0.0f);
  e.logits[2] = 2.5f;  // a logit that is not the sum of its products
  EXPECT_FLOAT_EQ(hw::neuron_sum_error(e.input()), 0.5f);
}

namespace {

class NeuronViewFrame : public ::testing::Test {
 protected:
  void SetUp() override { headroom::widgets::testing::create_headless_imgui_context(); }
  void TearDown() override { ImGui::DestroyContext(); }

  hw::NeuronViewResult frame(const hw::NeuronViewInput& in, ImVec2 mouse) {
    headroom::widgets::testing::begin_frame(mouse, 0.0f, false, true);
    const auto r = hw::NeuronView("##neurons", in);
    stats_ = headroom::widgets::testing::end_frame();
    return r;
  }
  hw::FrameStats stats_;
};

}  // namespace

TEST_F(NeuronViewFrame, DrawsTheQueryRowAndEveryProductAndNamesTheHoveredCell) {
  Example e;
  auto r = frame(e.input(), ImVec2(-100, -100));
  EXPECT_EQ(stats_.neuron_cells_drawn, 3 + 3 * 3);
  EXPECT_EQ(r.hovered.row, -1);
  const auto& g = r.geometry;
  r = frame(e.input(), ImVec2(g.products_x + 2.5f * g.cell_w, g.keys_y + 2.5f * g.cell_h));
  EXPECT_EQ(r.hovered.row, 2);
  EXPECT_EQ(r.hovered.component, 2);
  // Nothing to draw without the query's row or the logits.
  hw::NeuronViewInput none = e.input();
  none.logits = nullptr;
  frame(none, ImVec2(-100, -100));
  EXPECT_EQ(stats_.neuron_cells_drawn, 0);
}

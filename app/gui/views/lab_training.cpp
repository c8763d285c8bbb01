// The lab's live training controls and loss curve.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "app/gui/ui_util.h"
#include "app/gui/views/lab_panels.h"
#include "app/gui/views/lesson_highlight.h"
#include "widgets/line_plot.h"

namespace headroom::gui {

void draw_lab_training(const LabSnapshot& s, LabControls& c, const ViewContext& ctx, const PostSteps& post,
                       float plot_height) {
  ImGui::Spacing();
  ImGui::TextUnformatted("Live training");
  ImGui::Separator();
  if (ImGui::Button(c.training ? "Pause" : "Train")) c.training = !c.training;
  highlight_item("training");
  tooltip("Train on the synthetic task in the background (Space).");
  ImGui::SameLine();
  ImGui::BeginDisabled(c.training);
  if (ImGui::Button("Step")) post(1, false);
  tooltip("One optimiser step (S).");
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button("Reset")) post(0, true);
  tooltip("Re-initialise the weights from the seed (R).");
  ImGui::SliderFloat("lr", &c.lr, 1e-4f, 1e-2f, "%.4f", ImGuiSliderFlags_Logarithmic);
  highlight_item("lr");
  if (!s.valid) return;
  ImGui::Text("step %lld  %s", static_cast<long long>(s.training.step), s.training.task.c_str());
  if (!s.training.loss.empty()) {
    // Beside the step where the column has room, else on the next line.
    char loss[32], pending[48];
    std::snprintf(loss, sizeof loss, "loss %.3f", s.training.loss.back());
    same_line_if_fits(ImGui::CalcTextSize(loss).x);
    ImGui::TextUnformatted(loss);
    if (s.training.pending_steps > 0) {
      std::snprintf(pending, sizeof pending, "(%d more steps to train)", s.training.pending_steps);
      same_line_if_fits(ImGui::CalcTextSize(pending).x);
      ImGui::TextDisabled("%s", pending);
    }
    if (widgets::BeginPlot("##loss", ImVec2(-1, plot_height > 0 ? plot_height : 150 * ctx.ui_scale))) {
      widgets::SetupAxes("step", "train loss", widgets::PlotFlags_LogY | widgets::PlotFlags_NoLegend);
      widgets::PlotLine("loss", s.training.steps.data(), s.training.loss.data(),
                        static_cast<int>(s.training.loss.size()));
      widgets::EndPlot();
    }
  }
  ImGui::PushTextWrapPos(0.0f);
  wrapped_text_disabled("Changing the input, causal or the task keeps the weights; changing a shape starts over.");
  ImGui::PopTextWrapPos();
}

}  // namespace headroom::gui

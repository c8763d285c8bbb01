// The lab's summary: the model, its costs (as TH's tables and §5 count them) and the papers' bottleneck badges.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "app/gui/ui_util.h"
#include "app/gui/views/lab_panels.h"

namespace headroom::gui {
namespace {

const ImVec4 kBadgeLrb(0.85f, 0.35f, 0.25f, 1.0f);
const ImVec4 kBadgeVb(0.55f, 0.40f, 0.85f, 1.0f);
const ImVec4 kBadgeTh(0.20f, 0.60f, 0.75f, 1.0f);

}  // namespace

void draw_lab_summary(const LabSnapshot& s, int max_badge_lines) {
  // Wrapped: in presentation mode (large fonts) these lines are wider than the panel.
  if (s.real.dir.empty()) {
    wrapped_text("%s", core::describe(s.spec).c_str());
  } else {  // a real checkpoint: its own family and shape, not a Headroom spec
    const auto& r = s.real;
    const std::string kv = r.kv_heads < r.heads ? " (" + std::to_string(r.kv_heads) + " key/value heads)" : "";
    wrapped_text("%s (%s): %d layers, d = %d, %d heads of d_k = %d%s, %s%s", r.family.c_str(), r.model_type.c_str(),
                 r.layers, r.d_model, r.heads, r.d_k, kv.c_str(), r.causal ? "causal" : "bidirectional",
                 r.rotary ? ", rotary positions" : "");
  }
  // A narrow panel breaks the line between its measures, not inside one ("took 104.6" / "ms").
  char ms[32];
  std::snprintf(ms, sizeof ms, "took %.1f ms", s.compute_ms);  // the tooltip says what took it
  // n is this input's length, which the header's n= (the model's context) bounds: say which.
  const bool shorter = s.real.dir.empty() && s.n < s.spec.context;
  const std::string n_text =
      "input n = " + std::to_string(s.n) + (shorter ? " (context " + std::to_string(s.spec.context) + ")" : "");
  wrapped_text("%s   %s   %s   %s   %s", glued(n_text).c_str(),
               glued("params/attention layer " + human_count(double(s.costs.params))).c_str(),
               glued("multiplies/attention layer " + human_count(double(s.costs.multiplies))).c_str(),
               glued("model params " + human_count(double(s.parameters))).c_str(), glued(ms).c_str());
  tooltip(
      "Parameters per attention layer counted as TH's tables count them (Tables 1-3, 8, 9), multiplies by\n"
      "TH §5 with n = m = this input's length; computed for this spec, not copied from a table. The time is what\n"
      "the last answer to a change took on the lab's engine thread.");
  for (const auto& b : s.bottlenecks) {
    const ImVec4 color = b.paper == "LRB" ? kBadgeLrb : b.paper == "VB" ? kBadgeVb : kBadgeTh;
    ImGui::PushStyleColor(ImGuiCol_Button, color);
    ImGui::PushStyleColor(ImGuiCol_ButtonHovered, color);
    const std::string label = b.paper + " " + b.section + "##" + b.id;
    ImGui::SmallButton(label.c_str());
    ImGui::PopStyleColor(2);
    ImGui::SameLine();
    if (wrapped_unformatted(b.message, max_badge_lines)) tooltip(b.message);
  }
  if (s.partial) ImGui::TextDisabled("Measuring the heads' spectra...");
  else if (s.bottlenecks.empty())
    ImGui::TextDisabled(
        "No bottleneck at this n: every head reaches every attention pattern (rank cap >= n - 1, LRB Thm 1).");
}

}  // namespace headroom::gui

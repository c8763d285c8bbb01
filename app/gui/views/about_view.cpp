#include "app/gui/views/about_view.h"

#include <imgui.h>

#include "app/gui/gui_options.h"
#include "app/gui/ui_util.h"
#include "core/train/blas_threads.h"
#include "widgets/gl.h"

#ifndef HEADROOM_VERSION
#define HEADROOM_VERSION "0.0.0"
#endif

namespace headroom::gui {
namespace {

const char* gl_string(GLenum what) {
  const auto* s = reinterpret_cast<const char*>(glGetString(what));
  return s ? s : "?";
}

void row(const char* key, const char* value) {
  ImGui::TableNextRow();
  ImGui::TableSetColumnIndex(0);
  ImGui::TextDisabled("%s", key);
  ImGui::TableSetColumnIndex(1);
  ImGui::TextUnformatted(value);
}

}  // namespace

void AboutView::draw() {
  ImGui::Spacing();
  ImGui::Text("Headroom %s", HEADROOM_VERSION);
  wrapped_text(
      "A desktop lab for multi-head attention: watch every head's attention map, the singular "
      "spectra behind its rank bottleneck, talking-heads projections and training curves.");
  ImGui::Spacing();

  const ImGuiTableFlags flags = ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV;
  ImGui::TextUnformatted("Build and renderer");
  if (ImGui::BeginTable("##build", 2, flags)) {
    row("version", HEADROOM_VERSION);
    row("Dear ImGui", IMGUI_VERSION);
    row("OpenGL", gl_string(GL_VERSION));
    row("renderer", gl_string(GL_RENDERER));
    row("settings", context_.config_dir.empty() ? "(no config directory)" : context_.config_dir.c_str());
    row("database", !context_.open_db.empty() ? context_.open_db.c_str()
                    : context_.options && !context_.options->db_path.empty()
                        ? context_.options->db_path.c_str()
                        : "(none open yet: the Explorer tab opens one)");
    // The lab's and a CPU worker's speed depend on the matrix kernels OpenBLAS chose for this CPU.
    static const std::string kernels = [] {
      const std::string name = core::openblas_core_name();
      return name.empty() ? std::string("(no OpenBLAS loaded)") : "OpenBLAS, \"" + name + "\" kernels";
    }();
    row("matrix kernels", kernels.c_str());
    ImGui::EndTable();
  }
  static const std::string kernel_advice = core::openblas_kernel_advice();
  if (!kernel_advice.empty()) problem_text(kernel_advice + " (set it before starting headroom).");
  ImGui::Spacing();
  ImGui::TextUnformatted("Keyboard");
  if (ImGui::BeginTable("##keys", 2, flags)) {
    row("F11", "toggle fullscreen");
    row("Ctrl+Shift+S", "export a screenshot (timestamped PNG in the current directory)");
    row("Ctrl+Q", "quit");
    row("mouse wheel / drag", "zoom / pan a plot's x axis; double-click fits");
    row("click a head", "select it; right-click any map or plot to export it as PNG");
    row("Space / S / R (lab)", "train or pause / one training step / re-initialise the weights");
    row("[ / ] (lab)", "halve / double the heads h");
    row("1 .. 5 (lab)", "attention maps, rank, P_l / P_w, Theorem 1, depth vs width");
    row("Right, Page Down, Space", "a lesson's next step (Left, Page Up: the previous one); N: speaker notes");
    ImGui::EndTable();
  }
  ImGui::Spacing();
  ImGui::TextUnformatted("Command line");
  if (context_.mono_font) ImGui::PushFont(context_.mono_font);
  static const std::string help = gui_options_help();  // headroom --help, from the parser's own options
  ImGui::TextUnformatted(help.c_str());
  if (context_.mono_font) ImGui::PopFont();
}

}  // namespace headroom::gui

#include "app/gui/views/lab_real_model.h"

#include <imgui.h>

#include <algorithm>
#include <cstring>

#include "app/gui/ui_util.h"

namespace headroom::gui {

void LabRealModelPanel::set_path(const std::string& dir) {
  std::memset(path_, 0, sizeof path_);
  std::strncpy(path_, dir.c_str(), sizeof path_ - 1);
}

LabRealModelPanel::Action LabRealModelPanel::draw(const LabSnapshot* s, char* text_buffer, size_t text_size) {
  Action action;
  const RealModelInfo* real = s && !s->real.dir.empty() ? &s->real : nullptr;
  // A new error opens the panel once, so it is seen; the user may fold it away again.
  const bool new_error = s && !s->real.error.empty() && s->real.error != last_error_;
  if (s) last_error_ = s->real.error;
  if (expanded_ || real || new_error) ImGui::SetNextItemOpen(true);
  if (!ImGui::CollapsingHeader("Real model")) {
    expanded_ = false;
    return action;
  }
  expanded_ = true;
  // The header sits below the lab's controls: bring it into view when it asks for attention.
  if (focus_path_ || new_error) ImGui::SetScrollHereY(0.0f);
  ImGui::PushTextWrapPos(0.0f);
  if (!real) {
    wrapped_text_disabled(
        "A Hugging Face GPT-2, BERT or Llama-style directory: config.json, *.safetensors and "
        "its tokenizer files.");
  }
  if (focus_path_) ImGui::SetKeyboardFocusHere();
  focus_path_ = false;
  ImGui::SetNextItemWidth(-ImGui::CalcTextSize("Open").x - 3 * ImGui::GetStyle().FramePadding.x -
                          ImGui::GetStyle().ItemSpacing.x);
  const bool enter = ImGui::InputText("##model_dir", path_, sizeof path_, ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  if ((ImGui::Button("Open##model") || enter) && path_[0] != 0) {
    action.open = true;
    action.dir = path_;
  }
  if (!opening_.empty()) wrapped_text_disabled("opening %s...", opening_.c_str());
  if (s && !s->real.error.empty()) problem_text(s->real.error);
  if (real) {
    wrapped_text("%s (%s), %s parameters", real->family.c_str(), real->model_type.c_str(),
                 human_count(static_cast<double>(real->parameters)).c_str());
    wrapped_text("%d layers, d = %d, %d heads of d_k = %d", real->layers, real->d_model, real->heads, real->d_k);
    if (real->kv_heads < real->heads)
      wrapped_text("grouped-query: %d key/value heads, %d query heads each", real->kv_heads,
                   real->heads / std::max(1, real->kv_heads));
    wrapped_text("%s, vocabulary %d, at most %d tokens here", real->causal ? "causal" : "bidirectional", real->vocab,
                 real->max_tokens);
    wrapped_text_disabled("opened in %.0f ms", real->open_ms);
    for (const auto& w : real->warnings) wrapped_text_disabled("warning: %s", w.c_str());
    ImGui::Separator();
    wrapped_unformatted("Sentence (the model's own tokenizer):");
    ImGui::InputTextMultiline("##real_text", text_buffer, text_size, ImVec2(-1, ImGui::GetTextLineHeight() * 3));
    if (s) wrapped_text_disabled(s->n >= real->max_tokens ? "%d tokens (cut at the limit)" : "%d tokens", s->n);
    if (ImGui::Button("Back to the lab's model")) action.close = true;
    tooltip("Closes the real model; the lab's own model and its controls come back.");
  }
  ImGui::PopTextWrapPos();
  return action;
}

}  // namespace headroom::gui

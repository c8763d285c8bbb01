// An ImGui context with no window and no GL, for tests that run widget frames.
#pragma once

#include <imgui.h>

namespace headroom::widgets::testing {

// A 1000 x 700 display at 60 fps with the font atlas built (no texture is uploaded: frames
// build draw lists, nothing renders them). Pair with ImGui::DestroyContext().
inline void create_headless_imgui_context() {
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.DisplaySize = ImVec2(1000, 700);
  io.DeltaTime = 1.0f / 60.0f;
  unsigned char* px = nullptr;
  int w = 0, h = 0;
  io.Fonts->GetTexDataAsRGBA32(&px, &w, &h);
}

// One mouse state for the next frame.
inline void set_mouse(ImVec2 pos, float wheel, bool down) {
  ImGuiIO& io = ImGui::GetIO();
  io.MousePos = pos;
  io.MouseWheel = wheel;
  io.MouseDown[0] = down;
}

}  // namespace headroom::widgets::testing

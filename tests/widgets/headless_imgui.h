// An ImGui context with no window and no GL, for tests that run widget frames.
#pragma once

#include <imgui.h>

#include "widgets/frame_stats.h"

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

// Starts a frame (ImGui's and the widgets' counters) with the mouse at `pos` and one undecorated
// window "test" over the whole display; `no_padding` puts its content at the display's origin.
inline void begin_frame(ImVec2 pos, float wheel = 0.0f, bool down = false, bool no_padding = false) {
  set_mouse(pos, wheel, down);
  ImGui::NewFrame();
  headroom::widgets::NewFrame();
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(ImGui::GetIO().DisplaySize);
  if (no_padding) ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
  ImGui::Begin("test", nullptr, ImGuiWindowFlags_NoDecoration);
  if (no_padding) ImGui::PopStyleVar();
}

// Ends what begin_frame began, renders it, and returns the frame's widget counters.
inline FrameStats end_frame() {
  ImGui::End();
  ImGui::Render();
  return frame_stats();
}

}  // namespace headroom::widgets::testing

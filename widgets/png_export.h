// PNG export of what is on screen: the whole window (screenshots, the
// --screenshot automation contract) or one panel (a heatmap, a plot).
//
// Reading pixels is only meaningful after the frame has been rendered and before
// the buffers are swapped, but widgets are drawn before rendering. So panels are
// exported in two steps: a widget calls request_panel_export() while drawing, and
// the app calls process_panel_exports() after ImGui's draw data has been rendered.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <string>
#include <vector>

namespace headroom::widgets {

// Writes rgba (w*h*4 bytes, top row first) to `path`. On failure returns false and
// sets *error to what went wrong (e.g. the directory does not exist).
bool write_png_rgba(const std::string& path, int w, int h, const uint8_t* rgba, std::string* error);

// Reads the w x h rectangle at (x, y) of the current GL read buffer and saves it as PNG.
// x, y are framebuffer pixels with the origin at the TOP-left (as in ImGui); the
// rectangle is clipped to the viewport. Rows are flipped from GL's bottom-up order.
bool save_framebuffer_png(const std::string& path, int x, int y, int w, int h, std::string* error);

// Queues an export of the screen rectangle [min, max] (ImGui coordinates) to `path`.
void request_panel_export(const ImVec2& min, const ImVec2& max, const std::string& path);

struct ExportResult {
  std::string path;
  bool ok = false;
  std::string error;
};

// Call once per frame after rendering: performs the exports queued two frames ago
// (so the menu that requested them has closed) from the current read buffer. fb_scale
// converts ImGui coordinates to framebuffer pixels (io.DisplayFramebufferScale).
// Returns one result per export performed, in request order.
std::vector<ExportResult> process_panel_exports(const ImVec2& fb_scale);

// "headroom-<stem>-YYYYMMDD-HHMMSS.png" in dir (dir may be empty = current directory);
// runs of characters other than [A-Za-z0-9-] in stem become one '_' (40 chars at most).
std::string timestamped_png_name(const std::string& dir, const std::string& stem);

}  // namespace headroom::widgets

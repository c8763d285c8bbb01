#include "widgets/png_export.h"

#include <stb_image_write.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <vector>

#include "core/io/atomic_file.h"
#include "widgets/gl.h"

namespace headroom::widgets {
namespace {

struct PendingExport {
  ImVec2 min, max;
  std::string path;
  int frames_left = 2;  // let the menu that asked for it close first
};
std::vector<PendingExport> g_pending;

}  // namespace

bool write_png_rgba(const std::string& path, int w, int h, const uint8_t* rgba, std::string* error) {
  if (w <= 0 || h <= 0 || rgba == nullptr) {
    if (error) *error = "nothing to write: image is " + std::to_string(w) + "x" + std::to_string(h);
    return false;
  }
  // Encoded in memory, then written whole: a failed write leaves any earlier file as it was.
  std::string png;
  const auto append = [](void* context, void* data, int size) {
    static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
  };
  // A window or panel is opaque: as RGB, without the alpha byte of every pixel, and every row
  // unfiltered. Screenshots are flat colours, text and thin lines, which stb's per-row filter choice
  // (its sum-of-differences guess) compresses worse than no filter: the README's 43 screenshots
  // came to 12.3 MB this way against 16.6 MB as RGBA with stb's choice (no image larger), in about
  // half the time. An image with any transparency keeps its alpha.
  const std::size_t pixels = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
  bool opaque = true;
  for (std::size_t i = 0; i < pixels && opaque; ++i) opaque = rgba[4 * i + 3] == 255;
  std::vector<uint8_t> rgb;
  if (opaque) {
    rgb.resize(pixels * 3);
    for (std::size_t i = 0; i < pixels; ++i)
      for (int c = 0; c < 3; ++c) rgb[3 * i + c] = rgba[4 * i + c];
  }
  const int filter_before = stbi_write_force_png_filter;  // libstb's global, restored after
  stbi_write_force_png_filter = 0;
  const bool encoded = opaque ? stbi_write_png_to_func(append, &png, w, h, 3, rgb.data(), w * 3)
                              : stbi_write_png_to_func(append, &png, w, h, 4, rgba, w * 4);
  stbi_write_force_png_filter = filter_before;
  if (!encoded) {
    if (error) *error = "failed to encode PNG '" + path + "'";
    return false;
  }
  return core::write_file_atomically(path, png, error);
}

bool save_framebuffer_png(const std::string& path, int x, int y, int w, int h, std::string* error) {
  GLint vp[4] = {0, 0, 0, 0};
  glGetIntegerv(GL_VIEWPORT, vp);
  const int fb_w = vp[2], fb_h = vp[3];
  // Clip to the viewport.
  const int x0 = std::max(0, x), y0 = std::max(0, y);
  const int x1 = std::min(fb_w, x + w), y1 = std::min(fb_h, y + h);
  if (x1 <= x0 || y1 <= y0) {
    if (error)
      *error = "rectangle " + std::to_string(w) + "x" + std::to_string(h) + "+" + std::to_string(x) + "+" +
               std::to_string(y) + " is outside the " + std::to_string(fb_w) + "x" + std::to_string(fb_h) +
               " framebuffer";
    return false;
  }
  const int cw = x1 - x0, ch = y1 - y0;
  std::vector<uint8_t> pixels(static_cast<size_t>(cw) * ch * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(x0, fb_h - y1, cw, ch, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  if (const GLenum err = glGetError(); err != GL_NO_ERROR) {
    char msg[96];
    std::snprintf(msg, sizeof msg, "glReadPixels failed with GL error 0x%04X (is a GL context current?)", err);
    if (error) *error = msg;
    return false;
  }
  // GL rows are bottom-up; PNG rows are top-down. Alpha is forced opaque so the PNG
  // looks like the screen even where the framebuffer kept a translucent clear.
  std::vector<uint8_t> flipped(pixels.size());
  const size_t row = static_cast<size_t>(cw) * 4;
  for (int r = 0; r < ch; ++r) std::memcpy(&flipped[r * row], &pixels[(ch - 1 - r) * row], row);
  for (size_t i = 3; i < flipped.size(); i += 4) flipped[i] = 255;
  return write_png_rgba(path, cw, ch, flipped.data(), error);
}

void request_panel_export(const ImVec2& min, const ImVec2& max, const std::string& path) {
  g_pending.push_back({min, max, path});
}

std::vector<ExportResult> process_panel_exports(const ImVec2& fb_scale) {
  std::vector<ExportResult> results;
  std::vector<PendingExport> later;
  for (PendingExport& p : g_pending) {
    if (p.frames_left-- > 0) {
      later.push_back(p);
      continue;
    }
    ExportResult r;
    r.path = p.path;
    const int x = static_cast<int>(std::floor(p.min.x * fb_scale.x));
    const int y = static_cast<int>(std::floor(p.min.y * fb_scale.y));
    const int w = static_cast<int>(std::ceil(p.max.x * fb_scale.x)) - x;
    const int h = static_cast<int>(std::ceil(p.max.y * fb_scale.y)) - y;
    r.ok = save_framebuffer_png(p.path, x, y, w, h, &r.error);
    results.push_back(std::move(r));
  }
  g_pending.swap(later);
  return results;
}

std::string timestamped_png_name(const std::string& dir, const std::string& stem) {
  // Keep [A-Za-z0-9-], turn runs of anything else into one '_', at most 40 characters.
  std::string clean;
  for (char c : stem) {
    if (clean.size() >= 40) break;
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-') clean += c;
    else if (!clean.empty() && clean.back() != '_') clean += '_';
  }
  while (!clean.empty() && clean.back() == '_') clean.pop_back();
  if (clean.empty()) clean = "export";
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  std::string name = "headroom-" + clean + "-" + stamp + ".png";
  if (dir.empty()) return name;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

}  // namespace headroom::widgets

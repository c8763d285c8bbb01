#include "widgets/heatmap.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>
#include <vector>

#include "widgets/axis_ticks.h"
#include "widgets/draw_util.h"
#include "widgets/frame_stats.h"
#include "widgets/gl.h"
#include "widgets/heatmap_layout.h"
#include "widgets/mipmap.h"
#include "widgets/png_export.h"

namespace headroom::widgets {
namespace {

struct TexEntry {
  GLuint tex = 0;
  int rows = 0, cols = 0;
  const float* data = nullptr;
  uint64_t version = 0;
  Colormap colormap = Colormap::Viridis;
  bool auto_range = true;
  float req_lo = 0.0f, req_hi = 0.0f;  // the style's fixed range at upload time
  float req_pct = 100.0f;
  float lo = 0.0f, hi = 1.0f;  // the range actually used
  int last_frame = 0;
  // Label extents, measured once per (labels, version, font size).
  const char* const* row_labels = nullptr;
  const char* const* col_labels = nullptr;
  uint64_t label_version = ~uint64_t{0};
  float label_size = 0.0f;
  float row_label_w = 0.0f, col_label_w = 0.0f;
};

std::unordered_map<ImGuiID, TexEntry> g_textures;
std::vector<uint8_t> g_scratch;

bool needs_upload(const TexEntry& e, const float* values, int rows, int cols, const HeatmapStyle& s) {
  return e.tex == 0 || e.data != values || e.version != s.version || e.rows != rows || e.cols != cols ||
         e.colormap != s.colormap || e.auto_range != s.auto_range ||
         (!s.auto_range && (e.req_lo != s.vmin || e.req_hi != s.vmax)) ||
         (s.auto_range && e.req_pct != s.auto_percentile);
}

void upload(TexEntry& e, const float* values, int rows, int cols, const HeatmapStyle& s) {
  const int n = rows * cols;
  float lo = s.vmin, hi = s.vmax;
  if (s.auto_range) {
    if (!percentile_range(values, n, s.auto_percentile, &lo, &hi)) lo = 0.0f, hi = 1.0f;
    if (s.colormap == Colormap::Diverging) {
      const float m = std::max(std::fabs(lo), std::fabs(hi));
      lo = -m;
      hi = m;
    }
  }
  g_scratch.resize(static_cast<size_t>(n) * 4);
  colormap_to_rgba(s.colormap, values, n, lo, hi, g_scratch.data());

  GLint prev = 0;
  glGetIntegerv(GL_TEXTURE_BINDING_2D, &prev);
  const bool fresh = e.tex == 0;
  if (fresh) glGenTextures(1, &e.tex);
  glBindTexture(GL_TEXTURE_2D, e.tex);
  if (fresh) {
    // Mipmaps so a 256x256 map shown in 80 px averages cells instead of skipping them;
    // nearest when enlarged so cells stay crisp squares.
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  }
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
  // The levels made here, not by glGenerateMipmap (widgets/mipmap.h says why).
  const bool same_size = !fresh && e.rows == rows && e.cols == cols;
  auto level = [same_size](int index, int width, int height, const uint8_t* pixels) {
    if (same_size) glTexSubImage2D(GL_TEXTURE_2D, index, 0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
    else glTexImage2D(GL_TEXTURE_2D, index, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
  };
  level(0, cols, rows, g_scratch.data());
  const std::vector<MipLevel> mips = mip_chain(g_scratch.data(), cols, rows);
  for (size_t i = 0; i < mips.size(); ++i)
    level(static_cast<int>(i) + 1, mips[i].width, mips[i].height, mips[i].rgba.data());
  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(prev));

  e.rows = rows;
  e.cols = cols;
  e.data = values;
  e.version = s.version;
  e.colormap = s.colormap;
  e.auto_range = s.auto_range;
  e.req_lo = s.vmin;
  e.req_hi = s.vmax;
  e.req_pct = s.auto_percentile;
  e.lo = lo;
  e.hi = hi;
  ++detail::mutable_frame_stats().heatmap_uploads;
}

float max_label_width(const char* const* labels, int n, int max_chars, const ImFont* font, float size) {
  float w = 0.0f;
  char buf[128];
  for (int i = 0; i < n; ++i) {
    const char* t = detail::clip_label(labels[i], max_chars, buf, sizeof buf);
    w = std::max(w, font->CalcTextSizeA(size, FLT_MAX, 0.0f, t).x);
  }
  return std::ceil(w);
}

void measure_labels(TexEntry& e, int rows, int cols, const HeatmapStyle& s, const ImFont* font, float size) {
  if (e.row_labels == s.row_labels && e.col_labels == s.col_labels && e.label_version == s.version &&
      e.label_size == size)
    return;
  e.row_labels = s.row_labels;
  e.col_labels = s.col_labels;
  e.label_version = s.version;
  e.label_size = size;
  e.row_label_w = s.row_labels ? max_label_width(s.row_labels, rows, s.max_label_chars, font, size) : 0.0f;
  e.col_label_w = s.col_labels ? max_label_width(s.col_labels, cols, s.max_label_chars, font, size) : 0.0f;
}

float scale_bar_width() { return std::round(ImGui::GetFontSize() * 0.8f); }
// From the bar's right edge to its tick labels: a 3 px tick, then a gap that grows with the type, so
// that a tick beside a label never reads as its minus sign ("-0" for 0).
float scale_label_offset() { return 3.0f + std::max(4.0f, std::round(ImGui::GetFontSize() * 0.35f)); }

void draw_color_scale(ImDrawList* dl, const ImRect& r, Colormap map, float lo, float hi) {
  const float bar_w = scale_bar_width();
  const ImRect bar(r.Min, ImVec2(r.Min.x + bar_w, r.Max.y));
  const int segments = std::clamp(static_cast<int>(bar.GetHeight() / 4.0f), 2, 64);
  for (int i = 0; i < segments; ++i) {
    const float t0 = static_cast<float>(i) / segments, t1 = static_cast<float>(i + 1) / segments;
    const float y_bottom = bar.Max.y - t0 * bar.GetHeight(), y_top = bar.Max.y - t1 * bar.GetHeight();
    const ImU32 c_top = colormap_color(map, t1), c_bottom = colormap_color(map, t0);
    dl->AddRectFilledMultiColor(ImVec2(bar.Min.x, y_top), ImVec2(bar.Max.x, y_bottom), c_top, c_top, c_bottom,
                                c_bottom);
  }
  dl->AddRect(bar.Min, bar.Max, ImGui::GetColorU32(ImGuiCol_Border));
  if (!(hi > lo)) return;
  const float line = ImGui::GetTextLineHeight();
  const int target = std::max(2, static_cast<int>(bar.GetHeight() / (line * 2.2f)));
  const std::vector<AxisTick> ticks = nice_ticks(lo, hi, target);
  const AxisMap ym{lo, hi, false, bar.Max.y, bar.Min.y};
  float last_top = FLT_MAX;
  for (const AxisTick& t : ticks) {
    const float y = std::round(ym.to_pixel(t.value)) + 0.5f;
    dl->AddLine(ImVec2(bar.Max.x, y), ImVec2(bar.Max.x + 3.0f, y), detail::text_color(0.6f));
    const float top = std::clamp(y - line * 0.5f, r.Min.y, std::max(r.Min.y, r.Max.y - line));
    if (top + line > last_top) continue;
    dl->AddText(ImVec2(bar.Max.x + scale_label_offset(), top), detail::text_color(0.85f), t.label.c_str());
    last_top = top;
  }
}

}  // namespace

float ColorScaleWidth() { return scale_bar_width() + scale_label_offset() + ImGui::CalcTextSize("-0.000").x; }

float ColorScaleWidth(float lo, float hi) {
  float widest = ImGui::CalcTextSize("-0.000").x;
  // The densest tick set draw_color_scale asks for on a tall bar: its labels are the longest.
  if (hi > lo)
    for (const AxisTick& t : nice_ticks(lo, hi, 64)) widest = std::max(widest, ImGui::CalcTextSize(t.label.c_str()).x);
  return scale_bar_width() + scale_label_offset() + widest;
}

void ColorScale(const char* id, Colormap colormap, float lo, float hi, const ImVec2& size) {
  ImGuiWindow* window = ImGui::GetCurrentWindow();
  if (window->SkipItems) return;
  const ImGuiID gid = window->GetID(id);
  const ImVec2 sz(size.x > 0 ? size.x : ColorScaleWidth(), size.y > 0 ? size.y : ImGui::GetFontSize() * 10);
  const ImRect bb(window->DC.CursorPos, window->DC.CursorPos + sz);
  ImGui::ItemSize(bb);
  if (!ImGui::ItemAdd(bb, gid)) return;
  draw_color_scale(window->DrawList, bb, colormap, lo, hi);
}

bool Heatmap(const char* id, const float* values, int rows, int cols, const HeatmapStyle& style) {
  ImGuiWindow* window = ImGui::GetCurrentWindow();
  if (window->SkipItems) return false;
  const ImGuiContext& g = *GImGui;
  const ImGuiID gid = window->GetID(id);
  if (values == nullptr || rows <= 0 || cols <= 0) {
    ImGui::TextDisabled("%s: no data (%d x %d) - pass a rows x cols float array", style.title ? style.title : id, rows,
                        cols);
    return false;
  }

  TexEntry& e = g_textures[gid];
  ImFont* font = ImGui::GetFont();
  const float label_size = std::round(ImGui::GetFontSize() * style.label_font_scale);
  const bool labels = style.show_axis_labels;
  if (labels) measure_labels(e, rows, cols, style, font, label_size);

  HeatmapLayoutInput in;
  in.origin = window->DC.CursorPos;
  in.width = style.size.x > 0 ? style.size.x : ImGui::GetContentRegionAvail().x;
  in.height = style.size.y > 0 ? style.size.y : 0.0f;
  in.rows = rows;
  in.cols = cols;
  in.square_cells = style.square_cells;
  in.title_h = style.title ? ImGui::GetTextLineHeight() : 0.0f;
  in.row_label_w = labels && style.row_labels ? e.row_label_w : 0.0f;
  in.col_label_h = labels && style.col_labels ? e.col_label_w : 0.0f;
  // The range drawn last frame (auto range) or the one asked for: labels like "-1e-06" need more room.
  const float lo = style.auto_range ? e.lo : style.vmin, hi = style.auto_range ? e.hi : style.vmax;
  in.scale_w = style.show_scale ? ColorScaleWidth(lo, hi) : 0.0f;
  in.gap = g.Style.ItemInnerSpacing.x;
  const HeatmapLayout L = heatmap_layout(in);

  const ImRect bb(in.origin, in.origin + L.size);
  ImGui::ItemSize(bb);
  if (!ImGui::ItemAdd(bb, gid)) return false;
  ++detail::mutable_frame_stats().heatmaps_drawn;

  bool hovered = false, held = false;
  const bool pressed = ImGui::ButtonBehavior(L.cells, gid, &hovered, &held);

  if (needs_upload(e, values, rows, cols, style)) upload(e, values, rows, cols, style);
  e.last_frame = g.FrameCount;

  ImDrawList* dl = window->DrawList;
  if (style.title) {
    const ImU32 col = style.selected ? detail::accent_color() : detail::text_color();
    ImGui::PushStyleColor(ImGuiCol_Text, col);
    // Centered over the cells when it fits there, else over the whole widget; wider than that, it
    // ends in "..." (the whole title is the export's file name and the map's tooltip context).
    const ImVec2 ts = ImGui::CalcTextSize(style.title);
    if (ts.x <= bb.GetWidth()) {
      const bool fits = ts.x <= L.cells.GetWidth();
      ImGui::RenderTextClipped(ImVec2(fits ? L.cells.Min.x : bb.Min.x, L.title.Min.y),
                               ImVec2(fits ? L.cells.Max.x : bb.Max.x, L.title.Max.y), style.title, nullptr, &ts,
                               ImVec2(0.5f, 0.0f));
    } else {
      ImGui::RenderTextEllipsis(dl, ImVec2(bb.Min.x, L.title.Min.y), ImVec2(bb.Max.x, L.title.Max.y), bb.Max.x,
                                bb.Max.x, style.title, nullptr, &ts);
    }
    ImGui::PopStyleColor();
  }

  dl->AddImage(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(e.tex)), L.cells.Min, L.cells.Max);
  if (style.selected)
    dl->AddRect(L.cells.Min - ImVec2(2, 2), L.cells.Max + ImVec2(2, 2), detail::accent_color(), 0.0f, 0, 2.0f);
  else
    dl->AddRect(L.cells.Min - ImVec2(1, 1), L.cells.Max + ImVec2(1, 1),
                hovered ? detail::text_color(0.6f) : ImGui::GetColorU32(ImGuiCol_Border));

  int hr = -1, hc = -1;
  if (hovered && !cell_at(L.cells, rows, cols, g.IO.MousePos, &hr, &hc)) hr = hc = -1;

  char buf[128];
  const ImU32 label_col = detail::text_color(0.75f), hot_col = detail::accent_color();
  if (in.row_label_w > 0) {
    const int stride = label_stride(rows, L.cells.GetHeight(), label_size);
    for (int r = 0; r < rows; ++r) {
      if (r % stride != 0 && r != hr) continue;
      if (r % stride == 0 && hr >= 0 && r != hr && std::abs(r - hr) * L.cell_h < label_size) continue;
      const char* t = detail::clip_label(style.row_labels[r], style.max_label_chars, buf, sizeof buf);
      const ImVec2 sz = font->CalcTextSizeA(label_size, FLT_MAX, 0.0f, t);
      const float y = L.cells.Min.y + (r + 0.5f) * L.cell_h - sz.y * 0.5f;
      dl->AddText(font, label_size, ImVec2(L.row_labels.Max.x - sz.x, y), r == hr ? hot_col : label_col, t);
    }
  }
  if (in.col_label_h > 0) {
    const int stride = label_stride(cols, L.cells.GetWidth(), label_size);
    for (int c = 0; c < cols; ++c) {
      if (c % stride != 0 && c != hc) continue;
      if (c % stride == 0 && hc >= 0 && c != hc && std::abs(c - hc) * L.cell_w < label_size) continue;
      const char* t = detail::clip_label(style.col_labels[c], style.max_label_chars, buf, sizeof buf);
      const float x = L.cells.Min.x + (c + 0.5f) * L.cell_w;
      detail::AddTextVertical(dl, font, label_size, ImVec2(x, L.col_labels.Min.y), c == hc ? hot_col : label_col, t);
    }
  }
  if (style.show_scale) draw_color_scale(dl, L.scale, style.colormap, e.lo, e.hi);

  if (hr >= 0) {
    const ImVec2 p0(L.cells.Min.x + hc * L.cell_w, L.cells.Min.y + hr * L.cell_h);
    dl->AddRect(p0, p0 + ImVec2(std::max(L.cell_w, 2.0f), std::max(L.cell_h, 2.0f)), IM_COL32(255, 255, 255, 230));
    char rbuf[24], cbuf[24];
    const char* rl = style.row_labels ? style.row_labels[hr] : (std::snprintf(rbuf, sizeof rbuf, "%d", hr), rbuf);
    const char* cl = style.col_labels ? style.col_labels[hc] : (std::snprintf(cbuf, sizeof cbuf, "%d", hc), cbuf);
    const float v = values[static_cast<size_t>(hr) * cols + hc];
    char text[512];
    std::snprintf(text, sizeof text, style.tooltip_format ? style.tooltip_format : "%s, %s: %.3f", rl, cl,
                  static_cast<double>(v));
    ImGui::BeginTooltip();
    if (style.title) ImGui::TextDisabled("%s", style.title);
    const ImVec2 sw = ImGui::GetCursorScreenPos();
    const float h = ImGui::GetTextLineHeight();
    const float t = e.hi > e.lo ? (v - e.lo) / (e.hi - e.lo) : 0.5f;
    ImGui::GetWindowDrawList()->AddRectFilled(sw + ImVec2(0, 2), sw + ImVec2(h - 4, h - 2),
                                              colormap_color(style.colormap, t));
    ImGui::Dummy(ImVec2(h - 2, h));
    ImGui::SameLine();
    ImGui::TextUnformatted(text);
    ImGui::TextDisabled("row %d, column %d  -  click to select, right-click to export", hr, hc);
    ImGui::EndTooltip();
  }

  if (ImGui::BeginPopupContextItem()) {
    if (ImGui::MenuItem("Export PNG"))
      request_panel_export(bb.Min - ImVec2(2, 2), bb.Max + ImVec2(2, 2),
                           timestamped_png_name("", style.title ? style.title : id));
    ImGui::TextDisabled("range %.4g .. %.4g (%s)", static_cast<double>(e.lo), static_cast<double>(e.hi),
                        style.auto_range ? "auto" : "fixed");
    ImGui::EndPopup();
  }
  return pressed;
}

int HeatmapGrid(const char* id, const float* const* maps, int count, int rows, int cols, const char* const* titles,
                const HeatmapStyle& style, int selected, float min_tile) {
  if (ImGui::GetCurrentWindow()->SkipItems || count <= 0) return -1;
  const ImGuiStyle& st = ImGui::GetStyle();
  ImGui::PushID(id);
  const float spacing = std::max(st.ItemSpacing.x, st.ItemSpacing.y);
  const bool shared_scale = style.show_scale && !style.auto_range;
  const float scale_w = shared_scale ? ColorScaleWidth(style.vmin, style.vmax) + spacing : 0.0f;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float avail_w = (style.size.x > 0 ? style.size.x : avail.x) - scale_w;
  const float extra_h = ImGui::GetTextLineHeight() + st.ItemInnerSpacing.x * 0.5f;
  const GridLayout grid =
      grid_layout(count, avail_w, style.size.y > 0 ? style.size.y : 0.0f, spacing, extra_h, min_tile);

  int clicked = -1;
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(spacing, spacing));
  ImGui::BeginGroup();
  char title[64];
  for (int i = 0; i < count; ++i) {
    if (i % grid.cols != 0) ImGui::SameLine(0.0f, spacing);
    HeatmapStyle s = style;
    if (titles && titles[i]) {
      s.title = titles[i];
    } else {
      std::snprintf(title, sizeof title, "head %d", i);
      s.title = title;
    }
    s.show_scale = false;
    // Tokens on a tile's axes wherever they fit: at least every other label readable on a tile big
    // enough to give them room (an enlarged head always has them).
    const float label_size = std::round(ImGui::GetFontSize() * style.label_font_scale);
    const float cell = (grid.tile_h - extra_h) / std::max(rows, cols);
    s.show_axis_labels = style.show_axis_labels && grid.tile_w >= 10.0f * label_size && cell * 2.0f >= label_size;
    s.size = ImVec2(grid.tile_w, grid.tile_h);
    s.selected = i == selected;
    ImGui::PushID(i);
    if (Heatmap("##map", maps[i], rows, cols, s)) clicked = i;
    ImGui::PopID();
  }
  ImGui::EndGroup();
  ImGui::PopStyleVar();
  if (shared_scale) {
    const float grid_h = ImGui::GetItemRectSize().y;
    ImGui::SameLine(0.0f, spacing);
    ImGui::BeginGroup();
    ImGui::Dummy(ImVec2(1, extra_h));
    // Below the title row's Dummy comes one item spacing: the scale is that much shorter, so the
    // group ends with the grid instead of overflowing the window (a scrollbar, a cut bottom label).
    ColorScale("##scale", style.colormap, style.vmin, style.vmax,
               ImVec2(ColorScaleWidth(style.vmin, style.vmax), std::max(grid_h - extra_h - st.ItemSpacing.y, 1.0f)));
    ImGui::EndGroup();
  }
  ImGui::PopID();
  return clicked;
}

namespace detail {

void collect_heatmap_textures(int max_idle_frames) {
  const int now = ImGui::GetFrameCount();
  for (auto it = g_textures.begin(); it != g_textures.end();) {
    if (now - it->second.last_frame > max_idle_frames) {
      if (it->second.tex) glDeleteTextures(1, &it->second.tex);
      it = g_textures.erase(it);
    } else {
      ++it;
    }
  }
}

void release_heatmap_textures() {
  for (auto& kv : g_textures)
    if (kv.second.tex) glDeleteTextures(1, &kv.second.tex);
  g_textures.clear();
}

int heatmap_texture_count() { return static_cast<int>(g_textures.size()); }

}  // namespace detail
}  // namespace headroom::widgets

#include "app/gui/theme.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <sys/stat.h>

namespace headroom::gui {
namespace {

const char* const kSansPath = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
const char* const kMonoPath = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf";
const char* const kBoldPath = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf";
const char* const kObliquePath = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Oblique.ttf";  // fonts-dejavu-extra

bool file_exists(const char* path) {
  struct stat st {};
  return ::stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

// Latin-1, Greek (sigma, lambda...), general punctuation (dashes, ellipsis, bullet), arrows and math
// operators: what attention labels and axis captions use; and the modifier letters, phonetic
// extensions and super/subscripts a lesson's typeset formulas use (d_p, h_k, K^T), the step dots, and
// the return and open-box symbols token labels use for newlines and spaces.
const ImWchar kGlyphRanges[] = {0x0020, 0x00FF, 0x02B0, 0x02FF, 0x0370, 0x03FF, 0x1D00, 0x1DBF, 0x2010,
                                0x205E, 0x2070, 0x209F, 0x2190, 0x21FF, 0x2200, 0x22FF, 0x23CE, 0x23CE,
                                0x2423, 0x2423, 0x25A0, 0x25FF, 0x2713, 0x2713, 0x2C7C, 0x2C7D, 0};

ImVec4 rgb(int r, int g, int b, float a = 1.0f) { return ImVec4(r / 255.f, g / 255.f, b / 255.f, a); }

void dark_colors(ImGuiStyle& s) {
  ImGui::StyleColorsDark(&s);
  ImVec4* c = s.Colors;
  c[ImGuiCol_WindowBg] = rgb(24, 26, 31);
  c[ImGuiCol_ChildBg] = rgb(24, 26, 31, 0.0f);
  c[ImGuiCol_PopupBg] = rgb(32, 35, 42, 0.97f);
  c[ImGuiCol_MenuBarBg] = rgb(32, 35, 42);
  c[ImGuiCol_Border] = rgb(70, 75, 88, 0.8f);
  c[ImGuiCol_FrameBg] = rgb(40, 44, 53);
  c[ImGuiCol_FrameBgHovered] = rgb(52, 58, 70);
  c[ImGuiCol_FrameBgActive] = rgb(60, 67, 82);
  c[ImGuiCol_TitleBg] = rgb(32, 35, 42);
  c[ImGuiCol_TitleBgActive] = rgb(40, 44, 53);
  c[ImGuiCol_Tab] = rgb(36, 40, 48);
  c[ImGuiCol_TabHovered] = rgb(66, 110, 170);
  c[ImGuiCol_TabActive] = rgb(52, 90, 145);
  c[ImGuiCol_Header] = rgb(52, 90, 145, 0.55f);
  c[ImGuiCol_HeaderHovered] = rgb(66, 110, 170, 0.8f);
  c[ImGuiCol_HeaderActive] = rgb(66, 110, 170);
  c[ImGuiCol_Button] = rgb(52, 90, 145, 0.6f);
  c[ImGuiCol_ButtonHovered] = rgb(66, 110, 170);
  c[ImGuiCol_ButtonActive] = rgb(80, 125, 190);
  c[ImGuiCol_CheckMark] = rgb(110, 170, 240);
  c[ImGuiCol_SliderGrab] = rgb(110, 170, 240);
  c[ImGuiCol_Separator] = rgb(70, 75, 88, 0.8f);
  c[ImGuiCol_Text] = rgb(226, 229, 235);
  c[ImGuiCol_TextDisabled] = rgb(140, 146, 160);
  c[ImGuiCol_PlotHistogram] = rgb(96, 165, 250);  // the widgets' accent (selection, bars)
  c[ImGuiCol_TableRowBgAlt] = rgb(255, 255, 255, 0.03f);
}

void high_contrast_colors(ImGuiStyle& s) {
  ImGui::StyleColorsDark(&s);
  ImVec4* c = s.Colors;
  c[ImGuiCol_WindowBg] = rgb(0, 0, 0);
  c[ImGuiCol_ChildBg] = rgb(0, 0, 0, 0.0f);
  c[ImGuiCol_PopupBg] = rgb(10, 10, 10);
  c[ImGuiCol_MenuBarBg] = rgb(20, 20, 20);
  c[ImGuiCol_Border] = rgb(255, 255, 255, 0.85f);
  c[ImGuiCol_FrameBg] = rgb(30, 30, 30);
  c[ImGuiCol_FrameBgHovered] = rgb(60, 60, 60);
  c[ImGuiCol_FrameBgActive] = rgb(80, 80, 80);
  c[ImGuiCol_Tab] = rgb(30, 30, 30);
  c[ImGuiCol_TabHovered] = rgb(255, 212, 0, 0.7f);
  // A dark gold under selected rows and the active tab: the grey of disabled text keeps 5:1 on it
  // (on (140, 115, 0) it had 2.7:1, a selected row's status colour less).
  c[ImGuiCol_TabActive] = rgb(90, 72, 0);
  c[ImGuiCol_Header] = rgb(90, 72, 0);
  c[ImGuiCol_HeaderHovered] = rgb(255, 212, 0, 0.7f);
  c[ImGuiCol_HeaderActive] = rgb(255, 212, 0);
  c[ImGuiCol_Button] = rgb(60, 60, 60);
  c[ImGuiCol_ButtonHovered] = rgb(140, 115, 0);
  c[ImGuiCol_ButtonActive] = rgb(255, 212, 0);
  c[ImGuiCol_CheckMark] = rgb(255, 212, 0);
  c[ImGuiCol_SliderGrab] = rgb(255, 212, 0);
  c[ImGuiCol_Separator] = rgb(255, 255, 255, 0.7f);
  c[ImGuiCol_Text] = rgb(255, 255, 255);
  c[ImGuiCol_TextDisabled] = rgb(200, 200, 200);
  c[ImGuiCol_PlotHistogram] = rgb(255, 212, 0);
}

}  // namespace

float presentation_scale(int window_height) {
  return std::clamp(kPresentationScale * static_cast<float>(window_height) / 1080.0f, 1.0f, 2.5f);
}

Fonts load_fonts(float pixel_scale, float lesson_px) {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  Fonts fonts;
  const float px = kBaseFontPx * pixel_scale;
  ImFontConfig cfg;
  cfg.OversampleH = 2;
  cfg.OversampleV = 1;
  if (file_exists(kSansPath)) {
    fonts.sans = io.Fonts->AddFontFromFileTTF(kSansPath, px, &cfg, kGlyphRanges);
  }
  if (fonts.sans == nullptr) {
    std::fprintf(stderr,
                 "headroom: warning: font %s not found; using ImGui's built-in font (install fonts-dejavu-core for "
                 "readable text)\n",
                 kSansPath);
    ImFontConfig def;
    def.SizePixels = 13.0f * pixel_scale;
    fonts.sans = io.Fonts->AddFontDefault(&def);
  }
  if (file_exists(kMonoPath)) fonts.mono = io.Fonts->AddFontFromFileTTF(kMonoPath, px, &cfg, kGlyphRanges);
  if (lesson_px > 0.0f) {
    ImFontConfig big;  // large type needs no oversampling, and the atlas stays small
    big.OversampleH = 1;
    big.OversampleV = 1;
    const auto add = [&](const char* path, float size, const char* package) -> ImFont* {
      if (file_exists(path)) return io.Fonts->AddFontFromFileTTF(path, size, &big, kGlyphRanges);
      std::fprintf(stderr, "headroom: warning: font %s not found (install %s); lessons use the regular face\n", path,
                   package);
      return nullptr;
    };
    fonts.lesson_body = add(kSansPath, lesson_px, "fonts-dejavu-core");
    fonts.lesson_bold = add(kBoldPath, lesson_px, "fonts-dejavu-core");
    fonts.lesson_italic = add(kObliquePath, lesson_px, "fonts-dejavu-extra");
    fonts.lesson_title = add(kBoldPath, lesson_px * 1.2f, "fonts-dejavu-core");
  }
  io.FontDefault = fonts.sans;
  return fonts;
}

void apply_theme(bool presentation, float scale) {
  ImGuiStyle style;
  if (presentation) high_contrast_colors(style);
  else dark_colors(style);
  style.WindowRounding = 0.0f;
  style.ChildRounding = 4.0f;
  style.FrameRounding = 4.0f;
  style.PopupRounding = 4.0f;
  style.GrabRounding = 4.0f;
  style.TabRounding = 4.0f;
  style.ScrollbarRounding = 6.0f;
  style.WindowPadding = ImVec2(10, 8);
  style.FramePadding = ImVec2(8, 4);
  style.ItemSpacing = ImVec2(8, 6);
  style.ItemInnerSpacing = ImVec2(6, 4);
  style.ScrollbarSize = 14.0f;
  style.WindowBorderSize = 0.0f;
  style.FrameBorderSize = presentation ? 1.0f : 0.0f;
  style.ScaleAllSizes(scale);
  ImGui::GetStyle() = style;
}

}  // namespace headroom::gui

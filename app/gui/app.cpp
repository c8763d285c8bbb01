#include "app/gui/app.h"

// GL declarations first (GLFW must not pull in its own); ImGui's backends keep their loader private.
#include "widgets/gl.h"
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "app/gui/app_state.h"
#include "app/gui/bench.h"
#include "core/io/atomic_file.h"
#include "core/io/blocking_io.h"
#include "app/gui/settings.h"
#include "app/gui/theme.h"
#include "app/gui/views/view_registry.h"
#include "widgets/png_export.h"

namespace headroom::gui {
namespace {

std::string g_glfw_error;

void on_glfw_error(int code, const char* description) {
  g_glfw_error = description ? description : "unknown GLFW error";
  (void)code;
}

double now_seconds() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

constexpr double kMaxSettleSeconds = 30.0;  // automation waits at most this long for settled()

}  // namespace

App::App(GuiOptions options) : opts_(std::move(options)), presentation_(opts_.presentation) {
  context_.options = &opts_;
  context_.config_dir = config_dir();
}

App::~App() { shutdown(); }

int App::prepare() {
  views_ = make_views(context_);
  if (views_.empty()) {
    std::cerr << "headroom: no views are registered - add one in app/gui/views/view_registry.cpp\n";
    return kExitRuntime;
  }
  std::string error;
  std::string wanted;
  if (!opts_.scene_path.empty()) {
    if (!load_scene_file(opts_.scene_path, &scene_, &error)) {
      std::cerr << "headroom: " << error << "\n";
      return kExitUsage;
    }
    wanted = scene_.view;
    for (auto& v : views_) {
      if (!v->load_scene(scene_.data, &error)) {
        std::cerr << "headroom: scene file '" << opts_.scene_path << "': " << error << "\n";
        return kExitUsage;
      }
    }
    if (!wanted.empty() && find_view(views_, wanted) < 0) {
      std::cerr << "headroom: scene file '" << opts_.scene_path << "' asks for view '" << wanted
                << "', which does not exist; valid views: " << view_names_list(views_) << "\n";
      return kExitUsage;
    }
  }
  if (!opts_.view.empty()) {
    if (find_view(views_, opts_.view) < 0) {
      std::cerr << "headroom: unknown view '" << opts_.view << "'; valid views: " << view_names_list(views_)
                << " (e.g. --view \"" << views_[0]->name() << "\")\n";
      return kExitUsage;
    }
    wanted = opts_.view;
  }
  if (!opts_.automation()) {
    Settings settings;
    if (!load_settings(context_.config_dir, &settings, &error)) std::cerr << "headroom: warning: " << error << "\n";
    if (wanted.empty()) wanted = settings.last_view;
    if (!opts_.size_given && settings.window_width >= kMinWindowSide && settings.window_height >= kMinWindowSide) {
      opts_.width = std::min(settings.window_width, kMaxWindowSide);
      opts_.height = std::min(settings.window_height, kMaxWindowSide);
    }
  }
  const int index = wanted.empty() ? 0 : find_view(views_, wanted);
  current_ = std::max(0, index);
  pending_select_ = current_;
  return -1;
}

bool App::open_window(std::string* error) {
  glfwSetErrorCallback(on_glfw_error);
  if (!glfwInit()) {
    *error = g_glfw_error.empty() ? "glfwInit failed" : g_glfw_error;
    return false;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  // Interactive windows grow with the monitor's scale; automation keeps the exact --size.
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, opts_.automation() ? GLFW_FALSE : GLFW_TRUE);
  window_ = glfwCreateWindow(opts_.width, opts_.height, "Headroom", nullptr, nullptr);
  if (window_ == nullptr) {
    *error = g_glfw_error.empty() ? "glfwCreateWindow failed" : g_glfw_error;
    return false;
  }
  glfwMakeContextCurrent(window_);
  glfwSwapInterval(opts_.bench_frames > 0 ? 0 : 1);
  glfwSetWindowUserPointer(window_, this);
  glfwSetWindowContentScaleCallback(window_, [](GLFWwindow* w, float, float) {
    // Moved to a monitor with another scale: rebuild fonts at the new pixel size.
    static_cast<App*>(glfwGetWindowUserPointer(w))->fonts_dirty_ = true;
  });
  // Installed before ImGui's backend, which chains to it. Shortcuts are taken from key
  // events, not from polled key state: ImGui 1.86 misses a press and release that both
  // happen between two frames (as with xdotool or a fast tap).
  glfwSetKeyCallback(window_, [](GLFWwindow* w, int key, int, int action, int mods) {
    if (action != GLFW_PRESS) return;
    App* app = static_cast<App*>(glfwGetWindowUserPointer(w));
    const bool ctrl = mods & GLFW_MOD_CONTROL, shift = mods & GLFW_MOD_SHIFT;
    if (key == GLFW_KEY_F11) app->shortcut_fullscreen_ = true;
    if (ctrl && key == GLFW_KEY_Q) app->quit_ = true;
    if (ctrl && shift && key == GLFW_KEY_S) app->shortcut_screenshot_ = true;
  });
  return true;
}

void App::setup_imgui() {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
  if (opts_.automation()) {
    io.IniFilename = nullptr;  // hermetic: neither read nor write imgui.ini
  } else {
    std::string error;
    // ImGui's own writer truncates the file in place; a crash or a full disk mid-write would lose
    // the layout. Headroom reads it here and writes it whole-or-nothing (save_imgui_ini).
    io.IniFilename = nullptr;
    if (ensure_dir(context_.config_dir, &error)) {
      ini_path_ = context_.config_dir + "/imgui.ini";
      ImGui::LoadIniSettingsFromDisk(ini_path_.c_str());
    } else {
      io.IniFilename = nullptr;
      std::cerr << "headroom: warning: " << error << "; window layout will not be remembered\n";
    }
  }
  ImGui_ImplGlfw_InitForOpenGL(window_, true);
  ImGui_ImplOpenGL3_Init("#version 330");
  imgui_ready_ = true;
  rebuild_fonts();
}

void App::rebuild_fonts() {
  float xs = 1.0f, ys = 1.0f;
  glfwGetWindowContentScale(window_, &xs, &ys);
  content_scale_ = std::max(1.0f, std::max(xs, ys));
  int ww = 0, wh = 0, fw = 0, fh = 0;
  glfwGetWindowSize(window_, &ww, &wh);
  glfwGetFramebufferSize(window_, &fw, &fh);
  // On macOS-style HiDPI the framebuffer is larger than the window: rasterize fonts at
  // framebuffer resolution but draw them at window (ImGui coordinate) size.
  const float fb_ratio = ww > 0 ? std::max(1.0f, static_cast<float>(fw) / ww) : 1.0f;
  const float pres = presentation_ ? kPresentationScale : 1.0f;
  const Fonts fonts = load_fonts(content_scale_ * pres);
  ImGui::GetIO().FontGlobalScale = 1.0f / fb_ratio;
  context_.mono_font = fonts.mono;
  context_.ui_scale = content_scale_ / fb_ratio * pres;
  apply_theme(presentation_, context_.ui_scale);
  ImGui_ImplOpenGL3_DestroyFontsTexture();
  ImGui_ImplOpenGL3_CreateFontsTexture();
  fonts_dirty_ = false;
}

void App::save_imgui_ini(bool force) {
  ImGuiIO& io = ImGui::GetIO();
  if (ini_path_.empty() || !(force || io.WantSaveIniSettings)) return;
  size_t size = 0;
  const char* text = ImGui::SaveIniSettingsToMemory(&size);
  std::string error;
  if (!core::write_file_atomically(ini_path_, std::string_view(text, size), &error))
    std::cerr << "headroom: warning: " << error << "; window layout not saved\n";
  io.WantSaveIniSettings = false;
}

void App::shutdown() {
  if (imgui_ready_) {
    save_imgui_ini(true);
    widgets::Shutdown();
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    imgui_ready_ = false;
  }
  views_.clear();
  if (window_) {
    glfwDestroyWindow(window_);
    window_ = nullptr;
    glfwTerminate();
  }
}

int App::run() {
  if (const int code = prepare(); code >= 0) return code;
  std::string error;
  if (!open_window(&error)) {
    std::cerr << "headroom: cannot open a window (no display?): " << error
              << " \xE2\x80\x94 run under a desktop session or xvfb-run\n";
    shutdown();
    return kExitRuntime;
  }
  setup_imgui();
  automation_started_ = now_seconds();
  while (!quit_ && !glfwWindowShouldClose(window_)) frame();
  const int code = finish();
  shutdown();
  return code;
}

void App::frame() {
  const double t0 = now_seconds();
  if (fonts_dirty_) rebuild_fonts();
  glfwPollEvents();
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  hide_idle_cursor_in_automation();
  ImGui::NewFrame();
  widgets::NewFrame();

  handle_shortcuts();
  draw_ui();
  ImGui::Render();
  save_imgui_ini(false);
  last_stats_ = widgets::frame_stats();

  int fw = 0, fh = 0;
  glfwGetFramebufferSize(window_, &fw, &fh);
  glViewport(0, 0, fw, fh);
  const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
  glClearColor(bg.x, bg.y, bg.z, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  ++frames_;
  after_render();
  glfwSwapBuffers(window_);

  const double ms = (now_seconds() - t0) * 1000.0;
  // Exactly --bench-frames samples, from the first frame the view lets the sampling start.
  if (opts_.bench_frames > 0 && frames_ > kBenchWarmupFrames && !bench_sampling_)
    bench_sampling_ =
        views_[current_]->bench_frames_may_start() || now_seconds() - automation_started_ > kMaxSettleSeconds;
  if (bench_sampling_ && static_cast<int>(frame_ms_.size()) < opts_.bench_frames) frame_ms_.push_back(ms);
}

void App::hide_idle_cursor_in_automation() {
  // Under Xvfb the pointer rests in the middle of the screen and would hover a widget in
  // every screenshot. Until something (e.g. xdotool) actually moves it, pretend it is away.
  if (!opts_.automation() || cursor_moved_) return;
  double x = 0.0, y = 0.0;
  glfwGetCursorPos(window_, &x, &y);
  if (frames_ == 0) {
    initial_cursor_[0] = x;
    initial_cursor_[1] = y;
  } else if (x != initial_cursor_[0] || y != initial_cursor_[1]) {
    cursor_moved_ = true;
    return;
  }
  ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
}

bool App::automation_done() const {
  if (!opts_.automation()) return false;
  const int target = opts_.frames_to_run() + (opts_.bench_frames > 0 ? kBenchWarmupFrames : 0);
  if (frames_ < target) return false;
  if (opts_.bench_frames > 0 && static_cast<int>(frame_ms_.size()) < opts_.bench_frames &&
      now_seconds() - automation_started_ <= kMaxSettleSeconds)
    return false;
  if (views_[current_]->settled()) return true;
  if (now_seconds() - automation_started_ > kMaxSettleSeconds) {
    std::cerr << "headroom: warning: view '" << views_[current_]->name() << "' did not settle within "
              << kMaxSettleSeconds << " s; capturing anyway\n";
    return true;
  }
  return false;
}

void App::after_render() {
  glReadBuffer(GL_BACK);
  for (const widgets::ExportResult& r : widgets::process_panel_exports(ImGui::GetIO().DisplayFramebufferScale)) {
    if (r.ok) set_status("Exported " + r.path);
    else set_status("Export failed: " + r.error, true);
  }
  if (screenshot_countdown_ == 0) save_screenshot(screenshot_request_, true);
  if (screenshot_countdown_ >= 0) --screenshot_countdown_;

  if (automation_done()) {
    if (!opts_.screenshot_path.empty()) {
      int fw = 0, fh = 0;
      glfwGetFramebufferSize(window_, &fw, &fh);
      std::string error;
      if (widgets::save_framebuffer_png(opts_.screenshot_path, 0, 0, fw, fh, &error)) {
        screenshot_written_ = opts_.screenshot_path;
      } else {
        std::cerr << "headroom: cannot save --screenshot: " << error << "\n";
        exit_code_ = kExitRuntime;
      }
    }
    quit_ = true;
  }
}

void App::save_screenshot(const std::string& path, bool fall_back_to_config_dir) {
  int fw = 0, fh = 0;
  glfwGetFramebufferSize(window_, &fw, &fh);
  std::string error;
  if (widgets::save_framebuffer_png(path, 0, 0, fw, fh, &error)) {
    set_status("Saved screenshot " + path);
    return;
  }
  if (fall_back_to_config_dir && path.find('/') == std::string::npos && !context_.config_dir.empty()) {
    std::string dir_error;
    const std::string alt = context_.config_dir + "/" + path;
    if (ensure_dir(context_.config_dir, &dir_error) && widgets::save_framebuffer_png(alt, 0, 0, fw, fh, &error)) {
      set_status("Saved screenshot " + alt + " (current directory is not writable)");
      return;
    }
  }
  set_status("Screenshot failed: " + error, true);
}

void App::set_status(const std::string& message, bool error) {
  status_ = message;
  status_error_ = error;
  status_time_ = ImGui::GetTime();
  if (error) std::cerr << "headroom: " << message << "\n";
}

void App::handle_shortcuts() {
  if (shortcut_fullscreen_) toggle_fullscreen();
  if (shortcut_screenshot_) {
    screenshot_request_ = widgets::timestamped_png_name("", "screenshot");
    screenshot_countdown_ = 0;
  }
  shortcut_fullscreen_ = shortcut_screenshot_ = false;
}

void App::toggle_fullscreen() {
  if (!fullscreen_) {
    GLFWmonitor* monitor = glfwGetPrimaryMonitor();
    const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr;
    if (!mode) {
      set_status("Fullscreen unavailable: no monitor reported by the display", true);
      return;
    }
    glfwGetWindowPos(window_, &windowed_[0], &windowed_[1]);
    glfwGetWindowSize(window_, &windowed_[2], &windowed_[3]);
    glfwSetWindowMonitor(window_, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
    fullscreen_ = true;
  } else {
    glfwSetWindowMonitor(window_, nullptr, windowed_[0], windowed_[1], windowed_[2], windowed_[3], 0);
    fullscreen_ = false;
  }
}

void App::draw_ui() {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_MenuBar |
                                 ImGuiWindowFlags_NoBringToFrontOnFocus |
                                 // glClear already paints WindowBg: drawing it again is one more
                                 // full-window fill, a third of a frame on a software rasterizer.
                                 ImGuiWindowFlags_NoBackground;
  ImGui::Begin("Headroom##main", nullptr, flags);
  draw_menu_bar();
  const float status_h = ImGui::GetFrameHeightWithSpacing();
  if (ImGui::BeginTabBar("##views", ImGuiTabBarFlags_FittingPolicyScroll)) {
    for (size_t i = 0; i < views_.size(); ++i) {
      const ImGuiTabItemFlags tf = pending_select_ == static_cast<int>(i) ? ImGuiTabItemFlags_SetSelected : 0;
      if (ImGui::BeginTabItem(views_[i]->name(), nullptr, tf)) {
        current_ = static_cast<int>(i);
        ImGui::BeginChild("##view", ImVec2(0, -status_h), false);
        views_[i]->draw();
        ImGui::EndChild();
        ImGui::EndTabItem();
      }
    }
    ImGui::EndTabBar();
  }
  pending_select_ = -1;
  if (!context_.select_view.empty()) {  // a view asked for another tab (e.g. "Open in lab")
    const int index = find_view(views_, context_.select_view);
    if (index >= 0) pending_select_ = index;
    context_.select_view.clear();
  }
  draw_status_bar();
  draw_export_dialog();
  ImGui::End();
  if (show_metrics_) ImGui::ShowMetricsWindow(&show_metrics_);
}

void App::draw_menu_bar() {
  if (!ImGui::BeginMenuBar()) return;
  if (ImGui::BeginMenu("File")) {
    if (ImGui::MenuItem("Open experiments DB\xE2\x80\xA6")) {  // the explorer's path field, focused
      context_.request_open_db = true;
      context_.select_view = "Explorer";
    }
    if (ImGui::MenuItem("Export screenshot\xE2\x80\xA6", "Ctrl+Shift+S")) {
      export_path_ = widgets::timestamped_png_name("", "screenshot");
      open_export_dialog_ = true;
    }
    ImGui::Separator();
    if (ImGui::MenuItem("Quit", "Ctrl+Q")) quit_ = true;
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("View")) {
    for (size_t i = 0; i < views_.size(); ++i)
      if (ImGui::MenuItem(views_[i]->name(), nullptr, current_ == static_cast<int>(i)))
        pending_select_ = static_cast<int>(i);
    ImGui::Separator();
    if (ImGui::MenuItem("Presentation mode", nullptr, presentation_)) {
      presentation_ = !presentation_;
      fonts_dirty_ = true;
    }
    if (ImGui::MenuItem("Fullscreen", "F11", fullscreen_)) toggle_fullscreen();
    ImGui::MenuItem("Dear ImGui metrics", nullptr, &show_metrics_);
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Help")) {
    if (ImGui::MenuItem("About Headroom")) pending_select_ = std::max(0, find_view(views_, "About"));
    ImGui::EndMenu();
  }
  ImGui::EndMenuBar();
}

void App::draw_status_bar() {
  ImGui::Separator();
  const double age = ImGui::GetTime() - status_time_;
  if (!status_.empty() && (status_error_ || age < 12.0)) {
    if (status_error_) ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "%s", status_.c_str());
    else ImGui::TextUnformatted(status_.c_str());
  } else {
    ImGui::TextDisabled("Ready");
  }
  char right[160];
  std::snprintf(right, sizeof right, "%d maps \xC2\xB7 %d plots \xC2\xB7 %.0f FPS", last_stats_.heatmaps_drawn,
                last_stats_.plots_drawn, static_cast<double>(ImGui::GetIO().Framerate));
  const float w = ImGui::CalcTextSize(right).x;
  ImGui::SameLine(std::max(ImGui::GetCursorPosX() + 20.0f, ImGui::GetWindowContentRegionMax().x - w));
  ImGui::TextDisabled("%s", right);
}

void App::draw_export_dialog() {
  if (open_export_dialog_) {
    ImGui::OpenPopup("Export screenshot");
    open_export_dialog_ = false;
  }
  if (!ImGui::BeginPopupModal("Export screenshot", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
  ImGui::TextUnformatted("Save the whole window as a PNG file:");
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 30);
  const bool enter = ImGui::InputText("##path", &export_path_, ImGuiInputTextFlags_EnterReturnsTrue);
  if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere(-1);
  if (ImGui::Button("Save") || enter) {
    screenshot_request_ = export_path_;
    screenshot_countdown_ = 2;  // let the dialog disappear first
    ImGui::CloseCurrentPopup();
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false)) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}

int App::finish() {
  int code = exit_code_;
  const View& shown = *views_[current_];
  if (opts_.bench_frames > 0) {
    nlohmann::json extra = nlohmann::json::object();
    for (const auto& v : views_) {
      const nlohmann::json m = v->bench_metrics();
      if (m.is_object()) extra.update(m);
    }
    std::cout << bench_json(compute_bench_stats(frame_ms_), extra).dump() << std::endl;
  }
  if (!opts_.state_out.empty()) {
    AppStateInputs in;
    in.view = shown.name();
    glfwGetWindowSize(window_, &in.window_width, &in.window_height);
    glfwGetFramebufferSize(window_, &in.framebuffer_width, &in.framebuffer_height);
    in.frames = frames_;
    in.heatmaps_drawn = last_stats_.heatmaps_drawn;
    in.heatmap_uploads = last_stats_.heatmap_uploads;
    in.plots_drawn = last_stats_.plots_drawn;
    in.blocking_io_on_ui_thread = io::blocking_calls_on_ui_thread();
    in.presentation = presentation_;
    for (const auto& v : views_) in.views.push_back(v->name());
    in.screenshot = screenshot_written_;
    std::vector<nlohmann::json> states;
    for (const auto& v : views_) states.push_back(v->state());
    std::string error;
    if (!write_json_file(opts_.state_out, build_app_state(in, states), &error)) {
      std::cerr << "headroom: cannot write --state-out: " << error << "\n";
      code = kExitRuntime;
    }
  }
  if (!opts_.automation()) {
    Settings s;
    s.last_view = shown.name();
    if (fullscreen_) {
      s.window_width = windowed_[2];
      s.window_height = windowed_[3];
    } else {
      glfwGetWindowSize(window_, &s.window_width, &s.window_height);
    }
    std::string error;
    if (!save_settings(context_.config_dir, s, &error)) std::cerr << "headroom: warning: " << error << "\n";
  }
  return code;
}

}  // namespace headroom::gui

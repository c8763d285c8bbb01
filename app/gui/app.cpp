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
#include <thread>
#include <utility>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "app/gui/app_state.h"
#include "app/gui/bench.h"
#include "app/gui/explorer/data_paths.h"
#include "app/gui/frame_pacing.h"
#include "app/gui/mailbox.h"
#include "core/io/atomic_file.h"
#include "core/io/blocking_io.h"
#include "core/io/install_paths.h"
#include "app/gui/settings.h"
#include "app/gui/theme.h"
#include "app/gui/ui_util.h"
#include "app/gui/views/view_registry.h"
#include "widgets/png_export.h"
#include "widgets/text_wrap.h"

namespace headroom::gui {
namespace {

std::string g_glfw_error;

// SIGTERM / SIGINT (a terminal's Ctrl+C, a session manager, a soak script) close the window as if
// by its close button: settings are saved and --bench-frames prints what it measured so far.
volatile std::sig_atomic_t g_stop_signal = 0;

void on_stop_signal(int signal) { g_stop_signal = signal; }

// SIGUSR1 asks for --state-out now, window open: a test polls what a lesson or the lab settled on
// instead of guessing how long a loaded machine takes.
volatile std::sig_atomic_t g_state_requested = 0;

void on_state_signal(int) { g_state_requested = 1; }

void close_on_stop_signals() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
  struct sigaction state {};
  state.sa_handler = on_state_signal;
  sigemptyset(&state.sa_mask);
  sigaction(SIGUSR1, &state, nullptr);
}

void on_glfw_error(int code, const char* description) {
  g_glfw_error = description ? description : "unknown GLFW error";
  (void)code;
}

double now_seconds() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

// Automation (--screenshot, --handout) waits at most this long for settled(). The lab's engine
// runs niced below everything else, so on a loaded machine (ctest -j2 beside a CPU-bound test) a
// lesson step that trains got a fraction of a core and missed 30 s, which it makes in ~10 alone.
constexpr double kMaxSettleSeconds = 120.0;
constexpr double kMinFrameSeconds = 1.0 / 60;  // the frame cap without a vsync (App::frame)

}  // namespace

App::App(GuiOptions options) : opts_(std::move(options)), presentation_(opts_.presentation) {
  context_.options = &opts_;
  context_.config_dir = config_dir();
  if (!opts_.model_dir.empty()) {  // the lab opens it; a missing or bad directory is said there
    context_.open_model_dir = opts_.model_dir;
    if (opts_.view.empty()) context_.select_view = "Lab";
  }
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
  if (!opts_.lesson_path.empty()) {
    if (!open_lesson(opts_.lesson_path, opts_.lesson_step - 1, &error)) {
      std::cerr << "headroom: " << error << "\n";
      return kExitUsage;
    }
    if (!opts_.handout_dir.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(opts_.handout_dir, ec);
      if (ec) {
        std::cerr << "headroom: cannot create the handout folder '" << opts_.handout_dir << "': " << ec.message()
                  << "\n";
        return kExitRuntime;
      }
    }
    if (opts_.lesson_step > lesson_.player().count()) {
      std::cerr << "headroom: --lesson-step " << opts_.lesson_step << ": " << opts_.lesson_path << " has "
                << lesson_.player().count() << " steps; use 1.." << lesson_.player().count() << "\n";
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
    App* app = static_cast<App*>(glfwGetWindowUserPointer(w));
    app->key_event_ = true;  // input, however short: the window draws at full rate for a while
    if (action != GLFW_PRESS) return;
    const bool ctrl = mods & GLFW_MOD_CONTROL, shift = mods & GLFW_MOD_SHIFT;
    if (key == GLFW_KEY_F11) app->shortcut_fullscreen_ = true;
    if (ctrl && key == GLFW_KEY_Q) app->quit_ = true;
    if (ctrl && shift && key == GLFW_KEY_S) app->shortcut_screenshot_ = true;
    if (!ctrl && app->lesson_.active()) app->lesson_.key(key);
  });
  // A background thread's news wakes a window that waits for events (frame_pacing.h).
  g_ui_waker.store(+[] { glfwPostEmptyEvent(); });
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
  // Presentation type (a lesson's, or presentation mode) follows the window's height, so a 1024x768
  // projector still fits a lesson's panel and the lab's maps.
  const float scale = lesson_.active() || presentation_ ? presentation_scale(wh) : 0.0f;
  const float pres = scale > 0.0f ? scale : 1.0f;
  const float lesson_px = lesson_.active() ? kBaseFontPx * content_scale_ * pres * 1.2f : 0.0f;
  const Fonts fonts = load_fonts(content_scale_ * pres, lesson_px);
  presentation_font_scale_ = scale;
  lesson_fonts_ = {fonts.lesson_body, fonts.lesson_bold, fonts.lesson_italic, fonts.lesson_title};
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
  views_.clear();  // their threads, the only publishers, are joined here
  g_ui_waker.store(nullptr);
  if (window_) {
    glfwDestroyWindow(window_);
    window_ = nullptr;
    glfwTerminate();
  }
}

int App::run() {
  // First: a SIGUSR1 (state wanted) or SIGTERM that comes while the window opens is not fatal.
  close_on_stop_signals();
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
  last_input_at_ = automation_started_;  // the first second draws at full rate: layouts settle
  while (!quit_ && !glfwWindowShouldClose(window_) && g_stop_signal == 0) frame();
  if (g_stop_signal != 0)
    std::cerr << "headroom: " << (g_stop_signal == SIGINT ? "SIGINT" : "SIGTERM") << " received; closed cleanly\n";
  const int code = finish();
  shutdown();
  return code;
}

void App::frame() {
  const double t0 = now_seconds();
  if (fonts_dirty_) rebuild_fonts();
  // Idle: nothing changed in the last second and nothing is on its way, so wait for input or a
  // background thread's wake-up instead of drawing the same frame again.
  if (idle_) glfwWaitEventsTimeout(kIdleWaitSeconds);
  else glfwPollEvents();
  frame_rate_.frame(t0, idle_);
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  hide_idle_cursor_in_automation();
  ImGui::NewFrame();
  widgets::NewFrame();
  if (input_this_frame()) last_input_at_ = t0;

  handle_shortcuts();
  if (lesson_.active() || presentation_) {
    // The window was resized: presentation type follows its height.
    int ww = 0, wh = 0;
    glfwGetWindowSize(window_, &ww, &wh);
    if (std::abs(presentation_scale(wh) - presentation_font_scale_) > 0.02f) fonts_dirty_ = true;
  }
  if (lesson_.active()) {
    const double now = now_seconds();
    lesson_.handle_keys(now, ImGui::GetIO().WantTextInput);
    apply_lesson_step(now);
    run_lesson_animations(now);
  }
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
  if (opts_.bench_frames > 0 && lesson_.active()) bench_lesson_frame(ms);
  // Exactly --bench-frames samples, from the first frame the view lets the sampling start.
  if (opts_.bench_frames > 0 && frames_ > kBenchWarmupFrames && !bench_sampling_)
    bench_sampling_ =
        views_[current_]->bench_frames_may_start() || now_seconds() - automation_started_ > kMaxSettleSeconds;
  if (bench_sampling_ && static_cast<int>(frame_ms_.size()) < opts_.bench_frames) frame_ms_.push_back(ms);
  PacingInputs pace;
  pace.automation = opts_.automation();
  pace.lesson = lesson_.active();
  pace.view_busy = views_[current_]->busy() || screenshot_countdown_ >= 0 || fonts_dirty_;
  pace.text_input = ImGui::GetIO().WantTextInput;
  pace.since_input_s = now_seconds() - last_input_at_;
  idle_ = !draw_at_full_rate(pace);
  // Without a vsync (Xvfb's software renderer ignores the swap interval) the loop would draw flat
  // out and take the cores from the lab's engine, which runs niced below it: on a loaded machine a
  // lesson step that trains then took minutes. At most ~60 frames a second, except while
  // --bench-frames measures how fast frames can be.
  if (opts_.bench_frames == 0) {
    const double left = kMinFrameSeconds - (now_seconds() - t0);
    if (left > 0) std::this_thread::sleep_for(std::chrono::duration<double>(left));
  }
}

bool App::input_this_frame() {
  const ImGuiIO& io = ImGui::GetIO();
  bool input = std::exchange(key_event_, false) || io.MouseDelta.x != 0.0f || io.MouseDelta.y != 0.0f ||
               io.MouseWheel != 0.0f || io.MouseWheelH != 0.0f || ImGui::IsAnyMouseDown() ||
               io.InputQueueCharacters.Size > 0 || io.DisplaySize.x != last_display_size_[0] ||
               io.DisplaySize.y != last_display_size_[1];
  for (int i = 0; i < IM_ARRAYSIZE(io.MouseReleased) && !input; ++i) input = io.MouseReleased[i];
  last_display_size_[0] = io.DisplaySize.x;
  last_display_size_[1] = io.DisplaySize.y;
  return input;
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
  if (g_state_requested != 0) {  // SIGUSR1: the state of the frame just drawn
    g_state_requested = 0;
    if (!opts_.state_out.empty()) write_state_out();
  }

  if (!opts_.handout_dir.empty()) {
    handout_after_render();
    return;
  }
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
  if (lesson_.active()) {
    // The step's view only, beside the step's text: no tab bar (the lesson chooses the view).
    ImGui::BeginChild("##lesson", ImVec2(0, -status_h), false);
    lesson_.draw(lesson_fonts_, now_seconds(), opts_.handout_dir.empty(), [this] { views_[current_]->draw(); });
    ImGui::EndChild();
    ++lesson_step_frames_;
  } else if (ImGui::BeginTabBar("##views", ImGuiTabBarFlags_FittingPolicyScroll)) {
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
    if (ImGui::MenuItem("Open model\xE2\x80\xA6")) {  // the lab's model-directory field, focused
      context_.request_open_model = true;
      context_.select_view = "Lab";
    }
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("A Hugging Face GPT-2, BERT or Llama-style directory: its heads' maps and ranks in the lab");
    const bool shipped = !explorer::results_db_path().empty();
    if (ImGui::MenuItem("Open the papers' results", nullptr, false, shipped)) {
      context_.request_open_path = explorer::results_db_path();
      context_.select_view = "Explorer";
    }
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip(shipped ? "The suites' full-scale runs shipped with Headroom (assets/results), read-only"
                                : "This installation has no results database (share/headroom/results)");
    const auto& paper = explorer::paper_results();
    if (ImGui::BeginMenu("Open paper-scale results", !paper.empty())) {
      for (const auto& r : paper) {
        if (ImGui::MenuItem(r.suite.c_str())) {
          context_.request_open_path = r.path;
          context_.select_view = "Explorer";
        }
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip("Trained on a GPU at the suite's paper scale; read-only\n%s", r.path.c_str());
      }
      ImGui::EndMenu();
    }
    if (paper.empty() && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))  // open, it would cover its items
      ImGui::SetTooltip("This installation has no paper-scale results (share/headroom/results/paper)");
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
  draw_lessons_menu();
  if (ImGui::BeginMenu("Help")) {
    if (ImGui::MenuItem("About Headroom")) pending_select_ = std::max(0, find_view(views_, "About"));
    ImGui::EndMenu();
  }
  ImGui::EndMenuBar();
}

void App::draw_status_bar() {
  ImGui::Separator();
  // What the frame drew: maps and plots, and the lab's lines or neuron cells where it drew those.
  // Measured first: the message keeps to the room left of it, cut with "…" (whole in a tooltip).
  char extra[64] = "";
  if (last_stats_.attention_lines_drawn > 0)
    std::snprintf(extra, sizeof extra, "%d lines \xC2\xB7 ", last_stats_.attention_lines_drawn);
  else if (last_stats_.neuron_cells_drawn > 0)
    std::snprintf(extra, sizeof extra, "%d neuron cells \xC2\xB7 ", last_stats_.neuron_cells_drawn);
  char right[200];
  char rate[32] = "idle";  // waiting for input (frame_pacing.h): the frame rate says nothing then
  if (!idle_ && frame_rate_.fps() > 0.0) std::snprintf(rate, sizeof rate, "%.0f FPS", frame_rate_.fps());
  std::snprintf(right, sizeof right, "%s%d maps \xC2\xB7 %d plots \xC2\xB7 %s", extra, last_stats_.heatmaps_drawn,
                last_stats_.plots_drawn, rate);
  const float w = ImGui::CalcTextSize(right).x;
  const double age = ImGui::GetTime() - status_time_;
  if (!status_.empty() && (status_error_ || age < 12.0)) {
    const float room = std::max(60.0f, ImGui::GetWindowContentRegionMax().x - ImGui::GetCursorPosX() - w - 20.0f);
    bool cut = false;
    const std::string shown = widgets::wrap_in_current_font(status_, room, 1, &cut);
    if (status_error_) ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "%s", shown.c_str());
    else ImGui::TextUnformatted(shown.c_str());
    if (cut && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", status_.c_str());
  } else {
    ImGui::TextDisabled("Ready");
  }
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

// --state-out: what the window shows, for automation; at exit, and on SIGUSR1 while it runs.
bool App::write_state_out() const {
  const View& shown = *views_[current_];
  AppStateInputs in;
  in.view = shown.name();
  glfwGetWindowSize(window_, &in.window_width, &in.window_height);
  glfwGetFramebufferSize(window_, &in.framebuffer_width, &in.framebuffer_height);
  in.frames = frames_;
  in.heatmaps_drawn = last_stats_.heatmaps_drawn;
  in.heatmap_uploads = last_stats_.heatmap_uploads;
  in.plots_drawn = last_stats_.plots_drawn;
  in.attention_lines_drawn = last_stats_.attention_lines_drawn;
  in.neuron_cells_drawn = last_stats_.neuron_cells_drawn;
  in.blocking_io_on_ui_thread = io::blocking_calls_on_ui_thread();
  in.presentation = presentation_;
  for (const auto& v : views_) in.views.push_back(v->name());
  in.screenshot = screenshot_written_;
  in.tooltip = last_tooltip();
  in.tooltip_width_em = last_tooltip_width_em();
  std::vector<nlohmann::json> states;
  for (const auto& v : views_) states.push_back(v->state());
  if (lesson_.active()) states.push_back({{"lesson", lesson_state(now_seconds())}});
  std::string error;
  if (write_json_file(opts_.state_out, build_app_state(in, states), &error)) return true;
  std::cerr << "headroom: cannot write --state-out: " << error << "\n";
  return false;
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
    if (!lesson_step_times_.empty()) {
      std::vector<double> step_ms;
      nlohmann::json log = nlohmann::json::array();
      for (const TimedStep& t : lesson_step_times_) {
        step_ms.push_back(t.ms);
        log.push_back({{"step", t.step}, {"ms", t.ms}});
      }
      const BenchStats step = compute_bench_stats(step_ms);
      extra["lesson_step_ms_median"] = step.median_ms;
      extra["lesson_step_ms_p95"] = step.p95_ms;
      extra["lesson_step_ms_max"] = step.max_ms;
      extra["lesson_steps_timed"] = step_ms.size();
      extra["lesson_step_log"] = std::move(log);
      const BenchStats complete = compute_bench_stats(lesson_complete_ms_);
      extra["lesson_step_complete_ms_p95"] = complete.p95_ms;
      extra["lesson_step_complete_ms_max"] = complete.max_ms;
    }
    if (!lesson_anim_frame_ms_.empty()) {
      const BenchStats anim = compute_bench_stats(lesson_anim_frame_ms_);
      extra["lesson_animation_fps_median"] = anim.median_ms > 0 ? 1000.0 / anim.median_ms : 0.0;
      extra["lesson_animation_frame_ms_p95"] = anim.p95_ms;
      extra["lesson_animation_frames"] = lesson_anim_frame_ms_.size();
    }
    if (frame_ms_.size() >= 2) {  // a long run (a soak) shows whether frames got slower as it went on
      const auto middle = frame_ms_.begin() + static_cast<std::ptrdiff_t>(frame_ms_.size() / 2);
      extra["frame_ms_p95_first_half"] = compute_bench_stats({frame_ms_.begin(), middle}).p95_ms;
      extra["frame_ms_p95_second_half"] = compute_bench_stats({middle, frame_ms_.end()}).p95_ms;
    }
    if (g_stop_signal != 0) extra["stopped_by_signal"] = g_stop_signal == SIGINT ? "SIGINT" : "SIGTERM";
    std::cout << bench_json(compute_bench_stats(frame_ms_), extra).dump() << std::endl;
  }
  if (!opts_.state_out.empty() && !write_state_out()) code = kExitRuntime;
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

void App::bench_lesson_frame(double frame_ms) {
  LessonPlayer& player = lesson_.player();
  const double now = now_seconds();
  // Animating: a sweep is under way, or the lab is still training what the step asked for.
  const bool animating = !player.animations_done(now) || (lesson_step_trains_ && !views_[current_]->settled());
  if (animating && lesson_step_frames_ > 1) lesson_anim_frame_ms_.push_back(frame_ms);
  if (lesson_step_timing_ && lesson_step_frames_ >= 1 && views_[current_]->lesson_step_drawn()) {
    lesson_step_times_.push_back({player.step() + 1, (now - lesson_step_applied_at_) * 1000.0});
    lesson_step_timing_ = false;
    lesson_complete_timing_ = true;
  }
  // What fills in after the step's subject (the Theorem tab's error curve), timed apart.
  if (lesson_complete_timing_ && views_[current_]->settled()) {
    lesson_complete_ms_.push_back((now - lesson_step_applied_at_) * 1000.0);
    lesson_complete_timing_ = false;
  }
  // The next step (the first after the last) once this one is drawn, its animations played and a
  // few steady frames shown.
  if (lesson_step_timing_ || lesson_complete_timing_ || animating || lesson_step_frames_ < 10) return;
  const bool moved = player.next(now) || player.go_to(0, now);
  if (!moved) lesson_step_frames_ = 0;  // a one-step lesson: nothing to change to
}

// ---- Lessons -----------------------------------------------------------------------------------

bool App::open_lesson(const std::string& path, int start_step, std::string* error) {
  // Each step's scene is checked by the view it names before anything changes, so a bad step is
  // reported with its file, line and key, and the lesson (or the lab) on screen stays as it was.
  const SceneValidator validate = [this](const nlohmann::json& scene, std::string* why) {
    const std::string view = scene.value("view", std::string("Lab"));
    const int index = find_view(views_, view);
    if (index < 0) {
      *why = "view: no view named '" + view + "'; valid views: " + view_names_list(views_);
      return false;
    }
    return views_[index]->validate_scene(scene, why);
  };
  if (!lesson_.open(path, validate, start_step, now_seconds(), error)) return false;
  lesson_applied_ = ~0ull;
  fonts_dirty_ = true;  // the lesson's fonts, at the window's presentation scale
  presentation_ = true;
  return true;
}

void App::close_lesson() {
  lesson_.close();
  for (auto& v : views_) v->set_lesson_focus(LessonFocus{});
  lesson_applied_ = ~0ull;
  fonts_dirty_ = true;
}

void App::apply_lesson_step(double now) {
  const LessonPlayer& player = lesson_.player();
  if (lesson_applied_ == player.step_version()) return;
  lesson_applied_ = player.step_version();
  const LessonStep& step = player.current();
  const int index = std::max(0, find_view(views_, step.view));
  std::string error;
  // A step that goes on with earlier steps' weights, reached out of order, trains them first.
  const LessonCatchUp& catch_up = player.catch_up();
  nlohmann::json scene = step.scene;
  if (catch_up.reset) scene["keep_weights"] = false;
  if (!views_[index]->load_lesson_scene(scene, &error)) {
    set_status("lesson step " + std::to_string(player.step() + 1) + ": " + error, true);
  } else if (catch_up.train_steps > 0) {
    LessonAnimation train;
    train.kind = LessonAnimation::Kind::Train;
    train.steps = catch_up.train_steps;
    if (!views_[index]->lesson_action(train, &error)) set_status("lesson: " + error, true);
    else set_status(catch_up_message(catch_up, player.step()));
  }
  for (size_t i = 0; i < views_.size(); ++i) {
    LessonFocus focus;
    if (static_cast<int>(i) == index) focus = {true, step.focus, step.highlight, step.try_it};
    views_[i]->set_lesson_focus(focus);
  }
  current_ = index;
  lesson_sweeps_done_ = false;
  lesson_step_applied_at_ = now;
  lesson_step_frames_ = 0;
  // A step that trains is timed as an animation, not as a step change (its training is the point).
  bool trains = catch_up.train_steps > 0;
  for (const LessonAnimation& a : step.animations) trains = trains || a.kind == LessonAnimation::Kind::Train;
  lesson_step_timing_ = opts_.bench_frames > 0 && !trains;
  lesson_complete_timing_ = false;
  lesson_step_trains_ = trains;
}

void App::run_lesson_animations(double now) {
  LessonPlayer& player = lesson_.player();
  const double t = animation_now(now);
  if (!lesson_sweeps_done_) {
    // Sweeps hold their controls until they end; then the controls are the lecturer's again.
    for (const auto& [control, value] : player.sweep_values(t))
      if (!views_[current_]->set_control(control, value))
        set_status("lesson: the " + std::string(views_[current_]->name()) + " has no control '" + control + "'", true);
    lesson_sweeps_done_ = player.animations_done(t);
  }
  for (const LessonAnimation& action : player.due_actions(t)) {
    std::string error;
    if (!views_[current_]->lesson_action(action, &error)) set_status("lesson: " + error, true);
  }
}

void App::draw_lessons_menu() {
  if (!ImGui::BeginMenu("Lessons")) {
    lesson_entries_read_ = false;  // read the folder again the next time the menu opens
    return;
  }
  if (!lesson_entries_read_) {
    lesson_entries_ = list_lessons(io::share_dir() + "/lessons");
    lesson_entries_read_ = true;
  }
  if (lesson_entries_.empty()) ImGui::TextDisabled("No lessons in %s/lessons", io::share_dir().c_str());
  for (const LessonEntry& e : lesson_entries_) {
    const std::string label = (e.title.empty() ? e.path : e.title) + "##" + e.path;
    if (!e.error.empty()) {
      ImGui::BeginDisabled();
      ImGui::MenuItem(label.c_str());
      ImGui::EndDisabled();
      if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", e.error.c_str());
      continue;
    }
    if (ImGui::MenuItem(label.c_str(), nullptr, lesson_.active() && lesson_.player().lesson().path == e.path)) {
      std::string error;
      if (!open_lesson(e.path, 0, &error)) set_status(error, true);
      else set_status("Lesson: " + e.title + " (Right / Left or Page Down / Page Up to move, N for notes)");
    }
  }
  ImGui::Separator();
  if (ImGui::MenuItem("Speaker notes", "N", lesson_.active() && lesson_.player().notes_shown(), lesson_.active()))
    lesson_.player().toggle_notes();
  if (ImGui::MenuItem("Leave the lesson", nullptr, false, lesson_.active())) close_lesson();
  ImGui::EndMenu();
}

nlohmann::json App::lesson_state(double now) const {
  const LessonPlayer& p = lesson_.player();
  return {{"path", p.lesson().path},
          {"title", p.lesson().title},
          {"step", p.step() + 1},
          {"steps", p.count()},
          {"step_title", p.current().title},
          {"title_cut", lesson_.title_cut()},
          {"focus", p.current().focus},
          {"notes_shown", p.notes_shown()},
          {"elapsed_s", p.elapsed(now)},
          {"animations_done", p.animations_done(animation_now(now))},
          {"text", plain_text(lesson_.text_blocks())}};
}

void App::handout_after_render() {
  LessonPlayer& player = lesson_.player();
  const double now = now_seconds();
  const View& view = *views_[current_];
  const bool animated = player.animations_done(animation_now(now));
  const bool ready = lesson_applied_ == player.step_version() && lesson_step_frames_ >= 3 && view.settled() && animated;
  const bool late = now - lesson_step_applied_at_ > kMaxSettleSeconds;
  if (!ready && !late) return;
  if (!ready)
    std::cerr << "headroom: warning: lesson step " << player.step() + 1 << " did not settle within "
              << kMaxSettleSeconds << " s; capturing anyway\n";
  char name[32];
  std::snprintf(name, sizeof name, "step-%02d.png", player.step() + 1);
  const std::string png = (std::filesystem::path(opts_.handout_dir) / name).string();
  int fw = 0, fh = 0;
  glfwGetFramebufferSize(window_, &fw, &fh);
  std::string error;
  if (!widgets::save_framebuffer_png(png, 0, 0, fw, fh, &error)) {
    std::cerr << "headroom: cannot write the handout: " << error << "\n";
    exit_code_ = kExitRuntime;
    quit_ = true;
    return;
  }
  nlohmann::json state = lesson_state(now);
  state["png"] = name;
  state["settled"] = ready;
  state["view"] = view.name();
  state["scene"] = player.current().scene;
  state["highlight"] = player.current().highlight;
  state["sweeps"] = player.sweep_values(animation_now(now));  // each swept control's value at capture
  state["view_state"] = view.lesson_state();
  state["heatmaps_drawn"] = last_stats_.heatmaps_drawn;
  state["plots_drawn"] = last_stats_.plots_drawn;
  state["blocking_io_on_ui_thread"] = io::blocking_calls_on_ui_thread();
  handout_states_.push_back(std::move(state));
  if (player.next(now)) return;
  if (!write_handout(&error)) {
    std::cerr << "headroom: cannot write the handout: " << error << "\n";
    exit_code_ = kExitRuntime;
  } else {
    std::cout << "headroom: wrote " << handout_states_.size() << " steps to "
              << (std::filesystem::path(opts_.handout_dir) / "index.html").string() << "\n";
  }
  quit_ = true;
}

bool App::write_handout(std::string* error) const {
  const Lesson& lesson = lesson_.player().lesson();
  const auto escape = html_escape;
  std::string html = "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
                     escape(lesson.title) +
                     "</title>\n<style>\n"
                     "body { font-family: 'DejaVu Sans', sans-serif; max-width: 70em; margin: 2em auto; padding: 0 1em;"
                     " line-height: 1.5; color: #111; }\n"
                     "section { margin: 3em 0; }\nimg { width: 100%; border: 1px solid #bbb; }\n"
                     ".f { font-family: 'DejaVu Sans Mono', monospace; color: #7a4b00; }\n"
                     "details { color: #444; margin-top: 1em; }\nfooter { color: #666; font-size: 90%; }\n"
                     "</style>\n</head>\n<body>\n<h1>" +
                     escape(lesson.title) + "</h1>\n";
  if (!lesson.summary.empty()) html += "<p>" + escape(lesson.summary) + "</p>\n";
  // The steps captured, from the one the lesson opened at (--lesson-step) to the last.
  for (const nlohmann::json& state : handout_states_) {
    const size_t i = state["step"].get<size_t>() - 1;
    if (i >= lesson.steps.size()) continue;
    const LessonStep& step = lesson.steps[i];
    std::vector<TextBlock> text, notes;
    std::string ignored;
    parse_lesson_markdown(step.text, &text, &ignored);
    parse_lesson_markdown(step.notes, &notes, &ignored);
    const std::string png = state["png"].get<std::string>();
    html += "<section id=\"step-" + std::to_string(i + 1) + "\">\n<h2>" + std::to_string(i + 1) + ". " +
            escape(step.title) + "</h2>\n<img src=\"" + png + "\" alt=\"Step " + std::to_string(i + 1) + ": " +
            escape(step.title) + "\">\n" + blocks_to_html(text) + "\n";
    if (!notes.empty())
      html += "<details><summary>Speaker notes</summary>\n" + blocks_to_html(notes) + "\n</details>\n";
    html += "</section>\n";
  }
  html +=
      "<footer>Written by headroom " HEADROOM_VERSION " from " + escape(lesson.path) + ".</footer>\n</body>\n</html>\n";
  const std::filesystem::path dir(opts_.handout_dir);
  const nlohmann::json states = {{"lesson", lesson.path}, {"title", lesson.title}, {"steps", handout_states_}};
  return core::write_file_atomically((dir / "index.html").string(), html, error) &&
         core::write_file_atomically((dir / "lesson.json").string(), states.dump(2) + "\n", error);
}

}  // namespace headroom::gui

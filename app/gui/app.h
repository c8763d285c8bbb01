// The GUI shell: one GLFW window with an OpenGL 3.3 core context, a full-window
// ImGui window with a menu bar, one tab per View and a status line; plus the
// automation contract (--screenshot, --state-out, --bench-frames, --scene, --view).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/gui/frame_pacing.h"
#include "app/gui/gui_options.h"
#include "app/gui/lesson_presenter.h"
#include "app/gui/scene.h"
#include "app/gui/views/view.h"
#include "widgets/frame_stats.h"

struct GLFWwindow;

namespace headroom::gui {

class App {
 public:
  explicit App(GuiOptions options);
  ~App();
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  // Runs until the user quits or the automation run is done; returns the exit code.
  int run();

 private:
  int prepare();  // views, scene, --view, settings; no window yet. -1 = go on.
  bool open_window(std::string* error);
  void setup_imgui();
  void rebuild_fonts();
  void shutdown();

  void frame();
  void draw_ui();
  void draw_menu_bar();
  void draw_status_bar();
  void draw_export_dialog();
  void handle_shortcuts();
  void after_render();  // panel exports, screenshots, automation exit (before swap)
  bool automation_done() const;
  void hide_idle_cursor_in_automation();
  void toggle_fullscreen();
  void save_screenshot(const std::string& path, bool fall_back_to_config_dir);
  void set_status(const std::string& message, bool error = false);
  int finish();                  // state-out, bench line, settings; returns the exit code
  bool write_state_out() const;  // --state-out now (false: could not, said on stderr)

  // Lessons (app/gui/lesson_presenter.h): the presenter plays a lesson over the views.
  bool open_lesson(const std::string& path, int start_step, std::string* error);
  void close_lesson();
  void apply_lesson_step(double now);      // loads the step's scene into its view when the step changed
  void run_lesson_animations(double now);  // sweeps set controls; train / head_off actions go to the view
  void draw_lessons_menu();
  void handout_after_render();
  // --bench-frames with a lesson: times each step change until the step is drawn settled, keeps the
  // frame times of animated steps, and moves to the next step (the first after the last).
  void bench_lesson_frame(double frame_ms);  // --handout: one PNG per step once the step has settled
  bool write_handout(std::string* error) const;
  nlohmann::json lesson_state(double now) const;
  // The clock animations run on: in a handout every animation is already at its end.
  double animation_now(double now) const { return opts_.handout_dir.empty() ? now : now + 1e5; }

  GuiOptions opts_;
  ViewContext context_;
  std::vector<std::unique_ptr<View>> views_;
  Scene scene_;
  int current_ = 0;          // view shown in the last frame
  int pending_select_ = -1;  // view to select in the next frame

  GLFWwindow* window_ = nullptr;
  bool imgui_ready_ = false;
  bool presentation_ = false;
  bool fonts_dirty_ = false;
  float content_scale_ = 1.0f;
  std::string ini_path_;  // imgui.ini, written by save_imgui_ini (empty: not remembered)
  // Writes ImGui's window layout to ini_path_ atomically when ImGui asks (or `force`: at exit).
  void save_imgui_ini(bool force);
  bool show_metrics_ = false;
  bool shortcut_fullscreen_ = false;  // set by the GLFW key callback, handled next frame
  bool shortcut_screenshot_ = false;

  int frames_ = 0;
  // Frame pacing (frame_pacing.h): the last frame with input, and whether the next one waits.
  bool input_this_frame();  // mouse, wheel, keys, text or a resize since the last frame
  double last_input_at_ = 0.0;
  bool idle_ = false;
  FrameRate frame_rate_;    // the status bar's FPS
  bool key_event_ = false;  // the key callback saw a key (ImGui 1.86 misses a tap between frames)
  float last_display_size_[2] = {0.0f, 0.0f};
  bool bench_sampling_ = false;  // --bench-frames: sampling began (View::bench_frames_may_start)
  bool quit_ = false;
  int exit_code_ = 0;
  double automation_started_ = 0.0;
  static constexpr int kBenchWarmupFrames = 3;
  std::vector<double> frame_ms_;
  bool cursor_moved_ = false;
  double initial_cursor_[2] = {0.0, 0.0};
  widgets::FrameStats last_stats_;

  std::string screenshot_written_;
  std::string screenshot_request_;
  int screenshot_countdown_ = -1;  // frames until a requested screenshot is taken
  bool open_export_dialog_ = false;
  std::string export_path_;

  std::string status_;
  bool status_error_ = false;
  double status_time_ = 0.0;

  LessonPresenter lesson_;
  LessonFonts lesson_fonts_;
  float presentation_font_scale_ = 0.0f;  // the presentation scale the fonts were built for (0: none)
  uint64_t lesson_applied_ = ~0ull;       // the player's step_version the views show
  bool lesson_sweeps_done_ = false;  // the step's sweeps reached their ends (the controls are the lecturer's again)
  double lesson_step_applied_at_ = 0.0;
  int lesson_step_frames_ = 0;               // frames drawn since the step was applied
  std::vector<LessonEntry> lesson_entries_;  // the Lessons menu (read when it first opens)
  bool lesson_entries_read_ = false;
  std::vector<nlohmann::json> handout_states_;  // --handout: the state of each step as captured
  // --bench-frames with a lesson: step change -> the step's subject drawn, -> everything filled in
  // (settled), and frame times while animating.
  struct TimedStep {
    int step;  // 1-based, as the lesson shows it
    double ms;
  };
  std::vector<TimedStep> lesson_step_times_;
  std::vector<double> lesson_complete_ms_;
  std::vector<double> lesson_anim_frame_ms_;
  bool lesson_step_timing_ = false, lesson_complete_timing_ = false;
  bool lesson_step_trains_ = false;  // the step has a train animation

  bool fullscreen_ = false;
  int windowed_[4] = {0, 0, 0, 0};  // x, y, w, h before going fullscreen
};

}  // namespace headroom::gui

// A View is one tab of the GUI (the lab, the explorer, the widgets demo...).
//
// Adding a view is two lines in view_registry.cpp: include its header and
// push_back an instance (tab order = registration order; the first one is the
// default tab). Sources in app/gui/views/ are picked up by CMake automatically.
//
// Lifetime: views are constructed BEFORE the window exists (so --view and --scene
// can be validated without a display): constructors must not touch ImGui or GL.
// draw() is called every frame the tab is visible, inside an ImGui child window
// that fills the tab.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/gui/lesson/lesson.h"
#include "app/gui/stored_checkpoint.h"

struct ImFont;

namespace headroom::gui {

struct GuiOptions;

// What the shell shares with views. Owned by the App; outlives every view.
struct ViewContext {
  const GuiOptions* options = nullptr;  // the command line (--db, --presentation, ...)
  std::string config_dir;               // where settings live ("" when unknown)
  ImFont* mono_font = nullptr;          // DejaVu Sans Mono (null until fonts load, or if missing)
  float ui_scale = 1.0f;                // HiDPI x presentation scale, for views sizing things by hand
  // Links between views: a view sets these, the App selects the named tab in the next frame and
  // the lab consumes the checkpoint when it draws.
  std::string select_view;
  std::optional<StoredCheckpoint> open_in_lab;
  bool request_open_db = false;  // File > Open experiments DB: the explorer focuses its path field
  // The explorer opens this DB (File > Open the papers' results, Open paper-scale results > a suite,
  // the empty explorer's and the lab's offers: the shipped DBs).
  std::string request_open_path;
  // The lab's "Open a trained run": with request_open_path the shipped results, the explorer hands
  // the lab one of their runs with stored weights (explorer::trained_example) once its rows are read.
  bool request_trained_example = false;
  std::string open_db;              // the DB the explorer has open ("" before it opens one): the About tab shows it
  bool request_open_model = false;  // File > Open model: the lab focuses its model-directory field
  std::optional<std::string> open_model_dir;  // --model DIR: the lab opens it
};

// What a lesson step asks of the view it shows (app/gui/lesson): the panel that fills the screen,
// the controls to highlight, and whether the lecturer has the controls ("try it").
struct LessonFocus {
  bool active = false;  // a lesson is playing and this view shows its step
  std::string panel;    // "" = the view as it is
  std::vector<std::string> highlight;
  bool try_it = false;
};

class View {
 public:
  virtual ~View() = default;

  // Tab label; also the name for --view, the scene's "view" and state's "view".
  virtual const char* name() const = 0;

  // Draws the tab's contents into the current window.
  virtual void draw() = 0;

  // The --scene object (whole file; pick your own key). Return false with *error
  // set (one line: what is wrong and what would be right) to abort startup with exit 2.
  virtual bool load_scene(const nlohmann::json& scene, std::string* error) { return true; }

  // Merged into the --state-out JSON at top level (e.g. {"model": {...}}).
  virtual nlohmann::json state() const { return nlohmann::json::object(); }

  // Merged into the --bench-frames JSON line (e.g. {"snapshot_ms_p95": 3.2}).
  virtual nlohmann::json bench_metrics() const { return nlohmann::json::object(); }
  // --bench-frames: frame times are sampled from the first frame this is true (after the warm-up
  // frames). A view whose timed steps (opening a file, ...) come first says when they are over,
  // so the frames measured are the steady state the benchmark scripts, not a loading screen.
  virtual bool bench_frames_may_start() const { return true; }

  // Checks a scene without loading it (a lesson checks every step's scene when it opens). The
  // default loads nothing and accepts: views whose load_scene only records keys override it.
  virtual bool validate_scene(const nlohmann::json& scene, std::string* error) const {
    (void)scene, (void)error;
    return true;
  }

  // Lessons. A step's scene is loaded over the view's defaults, not over what the lecturer changed
  // on the step before, so every step looks the same each time it is shown.
  virtual bool load_lesson_scene(const nlohmann::json& scene, std::string* error) { return load_scene(scene, error); }
  virtual void set_lesson_focus(const LessonFocus& focus) { (void)focus; }
  // A sweep animation sets a control (a scene key) to a value; false when the view has none by that name.
  virtual bool set_control(const std::string& name, double value) {
    (void)name, (void)value;
    return false;
  }
  // A train / head_off animation; false with *error (one line) when the view cannot do it.
  virtual bool lesson_action(const LessonAnimation& action, std::string* error) {
    (void)action;
    *error = std::string(name()) + " has no lesson actions";
    return false;
  }
  // A lesson's step-change timing: the step's subject is on screen. settled() may wait longer, for
  // what fills in progressively after it (the Theorem tab's error-vs-d_p curve).
  virtual bool lesson_step_drawn() const { return settled(); }
  // For lesson checks: the panel drawn in the last frame and the highlighted controls it drew.
  virtual nlohmann::json lesson_state() const { return nlohmann::json::object(); }

  // Automation waits (bounded) until the shown view says its content is ready,
  // e.g. a background snapshot has arrived, before taking the screenshot.
  virtual bool settled() const { return true; }
  // The window keeps drawing at its frame cap while this holds (frame_pacing.h): work in flight
  // whose answer is not shown yet, or content that moves by itself. Otherwise it waits for input.
  virtual bool busy() const { return !settled(); }
};

}  // namespace headroom::gui

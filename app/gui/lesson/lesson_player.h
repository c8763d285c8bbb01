// The presenter's state machine over a lesson: which step is shown, the lesson's clock and the
// step's, the speaker notes toggle, and what the step's animations ask for at a given time. It has no
// clock of its own: callers pass `now` in seconds (the GUI its frame time, tests whatever they like),
// so a lesson replays the same way every time.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "app/gui/lesson/lesson.h"

namespace headroom::gui {

// What a step that keeps the weights (keep_weights) needs before its own animations, when it was not
// reached from the steps that trained them: opened at it, or come back to from a step that began
// anew. The weights are set back to the seed's (reset) and trained for the steps the earlier steps
// of its run would have trained, so the step shows what it shows when the lesson is played in order.
struct LessonCatchUp {
  bool reset = false;
  int train_steps = 0;
  std::vector<int> from_steps;  // 0-based steps whose training is caught up, in order
};

class LessonPlayer {
 public:
  LessonPlayer() = default;
  explicit LessonPlayer(Lesson lesson);

  bool active() const;  // a lesson with >= 1 step is loaded
  const Lesson& lesson() const { return lesson_; }
  int step() const { return step_; }  // 0-based
  int count() const { return static_cast<int>(lesson_.steps.size()); }
  const LessonStep& current() const;  // an empty step when not active

  // The lesson clock and the first step begin (a step change: step_version() moves on). Navigating before
  // start() starts the clock too.
  void start(double now);
  bool next(double now);                              // false (no change) at the last step
  bool previous(double now);                          // false at the first
  bool go_to(int step, double now);                   // false when out of range or already there
  uint64_t step_version() const { return version_; }  // +1 on every step change: the GUI reloads the scene
  double elapsed(double now) const;                   // seconds since start(), 0 before it
  double step_elapsed(double now) const;              // seconds since the current step began, 0 before start()

  bool notes_shown() const { return notes_shown_; }
  void toggle_notes() { notes_shown_ = !notes_shown_; }

  // The current step's sweeps at `now`: control -> value, linear from `from` to `to` over `seconds` after
  // `delay` (`from` before the delay, `to` after the end). Integer controls (every sweepable control but lr)
  // are rounded to the nearest integer. When two sweeps name one control, the later one in the file wins.
  std::map<std::string, double> sweep_values(double now) const;
  // The current step's train / head_off animations whose delay has passed and that were not handed out yet
  // in this visit of the step, in file order. Each comes out once per visit: leaving the step and coming
  // back hands them out again (the scene is reloaded, so the lab is back where the step begins).
  std::vector<LessonAnimation> due_actions(double now);
  // Every sweep has reached its end and every action was handed out (true for a step without animations).
  bool animations_done(double now) const;
  // Set on every step change (see LessonCatchUp); nothing to do for a step reached in order.
  const LessonCatchUp& catch_up() const { return catch_up_; }

  static bool is_integer_control(const std::string& control);

 private:
  void enter(int step, double now);
  LessonCatchUp catch_up_for(int step, int from, const std::vector<bool>& from_handed_out) const;

  Lesson lesson_;
  int step_ = 0;
  uint64_t version_ = 0;
  bool started_ = false;
  double start_time_ = 0, step_start_ = 0;
  bool notes_shown_ = false;
  std::vector<bool> handed_out_;  // per animation of the current step
  LessonCatchUp catch_up_;
};

// What the status bar says while a catch-up trains, e.g. "Step 5 goes on from the training of step 2:
// the model starts from its seed and trains those 400 steps first" (steps 1-based).
std::string catch_up_message(const LessonCatchUp& c, int step);

// A clock for the lecturer: "0:07", "12:34", "1:02:03" (whole seconds, negative as 0).
std::string format_clock(double seconds);

}  // namespace headroom::gui

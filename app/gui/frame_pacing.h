// How often the window draws. A window whose content does not change waits for input (or for a
// background thread's news, mailbox.h's wake_ui) instead of drawing 60 frames a second: an idle
// Headroom on a laptop or beside a training run costs next to nothing. Pure logic, no GLFW.
#pragma once

#include <deque>

namespace headroom::gui {

// What decides the next frame's pace, gathered by App each frame.
struct PacingInputs {
  bool automation = false;     // --screenshot, --frames, --handout, --bench-frames: every frame, as timed
  bool lesson = false;         // a lesson plays: its animations and its clock move
  bool view_busy = false;      // the view waits for work in flight or shows something that moves
  bool text_input = false;     // a text field has the keyboard: its cursor blinks
  double since_input_s = 0.0;  // seconds since the last frame with input (mouse, keys, wheel, resize)
};

// Input keeps the window drawing this long after it (hover highlights, tooltips, a layout that
// takes a frame or two to settle).
constexpr double kActiveAfterInputSeconds = 1.0;
// An idle window still draws at least this often: clocks in the status bar and a status message
// that ages out need no other wake-up.
constexpr double kIdleWaitSeconds = 0.25;

// True: poll for input and draw at the frame cap; false: wait up to kIdleWaitSeconds for an event.
inline bool draw_at_full_rate(const PacingInputs& in) {
  return in.automation || in.lesson || in.view_busy || in.text_input || in.since_input_s < kActiveAfterInputSeconds;
}

// Frames a second over the last second of frames drawn at the cap, for the status bar. ImGui's own
// average spans 120 frames, idle ones included, and would read 10 FPS for seconds after a wake-up.
class FrameRate {
 public:
  // A frame began at `t` seconds; `waited`: it waited for events first (the gap before it is idle
  // time, not a frame's).
  void frame(double t, bool waited) {
    if (waited) times_.clear();
    times_.push_back(t);
    while (times_.size() > 2 && t - times_.front() > 1.0) times_.pop_front();
  }
  // 0 until two frames in a row were drawn at the cap.
  double fps() const {
    if (times_.size() < 2 || times_.back() <= times_.front()) return 0.0;
    return static_cast<double>(times_.size() - 1) / (times_.back() - times_.front());
  }

 private:
  std::deque<double> times_;
};

}  // namespace headroom::gui

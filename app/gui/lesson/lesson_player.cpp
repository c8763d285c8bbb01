#include "app/gui/lesson/lesson_player.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace headroom::gui {

LessonPlayer::LessonPlayer(Lesson lesson) : lesson_(std::move(lesson)) {
  if (active()) handed_out_.assign(lesson_.steps[0].animations.size(), false);
}

bool LessonPlayer::active() const { return !lesson_.steps.empty(); }

const LessonStep& LessonPlayer::current() const {
  static const LessonStep kNone;
  return active() ? lesson_.steps[static_cast<size_t>(step_)] : kNone;
}

void LessonPlayer::enter(int step, double now) {
  if (!started_) {
    started_ = true;
    start_time_ = now;
  }
  step_ = step;
  step_start_ = now;
  ++version_;
  handed_out_.assign(active() ? current().animations.size() : 0, false);
}

void LessonPlayer::start(double now) {
  started_ = false;
  enter(0, now);
}

bool LessonPlayer::next(double now) { return go_to(step_ + 1, now); }
bool LessonPlayer::previous(double now) { return go_to(step_ - 1, now); }

bool LessonPlayer::go_to(int step, double now) {
  if (step < 0 || step >= count() || step == step_) return false;
  enter(step, now);
  return true;
}

double LessonPlayer::elapsed(double now) const { return started_ ? std::max(0.0, now - start_time_) : 0.0; }
double LessonPlayer::step_elapsed(double now) const { return started_ ? std::max(0.0, now - step_start_) : 0.0; }

bool LessonPlayer::is_integer_control(const std::string& control) {
  const auto& all = lesson_sweep_controls();
  return control != "lr" && std::find(all.begin(), all.end(), control) != all.end();
}

std::map<std::string, double> LessonPlayer::sweep_values(double now) const {
  std::map<std::string, double> out;
  const double t = step_elapsed(now);
  for (const LessonAnimation& a : current().animations) {
    if (a.kind != LessonAnimation::Kind::Sweep) continue;
    const double f = a.seconds > 0 ? std::clamp((t - a.delay) / a.seconds, 0.0, 1.0) : 1.0;
    // Exactly `to` at the end, whatever the rounding of from + (to - from) * 1.
    double v = f >= 1.0 ? a.to : a.from + (a.to - a.from) * f;
    if (is_integer_control(a.control)) v = std::round(v);
    out[a.control] = v;
  }
  return out;
}

std::vector<LessonAnimation> LessonPlayer::due_actions(double now) {
  std::vector<LessonAnimation> out;
  if (!started_) return out;
  const double t = step_elapsed(now);
  const auto& animations = current().animations;
  for (size_t i = 0; i < animations.size() && i < handed_out_.size(); ++i) {
    const LessonAnimation& a = animations[i];
    if (a.kind == LessonAnimation::Kind::Sweep || handed_out_[i] || t < a.delay) continue;
    handed_out_[i] = true;
    out.push_back(a);
  }
  return out;
}

bool LessonPlayer::animations_done(double now) const {
  const double t = step_elapsed(now);
  const auto& animations = current().animations;
  for (size_t i = 0; i < animations.size(); ++i) {
    const LessonAnimation& a = animations[i];
    if (a.kind == LessonAnimation::Kind::Sweep) {
      if (t < a.delay + a.seconds) return false;
    } else if (i >= handed_out_.size() || !handed_out_[i]) {
      return false;
    }
  }
  return true;
}

std::string format_clock(double seconds) {
  // Whole seconds; NaN and negatives read 0, and a year-long lecture still fits the buffer.
  const long long s = seconds > 0 ? static_cast<long long>(std::min(seconds, 1e9)) : 0;
  char buf[32];
  if (s < 3600) {
    std::snprintf(buf, sizeof buf, "%lld:%02lld", s / 60, s % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", s / 3600, (s / 60) % 60, s % 60);
  }
  return buf;
}

}  // namespace headroom::gui

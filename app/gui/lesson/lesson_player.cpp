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

namespace {

int train_steps_of(const LessonStep& step, const std::vector<bool>* handed_out = nullptr) {
  int steps = 0;
  for (size_t i = 0; i < step.animations.size(); ++i)
    if (step.animations[i].kind == LessonAnimation::Kind::Train &&
        !(handed_out && i < handed_out->size() && (*handed_out)[i]))
      steps += step.animations[i].steps;
  return steps;
}

}  // namespace

// A step with keep_weights belongs to the run of steps that begins at the nearest step before it
// without keep_weights (that step loads fresh weights) and goes on while keep_weights holds. Coming
// from a step of the same run before it, the weights have that step's training (its train
// animations handed out: the lab finishes those even when the lecturer moves on) and lack only the
// steps in between; coming from a later step of the run, they have at least what this step needs;
// coming from anywhere else (a step outside the run, or none: the lesson was opened here), they
// start over and train the whole run's steps before this one.
LessonCatchUp LessonPlayer::catch_up_for(int step, int from, const std::vector<bool>& from_handed_out) const {
  LessonCatchUp c;
  const auto at = [&](int i) -> const LessonStep& { return lesson_.steps[static_cast<size_t>(i)]; };
  // Only the lab has weights to catch up (an explorer step's keep_weights keeps nothing of its own).
  if (!at(step).keep_weights || at(step).view != "Lab") return c;
  int first = step;
  while (first > 0 && at(first).keep_weights) --first;
  int last = step;
  while (last + 1 < count() && at(last + 1).keep_weights) ++last;
  if (from > step && from <= last) return c;
  const bool in_run = from >= first && from < step;
  c.reset = !in_run;
  for (int i = in_run ? from : first; i < step; ++i) {
    const int n = train_steps_of(at(i), i == from ? &from_handed_out : nullptr);
    if (n == 0) continue;
    c.train_steps += n;
    c.from_steps.push_back(i);
  }
  return c;
}

void LessonPlayer::enter(int step, double now) {
  catch_up_ = active() ? catch_up_for(step, started_ ? step_ : -1, handed_out_) : LessonCatchUp{};
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

std::string catch_up_message(const LessonCatchUp& c, int step) {
  std::string steps;
  for (size_t i = 0; i < c.from_steps.size(); ++i) {
    if (i > 0) steps += i + 1 == c.from_steps.size() ? " and " : ", ";
    steps += std::to_string(c.from_steps[i] + 1);
  }
  return "Step " + std::to_string(step + 1) + " goes on from the training of step" +
         (c.from_steps.size() == 1 ? " " : "s ") + steps + ": the model " +
         (c.reset ? "starts from its seed and trains" : "trains") + " those " + std::to_string(c.train_steps) +
         " steps first";
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

#include "app/gui/lesson/lesson_player.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace headroom::gui {
namespace {

LessonAnimation sweep(const std::string& control, double from, double to, double seconds, double delay = 0) {
  LessonAnimation a;
  a.kind = LessonAnimation::Kind::Sweep;
  a.control = control;
  a.from = from;
  a.to = to;
  a.seconds = seconds;
  a.delay = delay;
  return a;
}

LessonAnimation train(int steps, double delay) {
  LessonAnimation a;
  a.kind = LessonAnimation::Kind::Train;
  a.steps = steps;
  a.delay = delay;
  return a;
}

LessonAnimation head_off(int layer, int head, double delay) {
  LessonAnimation a;
  a.kind = LessonAnimation::Kind::HeadOff;
  a.layer = layer;
  a.head = head;
  a.delay = delay;
  return a;
}

Lesson lesson_of(std::vector<std::vector<LessonAnimation>> steps) {
  Lesson lesson;
  lesson.title = "L";
  for (size_t i = 0; i < steps.size(); ++i) {
    LessonStep s;
    s.title = "S" + std::to_string(i + 1);
    s.animations = std::move(steps[i]);
    lesson.steps.push_back(std::move(s));
  }
  return lesson;
}

TEST(LessonPlayer, EmptyPlayerIsInactive) {
  LessonPlayer p;
  EXPECT_FALSE(p.active());
  EXPECT_EQ(p.count(), 0);
  EXPECT_EQ(p.current().title, "");
  EXPECT_FALSE(p.next(1));
  EXPECT_FALSE(p.previous(1));
  EXPECT_FALSE(p.go_to(0, 1));
  EXPECT_TRUE(p.sweep_values(1).empty());
  EXPECT_TRUE(p.due_actions(1).empty());
  EXPECT_TRUE(p.animations_done(1));
  EXPECT_FALSE(LessonPlayer(Lesson()).active());
}

TEST(LessonPlayer, NavigationBoundsAndVersion) {
  LessonPlayer p(lesson_of({{}, {}, {}}));
  ASSERT_TRUE(p.active());
  EXPECT_EQ(p.count(), 3);
  const uint64_t v0 = p.step_version();
  p.start(10);
  EXPECT_EQ(p.step(), 0);
  EXPECT_EQ(p.step_version(), v0 + 1);  // the first step begins: the GUI loads its scene
  EXPECT_FALSE(p.previous(11));
  EXPECT_EQ(p.step_version(), v0 + 1);
  EXPECT_TRUE(p.next(12));
  EXPECT_EQ(p.current().title, "S2");
  EXPECT_TRUE(p.next(13));
  EXPECT_FALSE(p.next(14));  // the last step
  EXPECT_EQ(p.step(), 2);
  EXPECT_EQ(p.step_version(), v0 + 3);
  EXPECT_FALSE(p.go_to(2, 15));  // already there
  EXPECT_FALSE(p.go_to(3, 15));
  EXPECT_FALSE(p.go_to(-1, 15));
  EXPECT_EQ(p.step_version(), v0 + 3);
  EXPECT_TRUE(p.go_to(0, 16));
  EXPECT_EQ(p.step(), 0);
  EXPECT_TRUE(p.previous(16) == false);
  EXPECT_EQ(p.step_version(), v0 + 4);
}

TEST(LessonPlayer, Clocks) {
  LessonPlayer p(lesson_of({{}, {}}));
  EXPECT_EQ(p.elapsed(100), 0);  // before start()
  EXPECT_EQ(p.step_elapsed(100), 0);
  p.start(100);
  EXPECT_DOUBLE_EQ(p.elapsed(107.5), 7.5);
  EXPECT_DOUBLE_EQ(p.step_elapsed(107.5), 7.5);
  p.next(110);
  EXPECT_DOUBLE_EQ(p.elapsed(112), 12);      // the lesson's clock runs on
  EXPECT_DOUBLE_EQ(p.step_elapsed(112), 2);  // the step's restarts
  EXPECT_EQ(p.step_elapsed(109), 0);         // never negative
  p.start(200);                              // starting again restarts both
  EXPECT_EQ(p.step(), 0);
  EXPECT_DOUBLE_EQ(p.elapsed(201), 1);
}

TEST(LessonPlayer, NotesToggle) {
  LessonPlayer p(lesson_of({{}, {}}));
  EXPECT_FALSE(p.notes_shown());
  p.toggle_notes();
  EXPECT_TRUE(p.notes_shown());
  p.start(0);
  p.next(1);
  EXPECT_TRUE(p.notes_shown());  // the lecturer's choice outlives a step
  p.toggle_notes();
  EXPECT_FALSE(p.notes_shown());
}

TEST(LessonPlayer, SweepInterpolationDelayRoundingAndClamping) {
  LessonPlayer p(lesson_of({{sweep("theorem_dp", 2, 8, 6, 1), sweep("lr", 0.001, 0.003, 2)}}));
  p.start(0);
  auto at = [&](double t) { return p.sweep_values(t); };
  EXPECT_EQ(at(0).at("theorem_dp"), 2);  // before its delay: from
  EXPECT_EQ(at(1).at("theorem_dp"), 2);
  EXPECT_EQ(at(2).at("theorem_dp"), 3);    // 2 + 6 * 1/6
  EXPECT_EQ(at(2.4).at("theorem_dp"), 3);  // 3.4 rounds to 3
  EXPECT_EQ(at(2.6).at("theorem_dp"), 4);  // 3.6 rounds to 4
  EXPECT_EQ(at(7).at("theorem_dp"), 8);
  EXPECT_EQ(at(1000).at("theorem_dp"), 8);  // after the end: to
  EXPECT_DOUBLE_EQ(at(1).at("lr"), 0.002);  // lr is not rounded
  EXPECT_DOUBLE_EQ(at(5).at("lr"), 0.003);
  EXPECT_EQ(at(-5).at("theorem_dp"), 2);  // a clock before the step's start reads as its start
}

TEST(LessonPlayer, DownwardSweepAndLaterSweepWins) {
  LessonPlayer p(lesson_of({{sweep("heads", 8, 1, 7), sweep("heads", 4, 4, 1), sweep("d", 64, 16, 4, 2)}}));
  p.start(0);
  EXPECT_EQ(p.sweep_values(3).at("heads"), 4);  // the second sweep of heads, later in the file
  EXPECT_EQ(p.sweep_values(3).at("d"), 52);     // 64 - 48 / 4
  EXPECT_EQ(p.sweep_values(3).size(), 2u);
}

TEST(LessonPlayer, DueActionsOncePerVisit) {
  LessonPlayer p(lesson_of({{train(200, 0), sweep("d", 1, 2, 1), head_off(0, 3, 2.5)}, {}}));
  EXPECT_TRUE(p.due_actions(0).empty());  // nothing before start()
  p.start(10);
  std::vector<LessonAnimation> due = p.due_actions(10);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].kind, LessonAnimation::Kind::Train);
  EXPECT_EQ(due[0].steps, 200);
  EXPECT_TRUE(p.due_actions(11).empty());  // handed out once
  EXPECT_FALSE(p.animations_done(12));     // head_off is still to come
  due = p.due_actions(12.5);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].kind, LessonAnimation::Kind::HeadOff);
  EXPECT_EQ(due[0].head, 3);
  EXPECT_TRUE(p.due_actions(100).empty());
  EXPECT_TRUE(p.animations_done(100));

  // Away and back: a new visit hands them out again.
  p.next(101);
  EXPECT_TRUE(p.due_actions(101).empty());
  p.previous(102);
  EXPECT_FALSE(p.animations_done(102));
  due = p.due_actions(200);  // both at once, in file order
  ASSERT_EQ(due.size(), 2u);
  EXPECT_EQ(due[0].kind, LessonAnimation::Kind::Train);
  EXPECT_EQ(due[1].kind, LessonAnimation::Kind::HeadOff);
}

TEST(LessonPlayer, AnimationsDone) {
  LessonPlayer p(lesson_of({{sweep("d", 1, 2, 4, 1)}, {}}));
  p.start(0);
  EXPECT_FALSE(p.animations_done(4.9));
  EXPECT_TRUE(p.animations_done(5));
  p.next(6);
  EXPECT_TRUE(p.animations_done(6));  // a step without animations
}

// Steps 1..7 (0-based 0..6): 0 plain, 1 trains 400 (fresh weights), 2 keeps, 3 keeps and trains 50,
// 4 keeps, 5 plain (fresh again), 6 keeps.
Lesson keep_weights_lesson() {
  Lesson l = lesson_of({{}, {train(400, 0.5)}, {}, {train(50, 0)}, {}, {}, {}});
  for (int i : {2, 3, 4, 6}) l.steps[static_cast<size_t>(i)].keep_weights = true;
  return l;
}

TEST(LessonPlayer, AStepThatKeepsWeightsReachedInOrderNeedsNoCatchUp) {
  LessonPlayer p(keep_weights_lesson());
  p.start(0);
  p.next(1);  // step 1: its own training, handed out as it comes
  EXPECT_FALSE(p.catch_up().reset);
  EXPECT_EQ(p.catch_up().train_steps, 0);
  ASSERT_EQ(p.due_actions(2).size(), 1u);
  p.next(3);  // step 2 keeps what step 1 trained (the lab finishes a handed-out training)
  EXPECT_FALSE(p.catch_up().reset);
  EXPECT_EQ(p.catch_up().train_steps, 0);
  p.next(4);  // step 3's own 50 steps are its animations, not a catch-up
  EXPECT_EQ(p.catch_up().train_steps, 0);
  p.due_actions(4);
  p.next(5);
  EXPECT_EQ(p.catch_up().train_steps, 0);
  p.previous(6);  // back within the run: the weights have at least what step 3 needs
  EXPECT_FALSE(p.catch_up().reset);
  EXPECT_EQ(p.catch_up().train_steps, 0);
}

TEST(LessonPlayer, AStepThatKeepsWeightsOpenedDirectlyTrainsItsRunFirst) {
  LessonPlayer p(keep_weights_lesson());
  p.start(0);
  p.go_to(4, 1);  // opened at step 5 (--lesson-step 5): fresh weights, then steps 2 and 4's training
  EXPECT_TRUE(p.catch_up().reset);
  EXPECT_EQ(p.catch_up().train_steps, 450);
  EXPECT_EQ(p.catch_up().from_steps, (std::vector<int>{1, 3}));
  EXPECT_EQ(catch_up_message(p.catch_up(), p.step()),
            "Step 5 goes on from the training of steps 2 and 4: the model starts from its seed and trains those "
            "450 steps first");
  p.go_to(2, 2);  // back into the run from a later step of it: nothing to add
  EXPECT_EQ(p.catch_up().train_steps, 0);

  // Back to a keeping step from a step that began anew (step 6 -> 5): start over.
  p.go_to(5, 3);
  EXPECT_FALSE(p.catch_up().reset);  // step 6 itself loads fresh weights
  p.previous(4);
  EXPECT_TRUE(p.catch_up().reset);
  EXPECT_EQ(p.catch_up().train_steps, 450);
  p.next(5);
  p.next(6);  // step 7 keeps step 6's weights, which trained nothing
  EXPECT_EQ(p.catch_up().train_steps, 0);

  // Left before its training was handed out (a delay of 0.5 s): step 3 trains step 2's 400 itself.
  p.go_to(1, 10);
  p.next(10.2);
  EXPECT_FALSE(p.catch_up().reset);
  EXPECT_EQ(p.catch_up().train_steps, 400);
  EXPECT_EQ(catch_up_message(p.catch_up(), p.step()),
            "Step 3 goes on from the training of step 2: the model trains those 400 steps first");

  // An explorer step has no lab weights to catch up, keep_weights or not.
  Lesson explorer = keep_weights_lesson();
  explorer.steps[4].view = "Explorer";
  LessonPlayer q(std::move(explorer));
  q.start(0);
  q.go_to(4, 1);
  EXPECT_FALSE(q.catch_up().reset);
  EXPECT_EQ(q.catch_up().train_steps, 0);
}

TEST(LessonPlayer, IntegerControls) {
  EXPECT_TRUE(LessonPlayer::is_integer_control("theorem_dp"));
  EXPECT_TRUE(LessonPlayer::is_integer_control("enlarged_head"));
  EXPECT_FALSE(LessonPlayer::is_integer_control("lr"));
  EXPECT_FALSE(LessonPlayer::is_integer_control("vocab"));
  for (const std::string& c : lesson_sweep_controls()) EXPECT_EQ(LessonPlayer::is_integer_control(c), c != "lr") << c;
}

TEST(LessonPlayer, FormatClock) {
  EXPECT_EQ(format_clock(0), "0:00");
  EXPECT_EQ(format_clock(7.9), "0:07");
  EXPECT_EQ(format_clock(754), "12:34");
  EXPECT_EQ(format_clock(3599), "59:59");
  EXPECT_EQ(format_clock(3723), "1:02:03");
  EXPECT_EQ(format_clock(-3), "0:00");
  EXPECT_EQ(format_clock(std::numeric_limits<double>::quiet_NaN()), "0:00");
  EXPECT_EQ(format_clock(std::numeric_limits<double>::infinity()), "277777:46:40");
}

}  // namespace
}  // namespace headroom::gui

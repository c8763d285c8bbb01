// The UI <-> background-owner hand-off shared by the lab engine, the theorem demo and the loader.
#include "app/gui/mailbox.h"

#include "app/gui/frame_pacing.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace headroom::gui {
namespace {

struct Req {
  std::optional<int> value;
  bool refresh = false;
};
struct Snap {
  int answered = -1;
  std::string note;
};
using Box = Mailbox<Req, Snap>;

TEST(Mailbox, TheLatestPendingRequestWinsWithAFreshId) {
  Box box;
  const auto a = box.post({1, false});
  const auto b = box.post({2, false});
  EXPECT_LT(a, b);
  std::optional<Box::Taken> taken;
  ASSERT_TRUE(box.wait(&taken));
  ASSERT_TRUE(taken);
  EXPECT_EQ(taken->id, b);
  EXPECT_EQ(taken->request.value, 2);
  EXPECT_FALSE(box.superseded());
}

TEST(Mailbox, UpdatesMergeIntoThePendingRequest) {
  Box box;
  box.update([](Req& r) { r.value = 5; });
  const auto id = box.update([](Req& r) { r.refresh = true; });
  std::optional<Box::Taken> taken;
  ASSERT_TRUE(box.wait(&taken));
  ASSERT_TRUE(taken);
  EXPECT_EQ(taken->id, id);
  EXPECT_EQ(taken->request.value, 5);  // kept by the second update
  EXPECT_TRUE(taken->request.refresh);
  // Taken: the next update starts from a default request.
  box.update([](Req& r) { r.refresh = true; });
  ASSERT_TRUE(box.wait(&taken));
  EXPECT_FALSE(taken->request.value.has_value());
}

TEST(Mailbox, WaitReturnsOnBusyWorkOrTimeoutWithoutARequest) {
  Box box;
  std::optional<Box::Taken> taken{Box::Taken{}};
  ASSERT_TRUE(box.wait(&taken, [] { return true; }));
  EXPECT_FALSE(taken);
  taken.emplace();
  ASSERT_TRUE(box.wait(&taken, {}, Box::Seconds(0.01)));
  EXPECT_FALSE(taken);
}

TEST(Mailbox, SnapshotsAreNeverNullAndPublishWithEditsACopy) {
  Box box;
  auto first = box.snapshot();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->answered, -1);
  box.publish(std::make_shared<const Snap>(Snap{3, "three"}));
  box.publish_with([](Snap& s) { s.note = "edited"; });
  auto now = box.snapshot();
  EXPECT_EQ(now->answered, 3);
  EXPECT_EQ(now->note, "edited");
  EXPECT_EQ(first->answered, -1);  // a reader's snapshot never changes under it
}

TEST(Mailbox, AnOwnerThreadAnswersTheNewestAndStopsOnClose) {
  Box box;
  std::thread owner([&] {
    std::optional<Box::Taken> taken;
    while (box.wait(&taken))
      if (taken) box.publish(std::make_shared<const Snap>(Snap{*taken->request.value, std::to_string(taken->id)}));
  });
  std::uint64_t last = 0;
  for (int i = 0; i < 100; ++i) last = box.post({i, false});
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (box.snapshot()->answered != 99 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(box.snapshot()->answered, 99);
  EXPECT_EQ(box.snapshot()->note, std::to_string(last));
  box.close();
  owner.join();  // returns: wait() is false once closed
  EXPECT_TRUE(box.closed());
  EXPECT_TRUE(box.superseded());
}

// A window waiting for events (frame_pacing.h) learns of every publish at once.
std::atomic<int> g_wakes{0};
TEST(Mailbox, PublishingWakesTheWaitingWindow) {
  g_ui_waker.store(+[] { ++g_wakes; });
  Box box;
  box.publish(std::make_shared<const Snap>(Snap{1, "a"}));
  box.publish_with([](Snap& s) { s.note = "b"; });
  box.post({3, false});  // a request is the UI's own: nothing to wake
  g_ui_waker.store(nullptr);
  box.publish(std::make_shared<const Snap>(Snap{2, "c"}));  // no waker installed: nothing called
  EXPECT_EQ(g_wakes.load(), 2);
  EXPECT_EQ(box.snapshot()->note, "c");
}

TEST(FramePacing, TheWindowWaitsOnlyWhenNothingMovesOrWaits) {
  PacingInputs idle;
  idle.since_input_s = 5.0;
  EXPECT_FALSE(draw_at_full_rate(idle));
  for (bool PacingInputs::*why :
       {&PacingInputs::automation, &PacingInputs::lesson, &PacingInputs::view_busy, &PacingInputs::text_input}) {
    PacingInputs p = idle;
    p.*why = true;
    EXPECT_TRUE(draw_at_full_rate(p));
  }
  PacingInputs recent = idle;
  recent.since_input_s = kActiveAfterInputSeconds * 0.5;  // hover highlights and tooltips follow input
  EXPECT_TRUE(draw_at_full_rate(recent));
  recent.since_input_s = kActiveAfterInputSeconds;
  EXPECT_FALSE(draw_at_full_rate(recent));
}

// The status bar's rate counts the frames drawn at the cap, not the idle time before them.
TEST(FramePacing, FrameRateCountsOnlyTheLastSecondAtTheCap) {
  FrameRate rate;
  EXPECT_EQ(rate.fps(), 0.0);
  double t = 0.0;
  for (int i = 0; i < 120; ++i, t += 1.0 / 60) rate.frame(t, false);
  EXPECT_NEAR(rate.fps(), 60.0, 0.5);
  for (int i = 0; i < 8; ++i) rate.frame(t += kIdleWaitSeconds, true);  // idle: 4 a second
  EXPECT_EQ(rate.fps(), 0.0);  // one frame since the wait: no interval at the cap yet
  // Input woke the last one; the frames after it follow at the cap (30 a second here).
  for (int i = 0; i < 10; ++i) rate.frame(t += 1.0 / 30, false);
  EXPECT_NEAR(rate.fps(), 30.0, 0.5);  // ImGui's 120-frame average would still hold the idle gaps
}

}  // namespace
}  // namespace headroom::gui

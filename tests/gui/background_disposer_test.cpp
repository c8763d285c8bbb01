// BackgroundDisposer: what the view drops dies on another thread, and nothing is left behind.
#include "app/gui/background_disposer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>

namespace headroom::gui {
namespace {

struct Witness {
  Witness(std::atomic<int>* d, std::thread::id* t) : deaths(d), died_on(t) {}
  Witness(const Witness&) = delete;
  Witness& operator=(const Witness&) = delete;
  std::atomic<int>* deaths;
  std::thread::id* died_on;
  ~Witness() {
    *died_on = std::this_thread::get_id();
    ++*deaths;
  }
};

TEST(BackgroundDisposer, FreesOnItsOwnThreadAndDrainsBeforeItStops) {
  std::atomic<int> deaths{0};
  std::thread::id died_on;
  {
    BackgroundDisposer disposer;
    auto thing = std::make_shared<Witness>(&deaths, &died_on);
    const auto ticket = disposer.dispose(std::move(thing));
    EXPECT_EQ(thing, nullptr);  // the caller's reference went with it
    EXPECT_EQ(disposer.posted(), ticket);
    disposer.wait_until_freed(ticket);
    EXPECT_EQ(deaths.load(), 1);
    EXPECT_NE(died_on, std::this_thread::get_id());
    disposer.wait_until_freed(disposer.dispose(nullptr));  // nothing to free, still counted
    // Whatever is still pending when the disposer goes is freed, not leaked.
    for (int i = 0; i < 100; ++i) disposer.dispose(std::make_shared<Witness>(&deaths, &died_on));
  }
  EXPECT_EQ(deaths.load(), 101);
}

// What the explorer does when DBs are opened in quick succession: each new loader waits for the
// last one to be freed, and that last one may itself still be waiting. It must not deadlock.
TEST(BackgroundDisposer, AWaiterThatIsItselfDisposedDoesNotDeadlock) {
  BackgroundDisposer disposer;
  struct Waiter {
    std::thread t;
    ~Waiter() { t.join(); }
  };
  std::shared_ptr<Waiter> previous;
  for (int i = 0; i < 20; ++i) {
    disposer.dispose(std::move(previous));
    const auto ticket = disposer.posted();
    previous = std::make_shared<Waiter>();
    previous->t = std::thread([&disposer, ticket] { disposer.wait_until_freed(ticket); });
  }
  disposer.dispose(std::move(previous));
  disposer.wait_until_freed(disposer.posted());
}

TEST(BackgroundDisposer, SomethingStillHeldElsewhereDiesWithItsLastOwner) {
  std::atomic<int> deaths{0};
  std::thread::id died_on;
  auto shared = std::make_shared<Witness>(&deaths, &died_on);
  {
    BackgroundDisposer disposer;
    disposer.dispose(shared);
  }
  EXPECT_EQ(deaths.load(), 0);
  shared.reset();
  EXPECT_EQ(deaths.load(), 1);
  EXPECT_EQ(died_on, std::this_thread::get_id());
}

}  // namespace
}  // namespace headroom::gui

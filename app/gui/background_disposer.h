// Frees big things off the UI thread. Dropping an explorer loader joins its thread, and dropping
// a table of 100,000 rows takes ~100 ms of free(): done in a frame, either is a visible hitch.
// The view hands them here instead; a thread of its own lets go of them in the order given.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "app/gui/thread_priority.h"

namespace headroom::gui {

class BackgroundDisposer {
 public:
  BackgroundDisposer() : thread_([this] { loop(); }) {}
  ~BackgroundDisposer() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closing_ = true;
    }
    wake_.notify_one();
    thread_.join();  // frees whatever is still pending first
  }
  BackgroundDisposer(const BackgroundDisposer&) = delete;
  BackgroundDisposer& operator=(const BackgroundDisposer&) = delete;

  // Takes the caller's reference; the object dies on the disposer's thread (unless someone else
  // still holds it: then it dies wherever they let go). Returns its ticket for wait_until_freed.
  std::uint64_t dispose(std::shared_ptr<const void> thing) {
    std::uint64_t ticket = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      pending_.push_back(std::move(thing));
      ticket = ++posted_;
    }
    wake_.notify_one();
    return ticket;
  }

  // The ticket of the last thing handed over (0: none yet).
  std::uint64_t posted() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return posted_;
  }

  // Blocks until everything up to `ticket` is freed. A new DB's loader waits here before it
  // reads: freeing the last DB's table while building the next one makes both fight over
  // malloc's locks (opening a 100,000-run DB went from ~1.0 s to ~1.5 s). Things handed over
  // later (the waiting loader itself, say) are not waited for, so this cannot deadlock.
  void wait_until_freed(std::uint64_t ticket) {
    std::unique_lock<std::mutex> lock(mutex_);
    freed_cv_.wait(lock, [&] { return freed_ >= ticket; });
  }

 private:
  void loop() {
    lower_this_thread_priority(5);
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      wake_.wait(lock, [this] { return closing_ || !pending_.empty(); });
      if (pending_.empty()) return;  // closing, and nothing left
      std::shared_ptr<const void> next = std::move(pending_.front());
      pending_.pop_front();
      lock.unlock();
      next.reset();  // the free happens here, outside the lock
      lock.lock();
      ++freed_;
      freed_cv_.notify_all();
    }
  }

  mutable std::mutex mutex_;
  std::condition_variable wake_, freed_cv_;
  std::deque<std::shared_ptr<const void>> pending_;
  std::uint64_t posted_ = 0, freed_ = 0;
  bool closing_ = false;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace headroom::gui

// Mailbox: the hand-off between the UI thread and one background owner (the lab engine, the
// theorem demo, the explorer loader). The UI posts requests, the latest wins (a slider dragged
// through ten values computes one or two of them), and reads immutable snapshots; neither side
// ever waits for the other's work, only for a short lock.
//
//   UI thread:    id = box.post(request);  ...  auto s = box.snapshot();  // never null
//   owner thread: while (box.wait(&taken)) { if (taken) work(*taken); box.publish(snapshot); }
//
// A request may be built up from parts (`update`: e.g. the explorer's wanted curves and a
// refresh, posted separately, arrive together).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

namespace headroom::gui {

// Wakes a window that waits for events (frame_pacing.h) when a background owner publishes: the
// App installs glfwPostEmptyEvent (safe from any thread) while its window exists; unset (tests,
// the worker), publishing wakes nothing.
inline std::atomic<void (*)()> g_ui_waker{nullptr};
inline void wake_ui() {
  if (void (*wake)() = g_ui_waker.load()) wake();
}

template <class Request, class Snapshot>
class Mailbox {
 public:
  struct Taken {
    std::uint64_t id = 0;
    Request request;
  };
  using Seconds = std::chrono::duration<double>;

  explicit Mailbox(std::shared_ptr<const Snapshot> first = std::make_shared<const Snapshot>())
      : published_(std::move(first)) {}
  Mailbox(const Mailbox&) = delete;
  Mailbox& operator=(const Mailbox&) = delete;

  // UI side. Replaces any pending request; returns its id.
  std::uint64_t post(Request request) {
    return update([&](Request& pending) { pending = std::move(request); });
  }
  // UI side. Edits the pending request in place (a default-constructed one when none is pending)
  // and gives the merged request a new id.
  template <class Edit>
  std::uint64_t update(Edit&& edit) {
    std::uint64_t id;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!pending_) pending_.emplace();
      edit(*pending_);
      id = ++next_id_;
      pending_id_ = id;
    }
    cv_.notify_all();
    return id;
  }
  // The newest snapshot; never null.
  std::shared_ptr<const Snapshot> snapshot() const {
    std::lock_guard<std::mutex> lock(mu_);
    return published_;
  }

  // Owner side. Blocks until a request is pending, `busy()` (called under the lock) says there is
  // other work, `timeout` passes, or close(). Returns false once closed; else *taken holds the
  // request, if one was pending.
  bool wait(std::optional<Taken>* taken, const std::function<bool()>& busy = {},
            std::optional<Seconds> timeout = std::nullopt) {
    std::unique_lock<std::mutex> lock(mu_);
    auto ready = [&] { return closed_ || pending_.has_value() || (busy && busy()); };
    if (timeout) cv_.wait_for(lock, *timeout, ready);
    else cv_.wait(lock, ready);
    if (closed_) return false;
    taken->reset();
    if (pending_) {
      taken->emplace(Taken{pending_id_, std::move(*pending_)});
      pending_.reset();
    }
    return true;
  }
  // Owner side: a newer request is waiting (or the mailbox closed): stop what is superseded.
  bool superseded() const {
    std::lock_guard<std::mutex> lock(mu_);
    return closed_ || pending_.has_value();
  }
  bool closed() const {
    std::lock_guard<std::mutex> lock(mu_);
    return closed_;
  }
  void publish(std::shared_ptr<const Snapshot> snapshot) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      published_ = std::move(snapshot);
    }
    wake_ui();
  }
  // Owner side: replaces parts of the published snapshot (a copy is edited and published).
  template <class Edit>
  void publish_with(Edit&& edit) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto next = std::make_shared<Snapshot>(*published_);
      edit(*next);
      published_ = std::move(next);
    }
    wake_ui();
  }
  // Either side: wakes the owner for good; wait() returns false from now on.
  void close() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      closed_ = true;
    }
    cv_.notify_all();
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::optional<Request> pending_;
  std::uint64_t pending_id_ = 0, next_id_ = 0;
  std::shared_ptr<const Snapshot> published_;
  bool closed_ = false;
};

}  // namespace headroom::gui

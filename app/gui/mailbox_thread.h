// MailboxThread: a Mailbox (mailbox.h) with its own background thread that answers each request
// it takes with `answer` and publishes the result. The simplest owner: no other work, no
// cancellation; latest wins, as in any Mailbox. The explorer's table order and its paper figures
// are computed this way.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <utility>

#include "app/gui/mailbox.h"
#include "app/gui/thread_priority.h"

namespace headroom::gui {

template <class Request, class Snapshot>
class MailboxThread {
 public:
  // Runs on the thread: the snapshot that answers request `id`.
  using Answer = std::function<std::shared_ptr<const Snapshot>(std::uint64_t id, Request& request)>;

  // `nice`: how far below the UI thread it runs (the UI keeps the last answer meanwhile).
  explicit MailboxThread(Answer answer, int nice = 5) : answer_(std::move(answer)) {
    thread_ = std::thread([this, nice] {
      lower_this_thread_priority(nice);
      std::optional<typename Mailbox<Request, Snapshot>::Taken> taken;
      while (box_.wait(&taken))
        if (taken) box_.publish(answer_(taken->id, taken->request));
    });
  }
  ~MailboxThread() {
    box_.close();
    thread_.join();
  }
  MailboxThread(const MailboxThread&) = delete;
  MailboxThread& operator=(const MailboxThread&) = delete;

  // UI side. Replaces any pending request; returns its id.
  std::uint64_t post(Request request) { return box_.post(std::move(request)); }
  // UI side. The newest answer; never null (a default Snapshot before the first).
  std::shared_ptr<const Snapshot> snapshot() const { return box_.snapshot(); }

 private:
  Mailbox<Request, Snapshot> box_;
  Answer answer_;
  std::thread thread_;  // last: starts once the mailbox and `answer_` exist
};

}  // namespace headroom::gui

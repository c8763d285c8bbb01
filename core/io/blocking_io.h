// Blocking I/O never runs on the GUI's UI thread: a frame would wait for it.
//
// The GUI marks its UI thread once (mark_ui_thread). Functions that block on the disk or decode
// large blobs (opening an experiments DB, preparing SQL, decoding safetensors) call
// note_blocking_io(what): on the UI thread that is a bug, so it is counted (the GUI's --state-out
// reports the count and the GUI tests require 0), reported once per kind on stderr, and fatal in
// debug builds. Off the UI thread, and in programs that never mark one (the worker), it is a
// thread-local read. Header-only: experiments_db and core both use it without linking each other.
#pragma once

#include <atomic>
#include <cassert>
#include <cstdio>
#include <cstring>

namespace headroom::io {

namespace detail {
inline thread_local bool t_ui_thread = false;
inline std::atomic<long> g_blocking_on_ui{0};
inline std::atomic<const char*> g_last_reported{nullptr};
}  // namespace detail

// Marks (or unmarks) the calling thread as the UI thread.
inline void mark_ui_thread(bool ui = true) { detail::t_ui_thread = ui; }
inline bool on_ui_thread() { return detail::t_ui_thread; }

// How many blocking calls ran on the UI thread since the process started.
inline long blocking_calls_on_ui_thread() { return detail::g_blocking_on_ui.load(); }

// `what` must be a string literal ("SQL prepare", "safetensors decode").
inline void note_blocking_io(const char* what) {
  if (!detail::t_ui_thread) return;
  detail::g_blocking_on_ui.fetch_add(1);
  const char* last = detail::g_last_reported.exchange(what);
  if (!last || std::strcmp(last, what) != 0)
    std::fprintf(stderr,
                 "headroom: bug: %s ran on the UI thread (a frame waited for it); it belongs to a "
                 "background owner (explorer loader, lab engine)\n",
                 what);
  assert(!"blocking I/O on the UI thread");
}

}  // namespace headroom::io

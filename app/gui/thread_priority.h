#pragma once
// Background threads of the GUI (lab engine, Theorem 1 fits, explorer reader) run below the UI
// thread and the GL rasterizer's threads: frames come first, results arrive in the time left.
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace headroom::gui {

// Lowers the calling thread's priority (Linux nice values are per thread). Call it before the
// thread starts any OpenMP team, so the team's threads inherit it.
inline void lower_this_thread_priority(int nice) {
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), nice);
}

}  // namespace headroom::gui

// thread_priority.h — the calling thread's CPU priority (its nice value).
//
// Linux applies setpriority() to one thread when given that thread's id, so a process can run
// its event path at normal or raised priority and its background work below it. Priorities
// are a preference: callers log a refusal (raising needs root or CAP_SYS_NICE) and go on.
#pragma once

#include <sys/resource.h>
#include <unistd.h>

namespace fathom {

// For work that may wait while events flow: WAL checkpoints, changelog clears. Such a thread
// still gets about a tenth of a CPU that the event path keeps busy, so it never starves.
inline constexpr int kBackgroundNice = 10;

// Sets the calling thread's nice value; false (errno set) when the system refuses it.
inline bool SetThisThreadNice(int nice) {
  return setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), nice) == 0;
}

}  // namespace fathom

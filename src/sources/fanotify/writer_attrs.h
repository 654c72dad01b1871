// writer_attrs.h — who made a change, as fanotify reports it: the writing process's id and,
// while that process is still there to ask, its process group, as an event's attrs
// ({"pid":1234,"pgid":1200}). The rules' runner starts each action in a process group of its
// own, so an event whose pgid is one of its actions is recognised as that action's own.
//
// A process group is read from /proc/PID/stat once per process and kept for a second, so a
// process making a million changes costs a handful of reads. A process that exited before
// its events were read has no pgid: only "pid" is written.
//
// Ownership: plain value. Threading: one thread (the source's reader).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <unordered_map>

namespace fathom::fanotify_internal {

class WriterAttrs {
 public:
  // The attrs object for a change made by `pid` (0: unknown, ""), at `now_ns` (monotonic).
  const std::string& For(pid_t pid, int64_t now_ns);

 private:
  struct Known {
    std::string attrs;
    int64_t until_ns = 0;
  };
  std::unordered_map<pid_t, Known> known_;
  std::string none_;
};

// The process group of `pid` from /proc/PID/stat, or -1 when the process is gone.
pid_t ProcessGroupOf(pid_t pid);

}  // namespace fathom::fanotify_internal

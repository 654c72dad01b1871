// fanotify_records.h — one read(2) of a FID-reporting fanotify group, parsed into records.
//
// Contract: ParseRecordsInto() decodes fanotify_event_metadata and its info records
// (FAN_EVENT_INFO_TYPE_FID / DFID / DFID_NAME and, for FAN_RENAME, OLD_/NEW_DFID_NAME) into
// plain values. An event on a directory itself (a DFID_NAME record named ".", or a DFID record
// without a FID record) is normalised to `object` = that directory with no `dir`/`name`.
// Records caused by `skip_pid` (fathom's own process) are dropped. Pure functions on a buffer;
// no kernel calls, no shared state.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>

#include "sources/fanotify/handle_key.h"

namespace fathom::fanotify_internal {

struct RawRecord {
  uint64_t mask = 0;  // FAN_* bits as read (possibly several merged by the kernel)
  int32_t pid = 0;
  HandleKey dir;      // the directory holding `name` (old parent for FAN_RENAME); may be empty
  std::string name;   // entry name in `dir`; empty when the record is about `object` itself
  HandleKey new_dir;  // FAN_RENAME: the new parent
  std::string new_name;
  HandleKey object;  // the object itself (FID record); empty when the kernel gave none

  bool operator==(const RawRecord&) const = default;
};

// Parses the records in buf[0, size) into slots[count, ...): slots already there are
// overwritten in place (their strings keep their storage, so a reader that reuses one deque
// allocates nothing once it is warm) and the deque grows when it runs out; `count` is
// advanced past the records written. Returns false (keeping what it parsed) when the buffer
// holds a record of an unknown metadata version.
bool ParseRecordsInto(const void* buf, size_t size, pid_t skip_pid, std::deque<RawRecord>& slots,
                      size_t& count);

}  // namespace fathom::fanotify_internal

// event_plan.h — the order in which a batch of fanotify records becomes events.
//
// fanotify merges a new event into a still-queued one about the same object (same parent
// handle, name and object handle, same process): CREATE|MODIFY|CLOSE_WRITE for a written file,
// or CREATE|DELETE|ONDIR for a directory made and removed while the first record was queued.
// PlanSteps() splits each merged mask into one step per kind in the order those kinds happen
// to one object (CREATE, MOVED_TO, OPEN, ACCESS, MODIFY, ATTRIB, CLOSE_WRITE, CLOSE_NOWRITE,
// MOVED_FROM, DELETE, DELETE_SELF, MOVE_SELF). A kind that ends the object's life under that
// name (DELETE, DELETE_SELF, MOVE_SELF, an unpaired MOVED_FROM) but was merged behind an
// earlier kind is moved after the last record of the batch that mentions the object (as
// parent or as object): a directory's removal is reported after what happened inside it.
// Without FAN_RENAME, MOVED_FROM is paired with the next MOVED_TO of the same object (or,
// when the kernel gives no object handle, with an immediately following MOVED_TO of the same
// process) and the pair is placed at the MOVED_TO.
// Pure functions; no kernel calls, no shared state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "sources/fanotify/fanotify_records.h"

namespace fathom::fanotify_internal {

struct Step {
  enum class Type : uint8_t {
    kSingle,    // one kind of `record`
    kRename,    // a FAN_RENAME record: MOVED_FROM old name, MOVED_TO new name
    kMovePair,  // MOVED_FROM of record `from`, MOVED_TO of `record`
    kOverflow,  // the kernel queue overflowed
  };
  Type type = Type::kSingle;
  uint32_t kind = 0;  // kSingle: one FAN_* kind bit
  size_t record = 0;
  size_t from = 0;  // kMovePair only

  bool operator==(const Step&) const = default;
};

// The steps for records[begin, end), appended to `out`.
void PlanSteps(const std::deque<RawRecord>& records, size_t begin, size_t end,
               std::vector<Step>& out);

}  // namespace fathom::fanotify_internal

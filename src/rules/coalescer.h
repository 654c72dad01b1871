// coalescer.h — what a rule's matching events become before they are delivered: held per path
// until the path is quiet (settle) or has waited long enough (max_wait), or per directory until
// a sentinel file appears there; a CREATE (or MOVED_TO) and a DELETE (or MOVED_FROM) of the
// same path while held cancel each other; repeated events of one kind on a path collapse into
// the newest (every id kept); ready groups of a rule are batched by count and time.
//
// Time is the stream's: the caller passes `now_ns` = the newest event time it has read while
// it reads a backlog, and the wall clock once it has caught up, so that replaying the same
// events after a restart forms the same groups. Nothing is ever dropped for room: past
// `max_held` held groups the oldest is handed out early.
//
// Ownership: plain value type. Threading: one thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "condition/glob.h"
#include "fathom/event.h"

namespace fathom::rules {

struct Coalescing {
  int64_t settle_ns = 0;      // fire once the path saw no event for this long (0: at once)
  int64_t max_wait_ns = 0;    // fire anyway this long after the first held event (0: no bound)
  std::string sentinel;       // a name glob: hold per directory until such a file appears there
  size_t batch_max = 1;       // deliver up to this many ready groups of the rule together
  int64_t batch_wait_ns = 0;  // ... waiting at most this long for the batch to fill
};

// One delivery's worth of events: a rule's group (or batch of groups).
struct Group {
  size_t rule = 0;
  std::string key;                // the path (the directory for a sentinel rule; the first group's in a batch)
  std::vector<Event> events;      // one per (path, kind): the newest, in id order
  std::vector<uint64_t> ids;      // every event id it stands for, ascending
};

class Coalescer {
 public:
  // `rules[i]` is rule i's coalescing.
  explicit Coalescer(std::vector<Coalescing> rules, size_t max_held = 100000);

  // Takes a matching event of `rule` (events come in id order).
  void Add(size_t rule, const Event& event);
  // Appends the groups ready at `now_ns` to `out`, in the order of their first event id.
  void TakeReady(int64_t now_ns, std::vector<Group>& out);
  // The smallest id of an event still held (nullopt: none): the stream's cursor may not pass it.
  std::optional<uint64_t> HeldFrom() const;
  // When the next group may become ready without a new event (nullopt: none held).
  std::optional<int64_t> NextDue() const;
  size_t held() const { return held_.size(); }
  // Nothing held: no path settling, no batch filling.
  bool empty() const { return held_.empty() && batches_.empty(); }
  // Events that cancelled out (a create and a delete of a held path), for the status.
  uint64_t cancelled() const { return cancelled_; }

 private:
  struct Held {
    Group group;
    int64_t first_ns = 0;
    int64_t last_ns = 0;
    bool sentinel_seen = false;
  };
  struct Batch {
    Group group;
    size_t groups = 0;
    int64_t first_ns = 0;
  };
  using Key = std::pair<size_t, std::string>;

  bool Ready(const Held& h, int64_t now_ns) const;
  void Release(Held&& h, int64_t now_ns, std::vector<Group>& out);

  std::vector<Coalescing> rules_;
  std::vector<std::optional<condition::Glob>> sentinels_;
  size_t max_held_;
  std::map<Key, Held> held_;
  std::map<size_t, Batch> batches_;  // per rule, ready groups waiting for their batch to fill
  uint64_t cancelled_ = 0;
};

}  // namespace fathom::rules

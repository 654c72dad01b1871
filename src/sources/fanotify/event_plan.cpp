#include "sources/fanotify/event_plan.h"

#include <sys/fanotify.h>

#include <algorithm>
#include <array>
#include <unordered_map>

#include "fathom/config.h"

namespace fathom::fanotify_internal {
namespace {

// The order in which kinds happen to one object.
constexpr std::array<uint32_t, 12> kNaturalOrder = {
    FAN_CREATE,      FAN_MOVED_TO,      FAN_OPEN,       FAN_ACCESS, FAN_MODIFY,      FAN_ATTRIB,
    FAN_CLOSE_WRITE, FAN_CLOSE_NOWRITE, FAN_MOVED_FROM, FAN_DELETE, FAN_DELETE_SELF, FAN_MOVE_SELF};
// Kinds after which the object no longer has the name (or the identity) the record carries.
constexpr uint32_t kTerminal = FAN_MOVED_FROM | FAN_DELETE | FAN_DELETE_SELF | FAN_MOVE_SELF;

bool IsRename(uint64_t mask) {
#if HAVE_FAN_RENAME
  return (mask & FAN_RENAME) != 0;
#else
  (void)mask;
  return false;
#endif
}

}  // namespace

void PlanSteps(const std::deque<RawRecord>& records, size_t begin, std::vector<Step>& out) {
  const size_t end = records.size();
  // The last record of the batch that mentions each handle.
  std::unordered_map<HandleKey, size_t> last_ref;
  for (size_t i = begin; i < end; ++i) {
    const RawRecord& r = records[i];
    for (const HandleKey* k : {&r.dir, &r.new_dir, &r.object}) {
      if (!k->empty()) last_ref[*k] = i;
    }
  }
  // MOVED_FROM/MOVED_TO pairs (kernels or settings without FAN_RENAME).
  std::unordered_map<size_t, size_t> to_of_from;  // MOVED_FROM record -> MOVED_TO record
  std::unordered_map<size_t, size_t> from_of_to;
  std::unordered_map<HandleKey, size_t> open_from;  // object -> unpaired MOVED_FROM record
  for (size_t i = begin; i < end; ++i) {
    const RawRecord& r = records[i];
    if (IsRename(r.mask)) continue;
    if (r.mask & FAN_MOVED_TO) {
      size_t from = end;
      if (!r.object.empty()) {
        auto it = open_from.find(r.object);
        if (it != open_from.end()) {
          from = it->second;
          open_from.erase(it);
        }
      } else if (i > begin) {
        const RawRecord& prev = records[i - 1];
        if ((prev.mask & FAN_MOVED_FROM) && prev.object.empty() && prev.pid == r.pid &&
            !to_of_from.contains(i - 1)) {
          from = i - 1;
        }
      }
      if (from != end) {
        to_of_from[from] = i;
        from_of_to[i] = from;
      }
    }
    if ((r.mask & FAN_MOVED_FROM) && !r.object.empty()) open_from[r.object] = i;
  }

  std::unordered_map<size_t, std::vector<Step>> deferred;  // placed after record `key`
  for (size_t i = begin; i < end; ++i) {
    const RawRecord& r = records[i];
    if (r.mask & FAN_Q_OVERFLOW) {
      out.push_back(Step{Step::Type::kOverflow, 0, i, 0});
    } else if (IsRename(r.mask)) {
      out.push_back(Step{Step::Type::kRename, 0, i, 0});
    } else {
      bool first = true;
      for (uint32_t k : kNaturalOrder) {
        if (!(r.mask & k)) continue;
        if (k == FAN_MOVED_TO && from_of_to.contains(i)) {
          out.push_back(Step{Step::Type::kMovePair, 0, i, from_of_to[i]});
        } else if (k == FAN_MOVED_FROM && to_of_from.contains(i)) {
          // Reported with its MOVED_TO.
        } else if (!first && (k & kTerminal) && !r.object.empty()) {
          size_t at = std::max(i, last_ref[r.object]);
          deferred[at].push_back(Step{Step::Type::kSingle, k, i, 0});
        } else {
          out.push_back(Step{Step::Type::kSingle, k, i, 0});
        }
        first = false;
      }
    }
    auto it = deferred.find(i);
    if (it != deferred.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
      deferred.erase(it);
    }
  }
}

}  // namespace fathom::fanotify_internal

#include "sources/fanotify/event_plan.h"

#include <sys/fanotify.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <string_view>
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

// Whether a step of `r` will be deferred after the last record mentioning r.object: a
// terminal kind merged behind an earlier kind (see the loop at the end of PlanSteps).
bool HasMergedTerminal(const RawRecord& r) {
  if (r.object.empty() || (r.mask & FAN_Q_OVERFLOW) || IsRename(r.mask)) return false;
  bool first = true;
  for (uint32_t k : kNaturalOrder) {
    if (!(r.mask & k)) continue;
    if (!first && (k & kTerminal)) return true;
    first = false;
  }
  return false;
}

// Open-addressing map from a handle (a view of a record's key, which outlives the map) to a
// record index, sized once for the entries it will hold: no allocation per entry.
class HandleIndex {
 public:
  explicit HandleIndex(size_t entries) {
    size_t capacity = 16;
    while (capacity < 2 * entries) capacity <<= 1;
    slots_.resize(capacity);
  }
  // Adds `key` -> `value` unless `key` is there already.
  void Emplace(std::string_view key, size_t value) {
    const uint64_t hash = std::hash<std::string_view>{}(key);
    Slot& s = Locate(key, hash);
    if (s.used) return;
    s = Slot{hash, key, value, true};
  }
  // The value of `key`, or nullptr.
  size_t* Find(std::string_view key) {
    Slot& s = Locate(key, std::hash<std::string_view>{}(key));
    return s.used ? &s.value : nullptr;
  }

 private:
  struct Slot {
    uint64_t hash = 0;
    std::string_view key;
    size_t value = 0;
    bool used = false;
  };
  Slot& Locate(std::string_view key, uint64_t hash) {
    const size_t mask = slots_.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (!s.used || (s.hash == hash && s.key == key)) return s;
    }
  }
  std::vector<Slot> slots_;  // never more than half full
};

}  // namespace

void PlanSteps(const std::deque<RawRecord>& records, size_t begin, size_t end,
               std::vector<Step>& out) {
  // Keys are views of the records' handles, which outlive this call.
  // The last record of the batch that mentions each handle, for the handles whose terminal
  // kinds are deferred (most batches have none).
  size_t merged_terminals = 0;
  size_t first_merged = end;
  for (size_t i = begin; i < end; ++i) {
    if (!HasMergedTerminal(records[i])) continue;
    ++merged_terminals;
    first_merged = std::min(first_merged, i);
  }
  std::optional<HandleIndex> last_ref;
  if (merged_terminals > 0) {
    last_ref.emplace(merged_terminals);
    for (size_t i = first_merged; i < end; ++i) {
      if (HasMergedTerminal(records[i])) last_ref->Emplace(records[i].object, i);
    }
    // Records before the first entry cannot move it later. Most records of a batch share
    // their parent directory: its lookup is reused while it repeats.
    const HandleKey* prev_dir = nullptr;
    size_t* prev_dir_last = nullptr;
    for (size_t i = first_merged; i < end; ++i) {
      const RawRecord& r = records[i];
      if (!r.dir.empty()) {
        if (prev_dir == nullptr || *prev_dir != r.dir) {
          prev_dir = &r.dir;
          prev_dir_last = last_ref->Find(r.dir);
        }
        if (prev_dir_last != nullptr) *prev_dir_last = i;
      }
      for (const HandleKey* k : {&r.new_dir, &r.object}) {
        if (k->empty()) continue;
        if (size_t* last = last_ref->Find(*k)) *last = i;
      }
    }
  }
  // MOVED_FROM/MOVED_TO pairs (kernels or settings without FAN_RENAME).
  std::unordered_map<size_t, size_t> to_of_from;  // MOVED_FROM record -> MOVED_TO record
  std::unordered_map<size_t, size_t> from_of_to;
  std::unordered_map<std::string_view, size_t> open_from;  // object -> unpaired MOVED_FROM record
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

  // Deferred steps placed after a later record `key`; those placed after their own record
  // (the usual case) wait in `own`, behind any placed there by earlier records.
  std::unordered_map<size_t, std::vector<Step>> deferred;
  std::array<Step, kNaturalOrder.size()> own;
  for (size_t i = begin; i < end; ++i) {
    const RawRecord& r = records[i];
    size_t owns = 0;
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
          const size_t at = std::max(i, *last_ref->Find(r.object));
          const Step step{Step::Type::kSingle, k, i, 0};
          if (at == i) {
            own[owns++] = step;
          } else {
            deferred[at].push_back(step);
          }
        } else {
          out.push_back(Step{Step::Type::kSingle, k, i, 0});
        }
        first = false;
      }
    }
    if (!deferred.empty()) {
      auto it = deferred.find(i);
      if (it != deferred.end()) {
        out.insert(out.end(), it->second.begin(), it->second.end());
        deferred.erase(it);
      }
    }
    out.insert(out.end(), own.begin(), own.begin() + static_cast<std::ptrdiff_t>(owns));
  }
}

}  // namespace fathom::fanotify_internal

// event.h — the one standard file-system event every source produces.
//
// Kinds use inotify's vocabulary and inotify's bit values, so masks read the same everywhere
// and are stored as plain integers. OVERFLOW and PARENT_REMOVED are fathom's own kinds.
// Event is a plain value type: no sharing, no locking.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fathom {

namespace kind {
inline constexpr uint32_t kAccess = 0x00000001;
inline constexpr uint32_t kModify = 0x00000002;
inline constexpr uint32_t kAttrib = 0x00000004;
inline constexpr uint32_t kCloseWrite = 0x00000008;
inline constexpr uint32_t kCloseNowrite = 0x00000010;
inline constexpr uint32_t kOpen = 0x00000020;
inline constexpr uint32_t kMovedFrom = 0x00000040;
inline constexpr uint32_t kMovedTo = 0x00000080;
inline constexpr uint32_t kCreate = 0x00000100;
inline constexpr uint32_t kDelete = 0x00000200;
inline constexpr uint32_t kDeleteSelf = 0x00000400;
inline constexpr uint32_t kMoveSelf = 0x00000800;
inline constexpr uint32_t kOverflow = 0x00004000;
inline constexpr uint32_t kParentRemoved = 0x00010000;
inline constexpr uint32_t kIsDir = 0x40000000;

// Every kind a source can report (ISDIR excluded: it is a flag, not a kind).
inline constexpr uint32_t kAll = kAccess | kModify | kAttrib | kCloseWrite | kCloseNowrite |
                                 kOpen | kMovedFrom | kMovedTo | kCreate | kDelete |
                                 kDeleteSelf | kMoveSelf | kOverflow | kParentRemoved;
// What `fathom watch` reports when no --event is given: every change to the tree, but not
// reads (ACCESS, OPEN, CLOSE_NOWRITE), which a change monitor's own scans would feed back.
inline constexpr uint32_t kDefault = kAll & ~(kAccess | kOpen | kCloseNowrite);
// Kinds that are always delivered whatever the filter: a consumer must learn of loss.
inline constexpr uint32_t kAlwaysDelivered = kOverflow;
}  // namespace kind

struct Event {
  uint64_t id = 0;       // assigned by the store (or the pipeline without one); 0 = unassigned
  int64_t ts_ns = 0;     // nanoseconds since the epoch, when the source observed the event
  uint32_t mask = 0;     // kind bits, see namespace kind
  uint32_t cookie = 0;   // shared by the MOVED_FROM/MOVED_TO halves of one rename, else 0
  std::string root;      // the watched root the event is reported under (absolute)
  std::string path;      // absolute path of the object the event is about
  std::string source;    // source name: "inotify", "fanotify", ...
  std::string attrs;     // extra JSON object members from the source ("" or "{...}")

  bool operator==(const Event&) const = default;
};

// "CREATE,ISDIR" — kind names in inotify bit order, ISDIR last.
std::string KindNames(uint32_t mask);
// Appends KindNames(mask) to `out` without a temporary string.
void AppendKindNames(uint32_t mask, std::string& out);
// The names of `mask` as a list, same order as KindNames.
std::vector<std::string_view> KindNameList(uint32_t mask);
// "CREATE" -> kCreate; also accepts lower case and "CLOSE" (CLOSE_WRITE|CLOSE_NOWRITE),
// "MOVE" (MOVED_FROM|MOVED_TO). nullopt for an unknown name.
std::optional<uint32_t> ParseKind(std::string_view name);

// Path of `path` relative to `root`, always starting with '/' ("/" for the root itself),
// as inotifywait -r and FSMonitor print it.
std::string RelativePath(std::string_view root, std::string_view path);

// True when `path` equals `prefix` or lies under it on a path-component boundary ("/a" covers
// "/a" and "/a/b", never "/ab"); "" and "/" cover every path. `prefix` has no trailing '/'.
bool PathUnder(std::string_view path, std::string_view prefix);
// What `--path PREFIX [-r]` selects in every command: `prefix` itself and its direct entries,
// or with `recursive` everything under it (PathUnder). "" selects every path.
bool PathSelected(std::string_view path, std::string_view prefix, bool recursive);

// Now, in nanoseconds since the epoch.
int64_t NowNs();

}  // namespace fathom

#include "catalog/follow/event_applier.h"

#include <nlohmann/json.hpp>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <utility>

#include "catalog/catalog_path.h"
#include "catalog/follow/directory_settler.h"
#include "catalog/follow/live_attrs.h"
#include "lustre/fid.h"

namespace fathom::catalog {
namespace {

constexpr uint32_t kRefreshKinds =
    kind::kCreate | kind::kModify | kind::kAttrib | kind::kCloseWrite | kind::kMovedTo;
constexpr uint32_t kRemoveKinds = kind::kDelete | kind::kDeleteSelf;

std::string_view DirName(std::string_view path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return {};
  return slash == 0 ? std::string_view("/") : path.substr(0, slash);
}

std::string_view BaseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// Who removed it, where the source says (Lustre: "uid", "jobid" in the event's attributes).
Removal RemovalOf(const Event& e) {
  Removal r;
  r.time_ns = e.ts_ns;
  r.event_id = e.id;
  if (e.attrs.empty()) return r;
  const auto attrs = nlohmann::json::parse(e.attrs, nullptr, /*allow_exceptions=*/false);
  if (!attrs.is_object()) return r;
  if (auto uid = attrs.find("uid"); uid != attrs.end() && uid->is_number_unsigned()) {
    r.uid = uid->get<uint32_t>();
  }
  if (auto jobid = attrs.find("jobid"); jobid != attrs.end() && jobid->is_string()) {
    r.jobid = jobid->get<std::string>();
  }
  return r;
}

// Whether `path` lies at or below one of `dirs`.
bool UnderAny(std::string_view path, const std::vector<std::string>& dirs) {
  return std::any_of(dirs.begin(), dirs.end(), [&](const std::string& d) { return PathUnder(path, d); });
}

Observation At(int64_t time_ns) {
  Observation seen;
  seen.time_ns = time_ns;
  return seen;
}


bool IsRenamePair(const Event& from, const Event& to) {
  return (from.mask & kind::kMovedFrom) && (to.mask & kind::kMovedTo) && from.cookie != 0 &&
         from.cookie == to.cookie;
}

}  // namespace

EventApplier::EventApplier(Catalog& catalog, std::string stream, Rescan rescan, DescribeObject describe)
    : catalog_(catalog), stream_(std::move(stream)), rescan_(std::move(rescan)), describe_(std::move(describe)) {}

Status EventApplier::Apply(std::span<const Event> events) {
  std::vector<Event> joined;
  if (!held_.empty()) {
    joined = std::move(held_);
    held_.clear();
    joined.insert(joined.end(), events.begin(), events.end());
    events = joined;
  }
  if (!events.empty() && (events.back().mask & kind::kMovedFrom) && events.back().cookie != 0) {
    held_.push_back(events.back());
    held_at_ = std::chrono::steady_clock::now();
    events = events.first(events.size() - 1);
  }
  return ApplyAll(events);
}

Status EventApplier::Flush(std::chrono::milliseconds min_age) {
  if (held_.empty() || std::chrono::steady_clock::now() - held_at_ < min_age) {
    return Status::Ok();
  }
  std::vector<Event> held = std::move(held_);
  held_.clear();
  return ApplyAll(held);
}

Status EventApplier::LoadState() {
  if (roots_loaded_) return Status::Ok();
  FATHOM_ASSIGN_OR_RETURN(CatalogInfo info, catalog_.Info());
  roots_ = std::move(info.roots);
  FATHOM_ASSIGN_OR_RETURN(last_applied_, catalog_.LastApplied(stream_));
  FATHOM_ASSIGN_OR_RETURN(std::vector<std::string> kept, catalog_.Pending(stream_));
  for (const std::string& entry : kept) {
    size_t slashes = 0;
    while (slashes + 1 < entry.size() && entry[entry.size() - 1 - slashes] == '/') ++slashes;
    const std::string path = entry.substr(0, entry.size() - slashes);  // "/" keeps its slash
    if (slashes == 0) pending_.Add(path);
    else if (slashes == 1) unsettled_.Add(path);
    else owed_.push_back(path);
  }
  roots_loaded_ = true;
  return Status::Ok();
}

std::vector<std::string> EventApplier::Unfinished() const {
  std::vector<std::string> out = pending_.Paths();
  for (const std::string& dir : unsettled_.Paths()) out.push_back(dir + "/");
  for (const std::string& dir : owed_) out.push_back(dir + "//");
  return out;
}

Status EventApplier::Commit(Batch& batch, uint64_t through) {
  FATHOM_RETURN_IF_ERROR(batch.Commit(stream_, through, Unfinished()));
  last_applied_ = through;
  return Status::Ok();
}

void EventApplier::NoteUnsettled(std::string_view dir) {
  if (!dir.empty() && UnderRoot(dir)) unsettled_.Add(dir);
}

Status EventApplier::Settle() {
  if (!held_.empty()) return Status::Ok();
  FATHOM_RETURN_IF_ERROR(LoadState());
  // A round's scans may find a subtree gone (or made again) and leave its directory to settle
  // once more; a tree that keeps changing is left for the next call after a few rounds.
  constexpr int kRounds = 4;
  for (int round = 0; round < kRounds; ++round) {
    if (unsettled_.empty() && pending_.empty() && owed_.empty()) return Status::Ok();
    FATHOM_RETURN_IF_ERROR(SettleRound());
  }
  return Status::Ok();
}

Status EventApplier::SettleRound() {
  // A path still pending is settled with its directory.
  for (const std::string& path : pending_.Paths()) NoteUnsettled(DirName(path));
  pending_ = DirtyPaths();
  std::vector<std::string> dirs = unsettled_.Take();
  // As of now, taken before anything is read: a change made before it is in what is read
  // (its event, applied later, is older and ignored), one made after has a later event.
  Observation seen;
  seen.time_ns = NowNs();

  {
    FATHOM_ASSIGN_OR_RETURN(std::unique_ptr<Batch> batch, catalog_.Begin());
    DirectorySettler settler(catalog_, *batch, roots_, seen, describe_);
    for (const std::string& dir : dirs) {
      if (!UnderAny(dir, owed_)) FATHOM_RETURN_IF_ERROR(settler.Settle(dir, owed_));
    }
    counters_.settled += settler.directories();
    counters_.corrected += settler.names_corrected();
    FATHOM_RETURN_IF_ERROR(Commit(*batch, last_applied_));  // the rescans owed are kept
  }
  // Scanned outermost first; a subtree inside one already scanned is skipped.
  std::sort(owed_.begin(), owed_.end());
  std::vector<std::string> scanned;
  for (const std::string& path : owed_) {
    if (UnderAny(path, scanned)) continue;
    scanned.push_back(path);
    if (!std::filesystem::is_directory(path)) {
      NoteUnsettled(DirName(path));  // changed again since its directory was listed
      continue;
    }
    ++counters_.rescans;
    FATHOM_RETURN_IF_ERROR(ScanSubtree(path));
  }
  owed_.clear();
  FATHOM_ASSIGN_OR_RETURN(std::unique_ptr<Batch> batch, catalog_.Begin());
  return Commit(*batch, last_applied_);
}

Status EventApplier::ApplyAll(std::span<const Event> events) {
  if (events.empty()) return Status::Ok();
  FATHOM_RETURN_IF_ERROR(LoadState());
  size_t begin = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    const bool new_root = !e.root.empty() && !UnderRoot(e.root);
    // A directory arriving without its MOVED_FROM: what is below it may be unknown here (its
    // MOVED_FROM was applied as a move out of the roots, or came from elsewhere).
    const bool arrived = (e.mask & kind::kMovedTo) && (e.mask & kind::kIsDir) &&
                         (i == 0 || !IsRenamePair(events[i - 1], e));
    if (!(e.mask & kind::kOverflow) && !new_root && !arrived) continue;
    // What came before is committed first (an arrived directory's MOVED_TO too, which
    // replaces what held its name), recorded as applied only up to the event before; the
    // scan then settles what the stream could not say (or brings in a root the catalog
    // lacks, with everything below it); only after it is the event's own id recorded, so a
    // crash runs the scan again.
    const size_t end = arrived && !new_root ? i + 1 : i;
    if (end > begin) {
      FATHOM_RETURN_IF_ERROR(ApplyStretch(events.subspan(begin, end - begin), e.id - 1));
    }
    begin = end;
    if (new_root) roots_.push_back(e.root);
    const std::string& target = new_root || e.path.empty() ? e.root : e.path;
    if (UnderRoot(target) && std::filesystem::is_directory(target)) {
      FATHOM_ASSIGN_OR_RETURN(const bool placed, ParentIsDirectory(target));
      if (!placed) {
        // The catalog holds no directory above it (it read the present ahead of the stream,
        // or a rename moved it away): settling puts the right objects there, then scans it.
        NoteUnsettled(DirName(target));
        continue;
      }
      ++counters_.rescans;
      FATHOM_RETURN_IF_ERROR(ScanSubtree(target));
    }
  }
  if (begin < events.size()) {
    FATHOM_RETURN_IF_ERROR(ApplyStretch(events.subspan(begin), events.back().id));
  } else if (!events.empty() && begin == events.size()) {
    // The last event was an arrived directory: its id is recorded now that its scan is done.
    FATHOM_ASSIGN_OR_RETURN(std::unique_ptr<Batch> batch, catalog_.Begin());
    FATHOM_RETURN_IF_ERROR(Commit(*batch, events.back().id));
  }
  return Status::Ok();
}

Status EventApplier::ApplyStretch(std::span<const Event> events, uint64_t through) {
  stretch_ts_ns_ = events.back().ts_ns;
  FATHOM_ASSIGN_OR_RETURN(std::unique_ptr<Batch> batch, catalog_.Begin());
  for (size_t i = 0; i < events.size(); ++i) {
    FATHOM_RETURN_IF_ERROR(ApplyEvent(*batch, events, i));
  }
  FATHOM_RETURN_IF_ERROR(RefreshMarked(*batch));
  FATHOM_RETURN_IF_ERROR(Commit(*batch, through));
  counters_.events += events.size();
  return Status::Ok();
}

Status EventApplier::ApplyEvent(Batch& batch, std::span<const Event> events, size_t& i) {
  // PARENT_REMOVED: the object went with a directory whose own removal (or replacement) the
  // stream holds after it, and that removes everything below the directory.
  if (events[i].mask & (kind::kOverflow | kind::kParentRemoved)) return Status::Ok();
  std::optional<Event> placed;
  FATHOM_ASSIGN_OR_RETURN(const Event* placed_event, Place(batch, events[i], placed));
  const Event& e = *placed_event;
  if (!UnderRoot(e.path)) {
    ++counters_.outside;
    if (i + 1 < events.size() && IsRenamePair(e, events[i + 1])) {
      // Moved in from outside the roots: what arrived is new here.
      ++i;
      if (UnderRoot(events[i].path)) {
        marked_.Add(events[i].path);
        MarkParent(events[i].path);
      }
    }
    return Status::Ok();
  }
  if (e.mask & kind::kMovedFrom) {
    if (i + 1 < events.size() && IsRenamePair(e, events[i + 1])) {
      ++i;
      std::optional<Event> placed_to;
      FATHOM_ASSIGN_OR_RETURN(const Event* to, Place(batch, events[i], placed_to));
      return ApplyRename(batch, e, *to);
    }
    return ApplyRemove(batch, e);  // moved out of the roots
  }
  if (e.mask & kRemoveKinds) return ApplyRemove(batch, e);
  if (e.mask & kind::kMovedTo) FATHOM_RETURN_IF_ERROR(RemoveName(batch, e));  // replaced
  if (e.mask & kRefreshKinds) marked_.Add(e.path, ObjectPathOf(e));
  if (e.mask & (kind::kCreate | kind::kMovedTo)) MarkParent(e.path);
  return Status::Ok();
}

Result<const Event*> EventApplier::Place(Batch& batch, const Event& raw, std::optional<Event>& placed) {
  constexpr uint32_t kNamespaceKinds = kind::kCreate | kind::kDelete | kind::kMovedFrom | kind::kMovedTo;
  if (!(raw.mask & kNamespaceKinds) || !UnderRoot(raw.path)) return &raw;
  if (std::find(roots_.begin(), roots_.end(), raw.path) != roots_.end()) return &raw;
  const LustreIds ids = LustreIdsOf(raw);
  if (!ids.pfid) return &raw;
  const auto identity = lustre_.Identity(raw.root, *ids.pfid);
  if (!identity) return &raw;
  FATHOM_ASSIGN_OR_RETURN(const std::vector<std::string> dirs, batch.PathsOf(identity->first, identity->second));
  // A directory has one name; the catalog not holding it (or holding the FID's inode number
  // as something else) leaves the event where the collector placed it.
  if (dirs.size() != 1 || dirs.front() == DirName(raw.path) || !UnderRoot(dirs.front())) return &raw;
  FATHOM_ASSIGN_OR_RETURN(const EntryId dir, batch.LookupDirectory(dirs.front()));
  if (dir == 0) return &raw;
  placed = raw;
  placed->path = JoinPath(dirs.front(), BaseName(raw.path));
  ++counters_.placed;
  return &*placed;
}

std::string EventApplier::ObjectPathOf(const Event& e) {
  const LustreIds ids = LustreIdsOf(e);
  return ids.fid ? lustre_.ObjectPath(e.root, *ids.fid) : std::string();
}

void EventApplier::MarkParent(std::string_view path) {
  // A name coming or going changes its directory's mtime, ctime, size and (a subdirectory)
  // link count, and no event is about the directory itself.
  const std::string_view dir = DirName(path);
  if (dir.empty() || !UnderRoot(dir)) return;
  marked_.Add(dir);
  unsettled_.Add(dir);
}

Status EventApplier::ApplyRename(Batch& batch, const Event& from, const Event& to) {
  if (!UnderRoot(to.path)) return ApplyRemove(batch, from);
  marked_.Move(from.path, to.path);
  marked_.Add(to.path, ObjectPathOf(to));  // its ctime changed; and it is put there if the catalog lacked it
  pending_.Move(from.path, to.path);  // what could not be put yet went along
  unsettled_.Move(from.path, to.path);
  MarkParent(from.path);
  MarkParent(to.path);
  FATHOM_ASSIGN_OR_RETURN(const EntryId known, batch.Lookup(from.path));
  // Whatever held the target name is replaced, whether or not the catalog knows what came.
  // What came unknown is put as read, and if it is a directory, what it holds is unknown
  // too (no event ever named it there): it is compared with the live one when settling.
  if (known == 0) {
    NoteUnsettled(to.path);
    return RemoveName(batch, to);
  }
  FATHOM_ASSIGN_OR_RETURN(const EntryId from_parent, batch.Lookup(DirName(from.path)));
  FATHOM_ASSIGN_OR_RETURN(const EntryId to_parent, ParentOf(batch, to.path));
  if (to_parent == 0) return ApplyRemove(batch, from);
  return batch.Move(from_parent, BaseName(from.path), to_parent, BaseName(to.path),
                    At(to.ts_ns), RemovalOf(to));
}

Status EventApplier::ApplyRemove(Batch& batch, const Event& e) {
  marked_.Remove(e.path);
  pending_.Remove(e.path);
  unsettled_.Remove(e.path);
  MarkParent(e.path);
  return RemoveName(batch, e);
}

Status EventApplier::RemoveName(Batch& batch, const Event& e) {
  if (DirName(e.path).empty()) return Status::Ok();
  const bool is_root = std::find(roots_.begin(), roots_.end(), e.path) != roots_.end();
  EntryId parent = 0;
  if (!is_root) {
    FATHOM_ASSIGN_OR_RETURN(parent, batch.Lookup(DirName(e.path)));
    if (parent == 0) return Status::Ok();  // the catalog never held it
  }
  return batch.Remove(parent, is_root ? std::string_view(e.path) : BaseName(e.path), RemovalOf(e));
}

Status EventApplier::RefreshMarked(Batch& batch) {
  // What could not be put before is tried again: the events applied since may have made room.
  for (const DirtyPath& entry : pending_.Entries()) marked_.Add(entry.path, entry.object);
  pending_ = DirtyPaths();
  for (const DirtyPath& entry : marked_.TakeEntries()) {
    const std::string& path = entry.path;
    ++counters_.reads;
    // What is read is the present: the directory is compared once the stream is done.
    NoteUnsettled(DirName(path));
    FATHOM_ASSIGN_OR_RETURN(std::optional<Attrs> attrs, ReadLiveAttrs(path));
    if (!entry.object.empty()) FATHOM_RETURN_IF_ERROR(RefreshObject(batch, entry, attrs));
    if (!attrs) {
      // Gone since: removed (its DELETE follows in the stream, and drops it) or renamed away,
      // maybe with a directory above it, whose rename carries it along.
      ++counters_.gone;
      pending_.Add(path, entry.object);
      continue;
    }
    if (describe_) describe_(-1, path, *attrs);
    const Observation seen = AsOfStream();
    EntryId put = 0;
    if (std::find(roots_.begin(), roots_.end(), path) != roots_.end()) {
      FATHOM_ASSIGN_OR_RETURN(put, batch.PutRoot(path, *attrs, seen));
    } else {
      FATHOM_ASSIGN_OR_RETURN(const EntryId parent, ParentOf(batch, path));
      if (parent != 0) {
        FATHOM_ASSIGN_OR_RETURN(put, batch.Put(parent, BaseName(path), *attrs, seen));
      }
    }
    // Not put: another object holds the name, or holds this one elsewhere, until events
    // still to come move them.
    if (put == 0) pending_.Add(path, entry.object);
  }
  return Status::Ok();
}

Status EventApplier::RefreshObject(Batch& batch, const DirtyPath& entry, const std::optional<Attrs>& at_path) {
  // A Lustre client shows a FID as its inode number: the path still leads to the object.
  const auto fid = lustre::ParseFid(BaseName(entry.object));
  if (at_path && fid.ok() && at_path->ino == lustre::FlattenFid(fid.value())) return Status::Ok();
  // Unreadable through its FID (.lustre/fid is for root only on some clients): what the path
  // gave stands. Gone: its removal is in the stream.
  Result<std::optional<Attrs>> read = ReadLiveAttrs(entry.object);
  if (!read.ok() || !read->has_value()) return Status::Ok();
  ++counters_.reads;
  Attrs& attrs = **read;
  if (describe_) describe_(-1, entry.object, attrs);
  FATHOM_ASSIGN_OR_RETURN(const std::vector<std::string> held, batch.PathsOf(attrs.dev, attrs.ino));
  if (held.empty() || held.front() == entry.path) return Status::Ok();
  // Updated under the name the catalog holds it by (one name updates the object).
  const std::string& name = held.front();
  if (std::find(roots_.begin(), roots_.end(), name) != roots_.end()) {
    return batch.PutRoot(name, attrs, AsOfStream()).status();
  }
  FATHOM_ASSIGN_OR_RETURN(const EntryId parent, batch.LookupDirectory(DirName(name)));
  if (parent == 0) return Status::Ok();
  return batch.Put(parent, BaseName(name), attrs, AsOfStream()).status();
}

// A path read now is put as of the stream's point the catalog has reached (the newest event
// of the stretch), not as of now: the stream's later events about it, older than now, must
// still apply; and another object at that name is left to those events.
Observation EventApplier::AsOfStream() const {
  Observation seen;
  seen.time_ns = stretch_ts_ns_;
  seen.replaces = false;
  return seen;
}

Result<EntryId> EventApplier::ParentOf(Batch& batch, std::string_view path) {
  const std::string_view dir = DirName(path);
  if (dir.empty() || !UnderRoot(dir)) return EntryId{0};
  FATHOM_ASSIGN_OR_RETURN(const EntryId known, batch.LookupDirectory(dir));
  if (known != 0) return known;
  // Something else than a directory there: its events still to come replace it.
  FATHOM_ASSIGN_OR_RETURN(const EntryId other, batch.Lookup(dir));
  if (other != 0) return EntryId{0};
  // A directory the catalog missed (created and filled before it was watched, or its events
  // still ahead in the stream): described from the file system, and its parents with it.
  FATHOM_ASSIGN_OR_RETURN(std::optional<Attrs> attrs, ReadLiveAttrs(std::string(dir)));
  ++counters_.reads;
  NoteUnsettled(DirName(dir));
  if (!attrs) return EntryId{0};
  const Observation seen = AsOfStream();
  if (std::find(roots_.begin(), roots_.end(), dir) != roots_.end()) {
    return batch.PutRoot(dir, *attrs, seen);
  }
  FATHOM_ASSIGN_OR_RETURN(const EntryId grandparent, ParentOf(batch, dir));
  if (grandparent == 0) return EntryId{0};
  FATHOM_ASSIGN_OR_RETURN(const EntryId put, batch.Put(grandparent, BaseName(dir), *attrs, seen));
  // The catalog knows newer of that object, which stays where it is (maybe inside the very
  // directory about to move here): not a place to put anything until the directory settles.
  if (put == 0) return EntryId{0};
  FATHOM_ASSIGN_OR_RETURN(const EntryId there, batch.LookupDirectory(dir));
  return there == put ? put : EntryId{0};
}

Status EventApplier::ScanSubtree(const std::string& path) {
  Status scanned = rescan_(path);
  if (scanned.ok()) {
    pending_.Remove(path);  // the scan found whatever is there now
    unsettled_.Remove(path);
    return scanned;
  }
  // Gone since it was chosen (the tree keeps changing): its parent is settled later, and so
  // is the path, made again since maybe (with the same inode number, which the parent's
  // listing cannot tell from the old directory). The follower goes on either way.
  const std::error_code code = scanned.code();
  const bool vanished = code == std::errc::no_such_file_or_directory || code == std::errc::not_a_directory ||
                        code == std::errc::too_many_symbolic_link_levels;
  if (!vanished && std::filesystem::is_directory(path)) return scanned;
  NoteUnsettled(DirName(path));
  NoteUnsettled(path);
  return Status::Ok();
}

Result<bool> EventApplier::ParentIsDirectory(const std::string& path) {
  if (std::find(roots_.begin(), roots_.end(), path) != roots_.end()) return true;
  FATHOM_ASSIGN_OR_RETURN(std::optional<Node> parent, catalog_.Stat(DirName(path)));
  return parent && S_ISDIR(parent->attrs.mode);
}

bool EventApplier::UnderRoot(std::string_view path) const { return UnderAny(path, roots_); }

}  // namespace fathom::catalog

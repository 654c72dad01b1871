#include "sources/lustre/record_resolver.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "sources/internal/source_util.h"
#include "sources/lustre/event_attrs.h"

namespace fathom::lustre_source {
namespace {

using lustre::ChangelogRecord;
using lustre::Fid;

// Longest chain of parents followed when building a path (guards against a cycle in stale
// cache entries).
constexpr size_t kMaxDepth = 4096;
// Warnings about unplaceable or unknown records beyond this many go to the debug log.
constexpr uint64_t kMaxWarnings = 20;

std::string Join(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  std::string out;
  out.reserve(dir.size() + 1 + name.size());
  out.append(dir).append(1, '/').append(name);
  return out;
}

std::string_view ParentOf(std::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return {};
  return slash == 0 ? std::string_view("/") : path.substr(0, slash);
}

// Event kind of a record type that is not a namespace operation; 0 for no event.
uint32_t DataKind(uint32_t type) {
  switch (type) {
    case CL_MTIME:
    case CL_TRUNC:
      return kind::kModify;
    case CL_CLOSE:
      return kind::kCloseWrite;
    case CL_SETATTR:
    case CL_SETXATTR:
    case CL_CTIME:
      return kind::kAttrib;
    case CL_OPEN:
      return kind::kOpen;
    case CL_ATIME:
      return kind::kAccess;
    default:
      return 0;
  }
}

bool KnownWithoutEvent(uint32_t type) {
  switch (type) {
    case CL_MARK:
    case CL_EXT:
    case CL_LAYOUT:
    case CL_HSM:
    case CL_MIGRATE:
    case CL_FLRW:
    case CL_RESYNC:
    case CL_GETXATTR:
    case CL_DN_OPEN:
      return true;
    default:
      return false;
  }
}

}  // namespace

RecordResolver::RecordResolver(ResolverConfig config, Fid2PathFn fid2path)
    : config_(std::move(config)), fid2path_(std::move(fid2path)), cache_(config_.cache_size) {
  if (config_.roots.empty()) {
    config_.roots.push_back(config_.mount);
    config_.recursive = true;
  }
}

void RecordResolver::Resolve(std::span<const ChangelogRecord> batch, std::vector<Event>& out) {
  batch_ = batch;
  namings_built_ = false;
  for (size_t i = 0; i < batch.size(); ++i) ResolveOne(batch[i], i, out);
  counters_.records += batch.size();
  batch_ = {};
  namings_.clear();
  checked_.clear();
}

void RecordResolver::ResolveOne(const ChangelogRecord& r, size_t at, std::vector<Event>& out) {
  switch (r.type) {
    case CL_CREATE:
    case CL_MKDIR:
    case CL_HARDLINK:
    case CL_SOFTLINK:
    case CL_MKNOD:
      return ResolveCreate(r, at, out);
    case CL_UNLINK:
    case CL_RMDIR:
      return ResolveRemove(r, at, out);
    case CL_RENAME:
      return ResolveRename(r, at, out);
    default:
      break;
  }
  if (const uint32_t mask = DataKind(r.type)) return ResolveData(r, mask, at, out);
  if (KnownWithoutEvent(r.type)) {
    ++counters_.ignored;
    // A migrated directory gets a new FID on its new MDT: both FIDs' entries are stale.
    if (r.type == CL_MIGRATE) {
      cache_.Forget(r.tfid, nullptr);
      if (r.has_rename) cache_.Forget(r.sfid, nullptr);
    }
    return;
  }
  CountUnknown(r, "unknown record type");
}

void RecordResolver::ResolveCreate(const ChangelogRecord& r, size_t at, std::vector<Event>& out) {
  if (r.pfid.zero() || r.tfid.zero() || r.name.empty()) {
    return CountUnknown(r, "creation record without target, parent or name");
  }
  const bool is_dir = r.type == CL_MKDIR;
  if (!CheckedPathOf(r.pfid, at, rel_, true)) {
    CountUnresolved(r, "parent directory not found");
    return Emit(out, kind::kCreate | (is_dir ? kind::kIsDir : 0), FidPath(r.pfid) + "/" + r.name, false, r,
                r.tfid, r.pfid);
  }
  // A hard link is a newer name of an object already named: the cache keeps the oldest.
  if (r.type == CL_HARDLINK) {
    cache_.NoteLinked(r.tfid);
  } else {
    cache_.Learn(r.tfid, r.pfid, r.name, is_dir);
  }
  Emit(out, kind::kCreate | (is_dir ? kind::kIsDir : 0), Absolute(rel_, r.name), false, r, r.tfid,
       r.pfid);
}

void RecordResolver::ResolveRemove(const ChangelogRecord& r, size_t at, std::vector<Event>& out) {
  if (r.pfid.zero() || r.name.empty()) {
    return CountUnknown(r, "removal record without parent or name");
  }
  const bool is_dir = r.type == CL_RMDIR;
  const uint32_t mask = kind::kDelete | (is_dir ? kind::kIsDir : 0);
  if (!CheckedPathOf(r.pfid, at, rel_, true)) {
    cache_.Forget(r.tfid, nullptr);
    return EmitParentRemoved(out, mask | kind::kParentRemoved, r);
  }
  if (is_dir) {
    const std::string path = Join(rel_, r.name);
    cache_.Forget(r.tfid, &path);
  } else {
    cache_.Forget(r.tfid, nullptr);
  }
  Emit(out, mask, Absolute(rel_, r.name), false, r, r.tfid, r.pfid);
}

void RecordResolver::ResolveRename(const ChangelogRecord& r, size_t at, std::vector<Event>& out) {
  if (!r.has_rename || r.sfid.zero() || r.spfid.zero() || r.pfid.zero() || r.name.empty() ||
      r.sname.empty()) {
    return CountUnknown(r, "rename record without its rename extension, parents or names");
  }
  std::optional<std::string> from_path, to_path;
  if (CheckedPathOf(r.spfid, at, rel_, true)) from_path = Join(rel_, r.sname);
  if (CheckedPathOf(r.pfid, at, rel_, true)) to_path = Join(rel_, r.name);
  const uint32_t isdir = cache_.IsDirectory(r.sfid) ? kind::kIsDir : 0;
  const bool linked = cache_.IsLinked(r.sfid);

  // The target name existed and was replaced: its object lost that name.
  if (!r.tfid.zero()) {
    const bool victim_dir = cache_.IsDirectory(r.tfid);
    if (to_path) {
      Emit(out, kind::kDelete | (victim_dir ? kind::kIsDir : 0), Absolute(*to_path), false, r,
           r.tfid, r.pfid);
    }
    cache_.Forget(r.tfid, victim_dir && to_path ? &*to_path : nullptr);
  }

  if (!from_path && !to_path) {
    cache_.Forget(r.sfid, nullptr);
    return CountUnresolved(r, "neither the old nor the new parent directory found");
  }
  if (!from_path) CountUnresolved(r, "old parent directory not found");
  if (!to_path) CountUnresolved(r, "new parent directory not found");
  if (to_path) {
    cache_.Moved(r.sfid, r.pfid, r.name, from_path ? &*from_path : nullptr, &*to_path);
    // A renamed link becomes the newest of a file's links: which one is the oldest now,
    // fid2path says when a record needs it.
    if (linked) cache_.Forget(r.sfid, nullptr);
  } else {
    cache_.Forget(r.sfid, &*from_path);
  }
  std::string from_abs = from_path ? Absolute(*from_path) : std::string();
  std::string to_abs = to_path ? Absolute(*to_path) : std::string();
  const int from_root = from_path ? MatchRoot(from_abs, false) : -1;
  const int to_root = to_path ? MatchRoot(to_abs, false) : -1;
  const uint32_t cookie =
      (from_root >= 0 && to_root >= 0 && Wanted(kind::kMovedFrom) && Wanted(kind::kMovedTo))
          ? NextCookie()
          : 0;
  if (from_root >= 0 && Wanted(kind::kMovedFrom)) {
    AddEvent(out, kind::kMovedFrom | isdir, cookie, from_root, std::move(from_abs), r, r.sfid,
             r.spfid, nullptr);
  }
  if (to_root >= 0 && Wanted(kind::kMovedTo)) {
    AddEvent(out, kind::kMovedTo | isdir, cookie, to_root, std::move(to_abs), r, r.sfid, r.pfid,
             nullptr);
  }
}

void RecordResolver::ResolveData(const ChangelogRecord& r, uint32_t mask, size_t at,
                                 std::vector<Event>& out) {
  if (!Wanted(mask)) return;
  if (r.tfid.zero()) return CountUnknown(r, "record without target");
  const uint32_t isdir = cache_.IsDirectory(r.tfid) ? kind::kIsDir : 0;
  if (!r.pfid.zero() && !r.name.empty()) {
    if (CheckedPathOf(r.pfid, at, rel_, true)) {
      return Emit(out, mask | isdir, Absolute(rel_, r.name), true, r, r.tfid, r.pfid);
    }
  }
  if (!CheckedPathOf(r.tfid, at, rel_, isdir != 0)) {
    // Gone before it could be placed: reported at the path Lustre names it by.
    CountUnresolved(r, "object not found");
    return Emit(out, mask | isdir, FidPath(r.tfid), true, r, r.tfid, r.pfid);
  }
  Emit(out, mask | isdir, Absolute(rel_), true, r, r.tfid, r.pfid);
}

bool RecordResolver::PathOf(const Fid& fid, size_t at, std::string& rel, bool is_dir) {
  rel.clear();
  if (fid.zero()) return false;
  size_t depth = 0;
  const auto push = [&](const std::string& name) {
    if (depth == names_.size()) names_.emplace_back();
    names_[depth++] = name;
  };
  // The first directory on the way up (the object itself when it is one, else its parent):
  // its path is noted in the cache for the records that follow.
  std::optional<size_t> noted_depth;
  Fid noted;
  Fid cur = fid;
  const auto note_if_first_directory = [&](bool directory) {
    if (noted_depth || !directory) return;
    noted_depth = depth;
    noted = cur;
  };
  for (;;) {
    if (depth >= kMaxDepth) {
      spdlog::debug("lustre: parent chain of {} longer than {} entries", lustre::FormatFid(fid),
                    kMaxDepth);
      return Fid2Path(fid, rel);
    }
    // Past the object itself every FID is a parent, so a directory.
    const bool dir = depth > 0 || is_dir;
    if (const FidPathCache::Entry* e = dir ? cache_.FindParent(cur) : cache_.Find(cur)) {
      if (e->absolute) {
        rel = e->path;
        break;
      }
      if (const std::string* known = cache_.ResolvedPath(*e)) {
        rel = *known;
        break;
      }
      note_if_first_directory(e->is_dir);
      push(e->name);
      cur = e->parent;
      continue;
    }
    if (auto naming = NamingAfter(cur, at)) {
      ++counters_.batch_namings;
      note_if_first_directory(dir);
      cache_.Learn(cur, naming->parent, *naming->name, dir);
      push(*naming->name);
      cur = naming->parent;
      continue;
    }
    if (Fid2Path(cur, rel)) {
      cache_.StoreAbsolute(cur, rel);
      if (dir) cache_.NoteDirectory(cur);
      break;
    }
    // A cached chain can lead to an ancestor that is gone while the object itself still
    // exists (a directory migrated to another MDT gets a new FID): ask for the object.
    if (cur != fid && Fid2Path(fid, rel)) {
      cache_.StoreAbsolute(fid, rel);
      if (is_dir) cache_.NoteDirectory(fid);
      return true;
    }
    return false;
  }
  // Names are appended from the top down; when `depth` names are left the path is that of
  // the FID met at that depth on the way up.
  for (;;) {
    if (noted_depth == depth) cache_.NoteResolved(noted, rel);
    if (depth == 0) break;
    if (!rel.empty()) rel.push_back('/');
    rel.append(names_[--depth]);
  }
  return true;
}

bool RecordResolver::CheckedPathOf(const Fid& fid, size_t at, std::string& rel, bool is_dir) {
  if (!PathOf(fid, at, rel, is_dir)) return false;
  if (!config_.check_directories) return true;
  if (is_dir) {
    CheckDirectory(fid, rel);
    return true;
  }
  // A file is placed through its directory, checked; its own name is the one it had when
  // the record was written (a rename of it that this MDT logs later is still to come).
  const FidPathCache::Entry* e = cache_.Find(fid);
  if (e == nullptr || e->absolute) return true;
  const Fid parent = e->parent;
  std::string dir;
  if (PathOf(parent, at, dir, true) && CheckDirectory(parent, dir)) return PathOf(fid, at, rel, false);
  return true;
}

bool RecordResolver::CheckDirectory(const Fid& fid, std::string& rel) {
  if (fid == lustre::kRootFid || !checked_.insert(fid).second) return false;
  std::string present;
  if (!Fid2Path(fid, present) || present == rel) return false;
  spdlog::debug("lustre: directory {} is at {} now, not {} (renamed on another MDT)", lustre::FormatFid(fid),
                present, rel);
  cache_.StoreAbsolute(fid, present);
  cache_.NoteDirectory(fid);
  rel = std::move(present);
  return true;
}

bool RecordResolver::Fid2Path(const Fid& fid, std::string& rel) {
  ++counters_.fid2path_calls;
  auto found = fid2path_(fid);
  if (!found.ok()) {
    ++counters_.fid2path_failures;
    spdlog::debug("lustre: {}", found.status().message());
    return false;
  }
  rel = std::move(found).value();
  return true;
}

std::optional<RecordResolver::Naming> RecordResolver::NamingAfter(const Fid& fid, size_t at) {
  if (batch_.empty()) return std::nullopt;
  if (!namings_built_) BuildNamings();
  auto it = namings_.find(fid);
  if (it == namings_.end()) return std::nullopt;
  auto pos = std::upper_bound(it->second.begin(), it->second.end(), static_cast<uint32_t>(at));
  if (pos == it->second.end()) return std::nullopt;
  const ChangelogRecord& r = batch_[*pos];
  if (r.type == CL_RENAME && r.sfid == fid) return Naming{r.spfid, &r.sname};
  return Naming{r.pfid, &r.name};
}

void RecordResolver::BuildNamings() {
  namings_built_ = true;
  for (size_t i = 0; i < batch_.size(); ++i) {
    const ChangelogRecord& r = batch_[i];
    if (r.pfid.zero()) continue;
    if ((r.type == CL_UNLINK || r.type == CL_RMDIR) && !r.tfid.zero() && !r.name.empty()) {
      namings_[r.tfid].push_back(static_cast<uint32_t>(i));
    } else if (r.type == CL_RENAME && r.has_rename) {
      if (!r.sfid.zero() && !r.spfid.zero() && !r.sname.empty()) {
        namings_[r.sfid].push_back(static_cast<uint32_t>(i));
      }
      if (!r.tfid.zero() && !r.name.empty()) namings_[r.tfid].push_back(static_cast<uint32_t>(i));
    }
  }
}

bool RecordResolver::Wanted(uint32_t mask) const {
  return (mask & (config_.kinds | kind::kAlwaysDelivered) & kind::kAll) != 0;
}

int RecordResolver::MatchRoot(const std::string& abs, bool self) const {
  for (size_t i = 0; i < config_.roots.size(); ++i) {
    const std::string& root = config_.roots[i];
    if (abs == root) {
      if (self) return static_cast<int>(i);
      continue;
    }
    if (config_.recursive ? source_internal::IsUnder(abs, root) : ParentOf(abs) == root) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

std::string RecordResolver::Absolute(const std::string& rel, std::string_view name) const {
  const std::string& mount = config_.mount;
  std::string out;
  out.reserve(mount.size() + rel.size() + name.size() + 2);
  out.append(mount);
  if (!rel.empty()) {
    if (mount != "/") out.push_back('/');
    out.append(rel);
  }
  if (!name.empty()) {
    if (out.back() != '/') out.push_back('/');
    out.append(name);
  }
  return out;
}

std::string RecordResolver::FidPath(const Fid& fid) const {
  return Absolute(".lustre/fid/" + lustre::FormatFid(fid));
}

void RecordResolver::Emit(std::vector<Event>& out, uint32_t mask, std::string abs, bool self,
                          const ChangelogRecord& r, const Fid& fid, const Fid& pfid) {
  if (!Wanted(mask)) return;
  const int root = MatchRoot(abs, self);
  if (root < 0) return;
  AddEvent(out, mask, 0, root, std::move(abs), r, fid, pfid, nullptr);
}

void RecordResolver::EmitParentRemoved(std::vector<Event>& out, uint32_t mask,
                                       const ChangelogRecord& r) {
  ++counters_.parent_removed;
  if (counters_.parent_removed <= kMaxWarnings) {
    spdlog::info(
        "lustre: record {} ({} '{}'): parent {} no longer exists; reported as PARENT_REMOVED",
        r.index, lustre::RecordTypeName(r.type).value_or("?"), r.name, lustre::FormatFid(r.pfid));
  }
  if (!Wanted(mask)) return;
  AddEvent(out, mask, 0, 0, config_.roots[0], r, r.tfid, r.pfid, &r.name);
}

void RecordResolver::AddEvent(std::vector<Event>& out, uint32_t mask, uint32_t cookie, int root,
                              std::string path, const ChangelogRecord& r, const Fid& fid,
                              const Fid& pfid, const std::string* name) const {
  Event& e = out.emplace_back();
  e.ts_ns = r.time_ns != 0 ? static_cast<int64_t>(r.time_ns) : NowNs();
  e.mask = mask;
  e.cookie = cookie;
  e.root = config_.roots[static_cast<size_t>(root)];
  e.path = std::move(path);
  e.source = config_.source;
  AppendEventAttrs(r, fid, pfid, config_.mdt, name, e.attrs);
}

void RecordResolver::CountUnresolved(const ChangelogRecord& r, const char* what) {
  ++counters_.unresolved;
  spdlog::debug("lustre: record {} ({} '{}' t={}): {}; reported by FID", r.index,
                lustre::RecordTypeName(r.type).value_or("?"), r.name, lustre::FormatFid(r.tfid),
                what);
}

void RecordResolver::CountUnknown(const ChangelogRecord& r, const char* what) {
  ++counters_.unknown;
  ++counters_.unresolved;
  if (counters_.unknown <= kMaxWarnings) {
    spdlog::warn("lustre: record {} (type {}) skipped: {}", r.index, r.type, what);
  } else {
    spdlog::debug("lustre: record {} (type {}) skipped: {}", r.index, r.type, what);
  }
}

uint32_t RecordResolver::NextCookie() {
  if (++last_cookie_ == 0) ++last_cookie_;
  return last_cookie_;
}

}  // namespace fathom::lustre_source

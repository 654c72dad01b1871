// Reading the fanotify queue and turning its records into Events.
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/fanotify.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include "fathom/config.h"
#include "sources/fanotify/fanotify_source_impl.h"
#include "sources/internal/dir_listing.h"

namespace fathom::fanotify_internal {
namespace {

// Longest chain of parent directories followed when building a path (guards against a
// cycle in stale cache entries).
constexpr int kMaxDepth = 4096;
// How long to wait for the record naming a directory found gone (see ReadQueuedSoon).
constexpr int kStaleWaitMs = 2;
constexpr uint64_t kNamingKinds = FAN_DELETE | FAN_MOVED_FROM
#if HAVE_FAN_RENAME
                                  | FAN_RENAME
#endif
    ;

std::string Join(std::string_view dir, std::string_view name) {
  std::string path;
  path.reserve(dir.size() + 1 + name.size());
  path.append(dir);
  if (dir != "/") path.push_back('/');
  path.append(name);
  return path;
}

std::string_view Parent(std::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return {};
  return slash == 0 ? std::string_view("/") : path.substr(0, slash);
}

}  // namespace

Status FanotifySource::Drain(std::vector<Event>& out) {
  if (!fan_fd_.valid()) return Status::Error("fanotify source: Drain() before Start()");
  const size_t start = out.size();
  if (std::exchange(mounts_changed_, false) && mount_table_) WatchMounts(false);
  int budget = kMaxReadsPerDrain;
  extra_reads_ = kMaxExtraReadsPerDrain;
  while (ReadMore(budget)) {
  }
  // About one event a step: grow `out` once, geometrically (Drain may be called again on it).
  const size_t want = out.size() + steps_.size();
  if (want > out.capacity()) out.reserve(std::max(want, 2 * out.capacity()));
  // Executing a step may read more records (and plan more steps): index, not iterators.
  for (size_t s = 0; s < steps_.size(); ++s) {
    const Step step = steps_[s];
    Execute(step, out);
  }
  record_count_ = 0;
  if (records_.size() > kKeptRecordSlots) records_.resize(kKeptRecordSlots);
  steps_.clear();
  namings_.clear();
  counters_.events += out.size() - start;
  if (!read_error_.ok()) return std::exchange(read_error_, Status::Ok());
  return Status::Ok();
}

bool FanotifySource::ReadMore(int& budget) {
  if (budget <= 0) return false;
  ssize_t n;
  do {
    n = read(fan_fd_.get(), buf_.get(), kReadBufferBytes);
  } while (n < 0 && errno == EINTR);
  if (n <= 0) {
    if (n < 0 && errno != EAGAIN) read_error_ = Status::FromErrno(errno, "fanotify source: read");
    return false;
  }
  --budget;
  read_ts_ = NowNs();
  const size_t begin = record_count_;
  if (!ParseRecordsInto(buf_.get(), static_cast<size_t>(n), own_pid_, records_, record_count_)) {
    read_error_ = Status::Error(
        "fanotify source: the kernel reports an unknown event format; "
        "use --backend inotify");
  }
  for (size_t i = begin; i < record_count_; ++i) {
    const RawRecord& r = records_[i];
    if ((r.mask & FAN_ONDIR) && (r.mask & kNamingKinds) && !r.object.empty() && !r.dir.empty()) {
      namings_[r.object].push_back(i);
    }
  }
  PlanSteps(records_, begin, record_count_, steps_);
  return true;
}

void FanotifySource::Execute(const Step& step, std::vector<Event>& out) {
  switch (step.type) {
    case Step::Type::kOverflow:
      HandleOverflow(out);
      return;
    case Step::Type::kRename: {
      const RawRecord& r = records_[step.record];
      HandleMove(r, r.new_dir, r.new_name, r, step.record, out);
      return;
    }
    case Step::Type::kMovePair: {
      const RawRecord& to = records_[step.record];
      HandleMove(records_[step.from], to.dir, to.name, to, step.record, out);
      return;
    }
    case Step::Type::kSingle:
      ExecuteSingle(step, out);
      return;
  }
}

void FanotifySource::ExecuteSingle(const Step& step, std::vector<Event>& out) {
  const RawRecord& r = records_[step.record];
  const uint32_t isdir = (r.mask & FAN_ONDIR) ? kind::kIsDir : 0;
  if (!r.dir.empty()) {
    if (!ResolveDir(r.dir, step.record, parent_path_)) return CountUnresolved(r, step.kind);
    if ((isdir && !r.object.empty()) || r.name.empty()) {
      std::string path = Join(parent_path_, r.name);
      if (isdir && !r.object.empty()) {
        if (step.kind & (FAN_CREATE | FAN_MOVED_TO)) cache_.Learn(r.object, r.dir, r.name);
        if (step.kind & (FAN_DELETE | FAN_MOVED_FROM)) cache_.Forget(r.object, path);
      }
      int root = MatchRoot(path, false);
      if (root >= 0) Emit(out, step.kind | isdir, 0, root, std::move(path), r.pid);
      return;
    }
    // The common case, a file's entry: the path is built only for the watched trees.
    int root = MatchParent(parent_path_);
    if (root >= 0) Emit(out, step.kind | isdir, 0, root, Join(parent_path_, r.name), r.pid);
    return;
  }
  // An event on an object itself. inotify reports those of files only to a watch on the file,
  // which fathom never places: only directories' own events are reported.
  if (r.object.empty() || !isdir) return;
  if (step.kind & (FAN_DELETE_SELF | FAN_MOVE_SELF)) {
    for (size_t i = 0; i < roots_.size(); ++i) {
      if (!roots_[i].active || roots_[i].key != r.object) continue;
      Emit(out, step.kind | isdir, 0, static_cast<int>(i), roots_[i].path, r.pid);
      roots_[i].active = false;
      spdlog::warn("fanotify: watched directory {} was {}; it is no longer watched", roots_[i].path,
                   step.kind == FAN_MOVE_SELF ? "moved away" : "removed");
    }
    return;  // a subdirectory's removal or move is reported by its parent's record
  }
  std::string path;
  if (!ResolveDir(r.object, step.record, path)) return CountUnresolved(r, step.kind);
  int root = MatchRoot(path, true);
  if (root >= 0) Emit(out, step.kind | isdir, 0, root, std::move(path), r.pid);
}

void FanotifySource::HandleMove(const RawRecord& from, const HandleKey& to_dir,
                                const std::string& to_name, const RawRecord& rec, size_t at,
                                std::vector<Event>& out) {
  const uint32_t isdir = (rec.mask & FAN_ONDIR) ? kind::kIsDir : 0;
  std::string from_dir_path, to_dir_path;
  const bool from_parent = ResolveDir(from.dir, at, from_dir_path);
  const bool to_parent = ResolveDir(to_dir, at, to_dir_path);
  std::string from_path = from_parent ? Join(from_dir_path, from.name) : std::string();
  std::string to_path = to_parent ? Join(to_dir_path, to_name) : std::string();
  if (!from_parent || !to_parent) CountUnresolved(rec, from_parent ? FAN_MOVED_TO : FAN_MOVED_FROM);
  if (isdir && !rec.object.empty()) {
    if (to_parent) {
      cache_.Moved(rec.object, to_dir, to_name, from_path, to_path);
    } else {
      cache_.Forget(rec.object, from_path);
    }
  }
  int from_root = from_parent ? MatchRoot(from_path, false) : -1;
  int to_root = to_parent ? MatchRoot(to_path, false) : -1;
  uint32_t cookie = (from_root >= 0 && to_root >= 0) ? NextCookie() : 0;
  if (from_root >= 0) Emit(out, kind::kMovedFrom | isdir, cookie, from_root, std::move(from_path), rec.pid);
  if (to_root < 0) return;
  // A directory moved in from outside the watched trees: what it holds is reported too.
  const bool moved_in = isdir && from_root < 0;
  Emit(out, kind::kMovedTo | isdir, cookie, to_root, moved_in ? to_path : std::move(to_path), rec.pid);
  if (moved_in) ReportContents(to_root, to_path, out);
}

void FanotifySource::ReportContents(int root, const std::string& dir, std::vector<Event>& out) {
  std::vector<std::string> pending{dir};
  while (!pending.empty()) {
    const std::string base = std::move(pending.back());
    pending.pop_back();
    Status listed = source_internal::ListDirectory(base, [&](std::string_view name, bool is_dir) {
      std::string path = Join(base, name);
      if (MatchRoot(path, false) != root) return;
      if (is_dir) pending.push_back(path);
      Emit(out, kind::kCreate | (is_dir ? kind::kIsDir : 0), 0, root, std::move(path), 0);
    });
    // Gone or replaced since: the records that follow say what became of it.
    if (!listed.ok()) spdlog::debug("fanotify: {}", listed.message());
  }
}

void FanotifySource::HandleOverflow(std::vector<Event>& out) {
  ++counters_.overflows;
  // Renames and removals were lost with the queue: learned locations may be wrong now.
  cache_.Clear();
  spdlog::warn("fanotify: the kernel event queue overflowed; events were lost");
  for (size_t i = 0; i < roots_.size(); ++i) {
    if (roots_[i].active) Emit(out, kind::kOverflow, 0, static_cast<int>(i), roots_[i].path, 0);
  }
}

bool FanotifySource::ResolveDir(const HandleKey& key, size_t at, std::string& base) {
  std::vector<std::string> names;  // innermost first
  HandleKey& cur = resolve_key_;
  cur = key;
  for (int depth = 0;; ++depth) {
    if (depth >= kMaxDepth) {
      spdlog::debug("fanotify: directory chain longer than {} entries; dropped", kMaxDepth);
      return false;
    }
    if (const DirPathCache::Entry* e = cache_.Find(cur)) {
      if (e->absolute) {
        base = e->path;
        break;
      }
      names.push_back(e->name);
      cur = e->parent;
      continue;
    }
    if (const RawRecord* naming = NamingRecord(cur, at)) {
      cache_.Learn(cur, naming->dir, naming->name);
      names.push_back(naming->name);
      cur = naming->dir;
      continue;
    }
    auto found = resolver_.PathOf(cur);
    if (found.ok()) {
      base = found.value();
      cache_.StoreAbsolute(cur, std::move(found).value());
      break;
    }
    // Gone already: the record that removes (and names) it is queued by now, or is about to
    // be (rmdir makes the handle stale just before it queues the record).
    if (found.status().code().value() == ESTALE && ReadQueuedSoon()) continue;
    spdlog::debug("{}", found.status().message());
    return false;
  }
  for (auto it = names.rbegin(); it != names.rend(); ++it) base = Join(base, *it);
  return true;
}

bool FanotifySource::ReadQueuedSoon() {
  if (ReadMore(extra_reads_)) return true;
  if (extra_reads_ <= 0 || !read_error_.ok()) return false;
  --extra_reads_;
  pollfd fd = {fan_fd_.get(), POLLIN, 0};
  return poll(&fd, 1, kStaleWaitMs) > 0 && ReadMore(extra_reads_);
}

const RawRecord* FanotifySource::NamingRecord(const HandleKey& key, size_t at) const {
  auto it = namings_.find(key);
  if (it == namings_.end()) return nullptr;
  auto pos = std::lower_bound(it->second.begin(), it->second.end(), at);
  return pos == it->second.end() ? nullptr : &records_[*pos];
}

int FanotifySource::MatchRoot(const std::string& path, bool self) const {
  for (size_t i = 0; i < roots_.size(); ++i) {
    const Root& root = roots_[i];
    if (!root.active) continue;
    if (path == root.path) {
      if (self) return static_cast<int>(i);
      continue;
    }
    if (options_.recursive ? source_internal::IsUnder(path, root.path)
                           : Parent(path) == root.path) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

int FanotifySource::MatchParent(const std::string& parent) const {
  for (size_t i = 0; i < roots_.size(); ++i) {
    const Root& root = roots_[i];
    if (!root.active) continue;
    if (parent == root.path ||
        (options_.recursive && source_internal::IsUnder(parent, root.path))) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

void FanotifySource::Emit(std::vector<Event>& out, uint32_t mask, uint32_t cookie, int root,
                          std::string path, pid_t pid) {
  if (!(mask & (options_.kinds | kind::kAlwaysDelivered) & kind::kAll)) return;
  Event& e = out.emplace_back();
  e.ts_ns = read_ts_;
  e.mask = mask;
  e.cookie = cookie;
  e.root = roots_[static_cast<size_t>(root)].path;
  e.path = std::move(path);
  e.source = "fanotify";
  e.attrs = writers_.For(pid, read_ts_);
}

void FanotifySource::CountUnresolved(const RawRecord& r, uint64_t kind) {
  ++counters_.unresolved;
  spdlog::debug("fanotify: could not place event {:#x} on '{}' (pid {}); dropped", kind,
                r.name.empty() ? std::string(".") : r.name, r.pid);
}

uint32_t FanotifySource::NextCookie() {
  if (++last_cookie_ == 0) ++last_cookie_;
  return last_cookie_;
}

}  // namespace fathom::fanotify_internal

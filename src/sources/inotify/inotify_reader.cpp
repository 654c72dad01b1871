// Reading the inotify queue and turning its records into Events.
#include <poll.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "sources/inotify/inotify_source_impl.h"

namespace fathom::inotify_internal {
namespace {

// Drain() stops after about this many events so that the caller can commit a batch.
constexpr size_t kMaxEventsPerDrain = 64 * 1024;
// How far after a MOVED_FROM its MOVED_TO is looked for (another process's events can land
// between the two halves), and how long to wait for it when the MOVED_FROM ends a read.
constexpr int kPairLookahead = 64;
constexpr int kPairWaitMs = 2;
// The kind bits fathom hands out; inotify uses the same values.
constexpr uint32_t kReported = kind::kAll | kind::kIsDir;

std::string_view NameOf(const inotify_event* ev) {
  return ev->len == 0 ? std::string_view() : std::string_view(ev->name, strnlen(ev->name, ev->len));
}

}  // namespace

Status InotifySource::Drain(std::vector<Event>& out) {
  if (!inotify_fd_.valid()) return Status::Error("inotify source: Drain() before Start()");
  const size_t start = out.size();
  const size_t limit = start + kMaxEventsPerDrain;
  while (out.size() < limit) {
    if (pos_ == end_ && !Fill()) {
      if (errno != EAGAIN) return Status::FromErrno(errno, "inotify source: read");
      // The queue ran dry: every event that could predate a listing has been applied.
      ReconcileDirty(out);
      break;
    }
    ProcessBuffered(out, limit);
  }
  counters_.events += out.size() - start;
  return Status::Ok();
}

bool InotifySource::Fill() {
  for (;;) {
    ssize_t n = read(inotify_fd_.get(), buf_.get(), kReadBufferBytes);
    if (n > 0) {
      pos_ = 0;
      end_ = static_cast<size_t>(n);
      bytes_read_ += end_;
      read_ts_ = NowNs();
      return true;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) errno = EAGAIN;
    return false;
  }
}

void InotifySource::ProcessBuffered(std::vector<Event>& out, size_t limit) {
  char* base = reinterpret_cast<char*>(buf_.get());
  while (pos_ < end_ && out.size() < limit) {
    auto* ev = reinterpret_cast<inotify_event*>(base + pos_);
    pos_ += sizeof(inotify_event) + ev->len;
    if (ev->mask == 0) continue;  // a MOVED_TO already handled with its MOVED_FROM
    event_end_ = bytes_read_ - (end_ - pos_);
    if (ev->mask & IN_MOVED_FROM) {
      HandleMovedFrom(ev, out);
    } else {
      Dispatch(ev, out);
    }
  }
}

inotify_event* InotifySource::FindMovedTo(uint32_t cookie) {
  char* base = reinterpret_cast<char*>(buf_.get());
  size_t p = pos_;
  for (int i = 0; i < kPairLookahead && p < end_; ++i) {
    auto* ev = reinterpret_cast<inotify_event*>(base + p);
    if ((ev->mask & IN_MOVED_TO) && ev->cookie == cookie) return ev;
    p += sizeof(inotify_event) + ev->len;
  }
  return nullptr;
}

void InotifySource::HandleMovedFrom(inotify_event* from, std::vector<Event>& out) {
  inotify_event* to = FindMovedTo(from->cookie);
  if (to == nullptr && pos_ == end_) {
    // The MOVED_FROM ended the read: its MOVED_TO may not be queued yet. Keep a copy (the
    // buffer is about to be refilled) and give the kernel a moment, as inotify-tools does.
    const size_t bytes = sizeof(inotify_event) + from->len;
    moved_from_copy_.assign((bytes + sizeof(uint64_t) - 1) / sizeof(uint64_t), 0);
    std::memcpy(moved_from_copy_.data(), from, bytes);
    from = reinterpret_cast<inotify_event*>(moved_from_copy_.data());
    pollfd p{inotify_fd_.get(), POLLIN, 0};
    if (poll(&p, 1, kPairWaitMs) > 0 && Fill()) to = FindMovedTo(from->cookie);
  }
  HandleMove(from, to, out);
  if (to != nullptr) to->mask = 0;
}

void InotifySource::Dispatch(const inotify_event* ev, std::vector<Event>& out) {
  const uint32_t m = ev->mask;
  if (m & IN_Q_OVERFLOW) {
    HandleOverflow(out);
    return;
  }
  DirNode* dir = tree_.Find(ev->wd);
  if (dir == nullptr) {
    auto it = released_wds_.find(ev->wd);
    if (it != released_wds_.end()) {
      if (m & IN_IGNORED) released_wds_.erase(it);  // the last record of a released watch
    } else if (!(m & IN_IGNORED)) {
      ++counters_.unresolved;
      spdlog::debug("inotify: event {:#x} for unknown watch {} dropped", m, ev->wd);
    }
    return;
  }
  if (m & IN_IGNORED) {
    ForgetNode(dir);
    return;
  }
  if (m & (IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT)) {
    HandleSelfEvent(dir, m, out);
    return;
  }
  const std::string_view name = NameOf(ev);
  if (name.empty()) {  // about the watched directory itself (OPEN, ATTRIB, ...)
    Emit(out, m & kReported, 0, dir, name);
    return;
  }
  auto it = dir->entries.find(name);
  if (it != dir->entries.end() && it->second.scan_pending) {
    it->second.scan_pending = false;
    if (m & IN_CREATE) return;  // already reported by the scan of this directory
  }
  if (m & IN_MOVED_TO) {  // no MOVED_FROM before it: moved in from outside the watched tree
    HandleMove(nullptr, ev, out);
    return;
  }
  const uint32_t isdir = m & IN_ISDIR;
  // A subdirectory appearing or going while the directory's listing was under way: the
  // listing may have seen another directory under this name.
  if (isdir && InWindow(dir)) MarkDirty(dir);
  if (m & IN_CREATE) {
    if (it == dir->entries.end()) it = dir->entries.try_emplace(std::string(name)).first;
    it->second.is_dir = isdir != 0;
    Emit(out, kind::kCreate | isdir, 0, dir, name);
    if (isdir && options_.recursive) {
      Status s = WatchSubtree(dir, name, ScanMode::kReport, out);
      if (!s.ok()) ReportRunningWatchError(s);
    }
    return;
  }
  if (m & IN_DELETE) {
    // An entry this source never knew was never reported to the consumer either: it was
    // created and removed before the scan of its new directory, or a rescan already reported
    // its removal. Its DELETE would only contradict the stream.
    if (it == dir->entries.end()) return;
    if (it->second.child != nullptr) ReleaseSubtree(it->second.child);
    dir->entries.erase(it);
    Emit(out, kind::kDelete | isdir, 0, dir, name);
    return;
  }
  Emit(out, m & kReported, 0, dir, name);
}

void InotifySource::HandleSelfEvent(DirNode* dir, uint32_t mask, std::vector<Event>& out) {
  // For a subdirectory the parent's DELETE,ISDIR or MOVED_FROM,ISDIR already says it.
  if (dir->root < 0) return;
  const std::string& root = tree_.roots()[dir->root];
  if (mask & IN_DELETE_SELF) {
    Emit(out, kind::kDeleteSelf, 0, dir, "");
  } else if (mask & IN_MOVE_SELF) {
    Emit(out, kind::kMoveSelf, 0, dir, "");
    spdlog::warn("inotify: watched directory {} was moved away; it is no longer watched", root);
    ReleaseSubtree(dir);
  } else {
    spdlog::warn("inotify: the file system under {} was unmounted; it is no longer watched", root);
  }
}

void InotifySource::HandleMove(const inotify_event* from, const inotify_event* to,
                               std::vector<Event>& out) {
  DirNode* from_dir = from != nullptr ? tree_.Find(from->wd) : nullptr;
  DirNode* to_dir = to != nullptr ? tree_.Find(to->wd) : nullptr;
  if (from_dir == nullptr && to_dir == nullptr) return;
  const uint32_t isdir = (from != nullptr ? from->mask : to->mask) & IN_ISDIR;
  // A directory renamed while either side's listing was under way: which directory each name
  // holds is checked again once the queue is empty.
  if (isdir &&
      ((from_dir != nullptr && InWindow(from_dir)) || (to_dir != nullptr && InWindow(to_dir)))) {
    if (from_dir != nullptr) MarkDirty(from_dir);
    if (to_dir != nullptr) MarkDirty(to_dir);
  }
  DirNode* moved = nullptr;
  EntryMap::iterator from_entry;
  if (from_dir != nullptr) {
    from_entry = from_dir->entries.find(NameOf(from));
    if (from_entry != from_dir->entries.end()) moved = from_entry->second.child;
  }
  if (moved != nullptr && to_dir != nullptr) {
    // The directory it went to is known to lie inside it, or the directory it replaces is
    // known to hold it: what is known is out of date.
    auto target = to_dir->entries.find(NameOf(to));
    DirNode* replaced = target != to_dir->entries.end() ? target->second.child : nullptr;
    if (WatchTree::IsWithin(to_dir, moved) ||
        (replaced != nullptr && replaced != moved && WatchTree::IsWithin(moved, replaced))) {
      WantRescan("a directory was renamed into a place known to lie inside it");
      return;
    }
  }
  const uint32_t cookie = NextCookie();
  if (from_dir != nullptr) {
    Emit(out, kind::kMovedFrom | isdir, cookie, from_dir, NameOf(from));
    if (from_entry != from_dir->entries.end()) from_dir->entries.erase(from_entry);
  }
  if (to_dir != nullptr) {
    const std::string_view name = NameOf(to);
    auto [it, inserted] = to_dir->entries.try_emplace(std::string(name));
    // A directory renamed over an (empty) directory replaces it.
    if (it->second.child != nullptr && it->second.child != moved) ReleaseSubtree(it->second.child);
    it->second.is_dir = isdir != 0;
    it->second.scan_pending = false;
    Emit(out, kind::kMovedTo | isdir, cookie, to_dir, name);
    if (isdir && options_.recursive) {
      if (moved != nullptr) {
        tree_.Move(moved, to_dir, name);  // within the tree: descendants follow, no rescan
      } else {
        // Moved in from outside the watched tree, from a directory not watched yet, or
        // within the tree before its contents were listed: list them and report them as
        // CREATEs, so that the stream says what the directory holds.
        Status s = WatchSubtree(to_dir, name, ScanMode::kReport, out);
        if (!s.ok()) ReportRunningWatchError(s);
      }
    }
  } else if (moved != nullptr) {
    ReleaseSubtree(moved);  // moved out of the watched tree, or its MOVED_TO is not in reach
  }
  UpdateWatchCount();
}

void InotifySource::Emit(std::vector<Event>& out, uint32_t mask, uint32_t cookie, DirNode* dir,
                         std::string_view name) {
  if ((mask & (options_.kinds | kind::kAlwaysDelivered)) == 0) return;
  Event& e = out.emplace_back();
  e.ts_ns = read_ts_;
  e.mask = mask;
  e.cookie = cookie;
  e.root = tree_.roots()[tree_.RootOf(dir)];
  tree_.AppendPath(dir, name, e.path);
  e.source = "inotify";
}

uint32_t InotifySource::NextCookie() {
  if (++last_cookie_ == 0) ++last_cookie_;
  return last_cookie_;
}

}  // namespace fathom::inotify_internal

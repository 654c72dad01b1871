// Placing and releasing watches, scanning new directories, and the overflow rescan.
#include <spdlog/spdlog.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>

#include <algorithm>
#include <cerrno>
#include <unordered_set>
#include <utility>

#include "sources/inotify/inotify_source_impl.h"
#include "sources/inotify/watch_limits.h"
#include "sources/internal/dir_listing.h"

namespace fathom::inotify_internal {

using source_internal::ListDirectory;

Result<InotifySource::Placed> InotifySource::AddWatch(DirNode* parent, std::string_view name,
                                                      ScanMode mode, std::vector<Event>& out) {
  const std::string path = tree_.ChildPath(parent, name);
  if (options_.excluded_directory && options_.excluded_directory(path)) return Placed{};
  int wd = inotify_add_watch(inotify_fd_.get(), path.c_str(), scan_mask_);
  if (wd < 0) {
    int err = errno;
    if (err == ENOENT || err == ENOTDIR) {
      // Gone, replaced, or a directory above it renamed since it was seen: the parent's next
      // listing (at its path of then) settles whether it is there.
      MarkDirty(parent);
      return Placed{};
    }
    ++counters_.watch_failures;
    parent->entries[std::string(name)].watch_failed = true;
    if (err != EACCES && err != EPERM) return WatchError(err, path);
    // Not readable by this user: as with `inotifywait -r`, the rest is still watched.
    ReportRunningWatchError(
        Status::Error("cannot watch " + path +
                      ": permission denied; changes below it are not reported (run "
                      "as a user who may read it, or leave it out with --exclude)"));
    return Placed{};
  }
  // Events queued about `parent` may be older than this watch: see OpenWindow.
  OpenWindow(parent);
  DirNode* existing = tree_.Find(wd);
  if (existing != nullptr) {
    // Already watched: the same directory reached again. A root stays a root.
    if (existing->root >= 0) return Placed{};
    if (existing->parent == parent && existing->name == name) return Placed{existing, false};
    if (WatchTree::IsWithin(parent, existing)) {
      WantRescan("a directory was found inside one known to lie inside it");
      return Placed{};
    }
  }
  // Another directory known at this path was replaced since: what was known below it is gone.
  if (auto slot = parent->entries.find(name); slot != parent->entries.end()) {
    if (DirNode* replaced = slot->second.child; replaced != nullptr && replaced != existing) {
      if (existing != nullptr && WatchTree::IsWithin(existing, replaced)) {
        WantRescan("a directory was found in place of one known to hold it");
        return Placed{};
      }
      if (mode == ScanMode::kReport) {
        DeleteSubtree(replaced, out);
      } else {
        ReleaseSubtree(replaced);
      }
    }
  }
  if (existing != nullptr) {
    // Known at another place: it was moved here. Tell it as a move, so that a consumer moves
    // what it knows below the old place too.
    DirNode* old_parent = existing->parent;
    const std::string old_name = existing->name;
    const uint32_t cookie = NextCookie();
    if (mode == ScanMode::kReport)
      Emit(out, kind::kMovedFrom | kind::kIsDir, cookie, old_parent, old_name);
    tree_.Move(existing, parent, name);
    old_parent->entries.erase(old_name);
    if (mode == ScanMode::kReport) Emit(out, kind::kMovedTo | kind::kIsDir, cookie, parent, name);
    return Placed{existing, false, true};
  }
  DirNode* node = tree_.AddChild(parent, name, wd);
  UpdateWatchCount();
  return Placed{node, true};
}

Status InotifySource::WatchSubtree(DirNode* parent, std::string_view name, ScanMode mode,
                                   std::vector<Event>& out) {
  FATHOM_ASSIGN_OR_RETURN(Placed placed, AddWatch(parent, name, mode, out));
  if (placed.node == nullptr || !placed.is_new) return Status::Ok();
  std::vector<DirNode*> pending{placed.node};
  Status first;
  while (!pending.empty()) {
    DirNode* node = pending.back();
    pending.pop_back();
    Status s = ListInto(node, mode, out, pending);
    if (first.ok() && !s.ok()) first = s;
  }
  return first;
}

Status InotifySource::ListInto(DirNode* node, ScanMode mode, std::vector<Event>& out,
                               std::vector<DirNode*>& pending) {
  Status first;
  // The watch is in place before the listing: whatever the listing misses, an event reports.
  const std::string path = tree_.DirPath(node);
  Status listed = ListDirectory(path, [&](std::string_view name, bool is_dir) {
    auto [it, inserted] = node->entries.try_emplace(std::string(name));
    if (!inserted) return;  // already known from an event
    it->second.is_dir = is_dir;
    if (is_dir && options_.recursive) {
      Result<Placed> placed = AddWatch(node, name, mode, out);
      if (!placed.ok()) {
        if (first.ok()) first = placed.status();
      } else if (placed->moved) {
        return;  // reported as moved here from where it was known
      } else if (placed->node != nullptr && placed->is_new) {
        pending.push_back(placed->node);
      }
    }
    if (mode == ScanMode::kReport) {
      node->entries[std::string(name)].scan_pending = true;
      Emit(out, kind::kCreate | (is_dir ? kind::kIsDir : 0), 0, node, name);
    }
  });
  OpenWindow(node);
  EnableReads(node, path);
  if (listed.code() == std::errc::no_such_file_or_directory ||
      listed.code() == std::errc::not_a_directory) {
    MarkDirty(node);  // not at this path any more: listed again where the events put it
  } else if (!listed.ok()) {
    spdlog::warn("inotify: {}", listed.message());
  }
  return first;
}

void InotifySource::ReleaseSubtree(DirNode* node) {
  tree_.RemoveSubtree(node, [this](int wd) {
    inotify_rm_watch(inotify_fd_.get(), wd);
    released_wds_.insert(wd);
  });
  UpdateWatchCount();
}

void InotifySource::EnableReads(DirNode* node, const std::string& path) {
  if ((kernel_mask_ | IN_MASK_ADD) == scan_mask_) return;
  int wd = inotify_add_watch(inotify_fd_.get(), path.c_str(), kernel_mask_ | IN_MASK_ADD);
  // Another descriptor: the directory was replaced after its listing; the new one is not ours.
  if (wd >= 0 && wd != node->wd && tree_.Find(wd) == nullptr)
    inotify_rm_watch(inotify_fd_.get(), wd);
}

void InotifySource::ForgetNode(DirNode* node) {
  const int own = node->wd;
  tree_.RemoveSubtree(node, [this, own](int wd) {
    if (wd == own) return;  // the kernel already removed it
    inotify_rm_watch(inotify_fd_.get(), wd);
    released_wds_.insert(wd);
  });
  UpdateWatchCount();
}

void InotifySource::ReportRunningWatchError(const Status& status) {
  // The event that led here was reported; only the directory's later changes are missed.
  if (counters_.watch_failures == 1 || counters_.watch_failures % 1000 == 0) {
    spdlog::warn("inotify: {} (directories left unwatched so far: {})", status.message(),
                 counters_.watch_failures);
  } else {
    spdlog::debug("inotify: {}", status.message());
  }
}

void InotifySource::HandleOverflow(std::vector<Event>& out) {
  ++counters_.overflows;
  spdlog::warn(
      "inotify: the kernel queue overflowed (fs.inotify.max_queued_events); events were lost, "
      "rescanning the watched directories");
  Rescan(out);
}

void InotifySource::WantRescan(std::string_view why) {
  if (!rescan_wanted_) {
    spdlog::warn("inotify: {}; the watched directories will be rescanned once the queue is read",
                 why);
  }
  rescan_wanted_ = true;
}

void InotifySource::Rescan(std::vector<Event>& out) {
  rescan_wanted_ = false;
  ++counters_.rescans;
  std::vector<DirNode*> roots = tree_.RootNodes();
  std::sort(roots.begin(), roots.end(),
            [](const DirNode* a, const DirNode* b) { return a->root < b->root; });
  std::vector<int> pending;
  for (DirNode* root : roots) {
    Emit(out, kind::kOverflow, 0, root, "");
    pending.push_back(root->wd);
  }
  while (!pending.empty()) {
    DirNode* node = tree_.Find(pending.back());
    pending.pop_back();
    if (node != nullptr) Reconcile(node, Depth::kWholeTree, out, pending);
  }
  UpdateWatchCount();
}

void InotifySource::OpenWindow(DirNode* node) {
  int queued = 0;
  if (ioctl(inotify_fd_.get(), FIONREAD, &queued) != 0) queued = 0;
  // Everything read but not processed yet, and everything still queued in the kernel.
  node->window_end = bytes_read_ + static_cast<uint64_t>(queued);
}

bool InotifySource::StillAt(const DirNode* node, const std::string& path) {
  return inotify_add_watch(inotify_fd_.get(), path.c_str(), scan_mask_) == node->wd;
}

void InotifySource::MarkDirty(DirNode* node) {
  if (node->dirty) return;
  node->dirty = true;
  dirty_.push_back(node->wd);
}

void InotifySource::ReconcileDirty(std::vector<Event>& out) {
  if (rescan_wanted_) Rescan(out);
  // A verifying listing can find more to verify (a directory met at another place); the rest
  // waits for the next time the queue runs dry.
  for (int round = 0; round < 4 && !dirty_.empty(); ++round) {
    std::vector<int> wds;
    wds.swap(dirty_);
    std::vector<int> pending;
    for (int wd : wds) {
      DirNode* node = tree_.Find(wd);
      if (node == nullptr || !node->dirty) continue;
      node->dirty = false;
      pending.push_back(wd);
      while (!pending.empty()) {
        DirNode* n = tree_.Find(pending.back());
        pending.pop_back();
        if (n != nullptr) Reconcile(n, Depth::kThisDirectory, out, pending);
      }
    }
  }
  UpdateWatchCount();
}

void InotifySource::Reconcile(DirNode* node, Depth depth, std::vector<Event>& out,
                              std::vector<int>& pending) {
  const std::string path = tree_.DirPath(node);
  // The directory at this path may have been replaced meanwhile (its IN_IGNORED can be lost
  // in an overflow too): re-adding the watch returns the existing descriptor only if not.
  int wd = inotify_add_watch(inotify_fd_.get(), path.c_str(), scan_mask_);
  if (wd < 0) {
    if (errno != ENOENT && errno != ENOTDIR) ReportRunningWatchError(WatchError(errno, path));
    // Gone: its parent's listing reports it.
    if (depth == Depth::kThisDirectory && node->parent != nullptr) MarkDirty(node->parent);
    return;
  }
  if (wd != node->wd) {
    if (tree_.Find(wd) != nullptr) {
      if (!ForgetOldPlace(path, node, out)) return;
      wd = inotify_add_watch(inotify_fd_.get(), path.c_str(), scan_mask_);
      if (wd < 0) return;
    }
    inotify_rm_watch(inotify_fd_.get(), node->wd);
    released_wds_.insert(node->wd);
    tree_.Rekey(node, wd);
  }
  std::vector<std::pair<std::string, bool>> present;
  Status listed = ListDirectory(path, [&](std::string_view name, bool is_dir) {
    present.emplace_back(std::string(name), is_dir);
  });
  if (!listed.ok()) {
    if (depth == Depth::kThisDirectory && (listed.code() == std::errc::no_such_file_or_directory ||
                                           listed.code() == std::errc::not_a_directory)) {
      MarkDirty(node);
    }
    return;
  }
  OpenWindow(node);
  EnableReads(node, path);
  std::unordered_set<std::string_view> seen;
  seen.reserve(present.size());
  for (const auto& [name, is_dir] : present) {
    seen.insert(name);
    auto it = node->entries.find(name);
    if (it != node->entries.end() && it->second.is_dir != is_dir) {  // replaced by another type
      if (it->second.child != nullptr) {
        DeleteSubtree(it->second.child, out);
      }
      Emit(out, kind::kDelete | (it->second.is_dir ? kind::kIsDir : 0), 0, node, name);
      node->entries.erase(it);
      it = node->entries.end();
    }
    if (it == node->entries.end()) {
      DirEntry& entry = node->entries[name];
      entry.is_dir = is_dir;
      entry.scan_pending = true;
      Emit(out, kind::kCreate | (is_dir ? kind::kIsDir : 0), 0, node, name);
      if (is_dir && options_.recursive && ForgetOldPlace(tree_.ChildPath(node, name), node, out)) {
        Status s = WatchSubtree(node, name, ScanMode::kReport, out);
        if (!s.ok()) ReportRunningWatchError(s);
      }
      continue;
    }
    if (!is_dir || !options_.recursive) continue;
    if (DirNode* child = it->second.child; child != nullptr) {
      if (depth == Depth::kWholeTree || !StillAt(child, tree_.ChildPath(node, name)))
        pending.push_back(child->wd);
    } else if (depth == Depth::kWholeTree || !it->second.watch_failed) {
      // Known but not watched (gone when its watch was placed, or the watch failed): watch
      // and report its contents. A verifying listing does not retry failed watches.
      Status s = WatchSubtree(node, name, ScanMode::kReport, out);
      if (!s.ok()) ReportRunningWatchError(s);
    }
  }
  for (auto it = node->entries.begin(); it != node->entries.end();) {
    if (seen.contains(it->first)) {
      ++it;
      continue;
    }
    if (it->second.child != nullptr) {
      DeleteSubtree(it->second.child, out);
    }
    Emit(out, kind::kDelete | (it->second.is_dir ? kind::kIsDir : 0), 0, node, it->first);
    it = node->entries.erase(it);
  }
}

bool InotifySource::ForgetOldPlace(const std::string& path, const DirNode* reconciling,
                                   std::vector<Event>& out) {
  const int wd = inotify_add_watch(inotify_fd_.get(), path.c_str(), scan_mask_);
  DirNode* other = wd >= 0 ? tree_.Find(wd) : nullptr;
  if (other == nullptr) return true;
  if (other->root >= 0) return false;
  if (WatchTree::IsWithin(reconciling, other)) {
    WantRescan("a directory was found inside one known to lie inside it");
    return false;
  }
  // Its old place is now an entry without a watch: its parent's listing settles it.
  if (other->parent != nullptr) MarkDirty(other->parent);
  DeleteSubtree(other, out);
  return true;
}

void InotifySource::DeleteSubtree(DirNode* node, std::vector<Event>& out) {
  EmitDeletesBelow(node, out);
  ReleaseSubtree(node);  // walks the entries: they must still be there
}

void InotifySource::EmitDeletesBelow(DirNode* node, std::vector<Event>& out) {
  for (auto& [name, entry] : node->entries) {
    if (entry.child != nullptr) EmitDeletesBelow(entry.child, out);
    Emit(out, kind::kDelete | (entry.is_dir ? kind::kIsDir : 0), 0, node, name);
  }
}

}  // namespace fathom::inotify_internal

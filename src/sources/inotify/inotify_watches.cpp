// Placing and releasing watches, scanning new directories, and the overflow rescan.
#include <spdlog/spdlog.h>
#include <sys/inotify.h>

#include <algorithm>
#include <cerrno>
#include <unordered_set>
#include <utility>

#include "sources/inotify/dir_listing.h"
#include "sources/inotify/inotify_source_impl.h"
#include "sources/inotify/watch_limits.h"

namespace fathom::inotify_internal {

Result<InotifySource::Placed> InotifySource::AddWatch(DirNode* parent, std::string_view name) {
  const std::string path = tree_.ChildPath(parent, name);
  if (options_.excluded_directory && options_.excluded_directory(path)) return Placed{};
  int wd = inotify_add_watch(inotify_fd_.get(), path.c_str(), scan_mask_);
  if (wd < 0) {
    int err = errno;
    if (err == ENOENT || err == ENOTDIR) return Placed{};  // gone or replaced already
    ++counters_.watch_failures;
    return WatchError(err, path);
  }
  if (DirNode* existing = tree_.Find(wd)) {
    // Already watched: the same directory reached again. A root stays a root.
    if (existing->root >= 0) return Placed{};
    if (existing->parent != parent || existing->name != name) tree_.Move(existing, parent, name);
    return Placed{existing, false};
  }
  DirNode* node = tree_.AddChild(parent, name, wd);
  UpdateWatchCount();
  return Placed{node, true};
}

Status InotifySource::WatchSubtree(DirNode* parent, std::string_view name, ScanMode mode,
                                   std::vector<Event>& out) {
  FATHOM_ASSIGN_OR_RETURN(Placed placed, AddWatch(parent, name));
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
    if (mode == ScanMode::kReport) {
      it->second.scan_pending = true;
      Emit(out, kind::kCreate | (is_dir ? kind::kIsDir : 0), 0, node, name);
    }
    if (!is_dir || !options_.recursive) return;
    Result<Placed> placed = AddWatch(node, name);
    if (!placed.ok()) {
      if (first.ok()) first = placed.status();
      return;
    }
    if (placed->node != nullptr && placed->is_new) pending.push_back(placed->node);
  });
  EnableReads(node, path);
  if (!listed.ok() && listed.code() != std::errc::no_such_file_or_directory &&
      listed.code() != std::errc::not_a_directory) {
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
  ++counters_.rescans;
  spdlog::warn(
      "inotify: the kernel queue overflowed (fs.inotify.max_queued_events); events were lost, "
      "rescanning the watched directories");
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
    if (node != nullptr) Reconcile(node, out, pending);
  }
  UpdateWatchCount();
}

void InotifySource::Reconcile(DirNode* node, std::vector<Event>& out, std::vector<int>& pending) {
  const std::string path = tree_.DirPath(node);
  // The directory at this path may have been replaced meanwhile (its IN_IGNORED can be lost
  // in an overflow too): re-adding the watch returns the existing descriptor only if not.
  int wd = inotify_add_watch(inotify_fd_.get(), path.c_str(), scan_mask_);
  if (wd < 0) {
    if (errno != ENOENT && errno != ENOTDIR) ReportRunningWatchError(WatchError(errno, path));
    return;  // gone: its parent's listing reports it
  }
  if (wd != node->wd) {
    if (tree_.Find(wd) != nullptr) {
      if (!ForgetOldPlace(path, out)) return;
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
  if (!listed.ok()) return;
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
      if (is_dir && options_.recursive && ForgetOldPlace(tree_.ChildPath(node, name), out)) {
        Status s = WatchSubtree(node, name, ScanMode::kReport, out);
        if (!s.ok()) ReportRunningWatchError(s);
      }
      continue;
    }
    if (!is_dir || !options_.recursive) continue;
    if (it->second.child != nullptr) {
      pending.push_back(it->second.child->wd);
    } else {  // known but not watched (an earlier watch failed): watch and report its contents
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

bool InotifySource::ForgetOldPlace(const std::string& path, std::vector<Event>& out) {
  const int wd = inotify_add_watch(inotify_fd_.get(), path.c_str(), scan_mask_);
  DirNode* other = wd >= 0 ? tree_.Find(wd) : nullptr;
  if (other == nullptr) return true;
  if (other->root >= 0) return false;
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

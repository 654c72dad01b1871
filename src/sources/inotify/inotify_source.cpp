#include "sources/inotify/inotify_source.h"

#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>

#include "sources/inotify/inotify_source_impl.h"
#include "sources/inotify/watch_limits.h"

namespace fathom {
namespace inotify_internal {
namespace {

// Structural events are always needed to keep the directory tree right; the rest only when
// the consumer asked for them (fathom's own directory scans would otherwise feed back reads).
uint32_t KernelMask(uint32_t kinds) {
  uint32_t mask = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF |
                  IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK;
  if (kinds & kind::kModify) mask |= IN_MODIFY;
  if (kinds & kind::kAttrib) mask |= IN_ATTRIB;
  if (kinds & kind::kCloseWrite) mask |= IN_CLOSE_WRITE;
  if (kinds & kind::kCloseNowrite) mask |= IN_CLOSE_NOWRITE;
  if (kinds & kind::kOpen) mask |= IN_OPEN;
  if (kinds & kind::kAccess) mask |= IN_ACCESS;
  return mask;
}

Status Detect(const SourceOptions& options) {
  if (options.roots.empty()) return Status::Error("inotify: no directory to watch was given");
  int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) return InstanceError(errno);
  close(fd);
  for (const auto& root : options.roots) {
    struct stat st;
    if (stat(root.c_str(), &st) != 0) return Status::FromErrno(errno, "cannot watch " + root);
    if (!S_ISDIR(st.st_mode)) {
      return Status::Error("cannot watch " + root +
                           ": not a directory (inotify watches directories)");
    }
  }
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<Source>> InotifySource::Create(const SourceOptions& options) {
  FATHOM_ASSIGN_OR_RETURN(auto waker, source_internal::StopWaker::Create("inotify"));
  auto roots = source_internal::DistinctRoots(options.roots, options.recursive);
  return std::unique_ptr<Source>(new InotifySource(options, std::move(roots), std::move(waker)));
}

InotifySource::InotifySource(SourceOptions options, std::vector<std::string> roots,
                             source_internal::StopWaker waker)
    : options_(std::move(options)),
      tree_(std::move(roots)),
      kernel_mask_(KernelMask(options_.kinds)),
      scan_mask_((kernel_mask_ & ~(IN_OPEN | IN_ACCESS | IN_CLOSE_NOWRITE)) | IN_MASK_ADD),
      waker_(std::move(waker)),
      buf_(std::make_unique<uint64_t[]>(kReadBufferBytes / sizeof(uint64_t))) {}

Status InotifySource::Start() {
  if (inotify_fd_.valid()) return Status::Error("inotify source: Start() called twice");
  int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) return InstanceError(errno);
  inotify_fd_ = UniqueFd(fd);
  std::vector<Event> none;
  std::vector<DirNode*> pending;
  for (size_t i = 0; i < tree_.roots().size(); ++i) {
    const std::string& root = tree_.roots()[i];
    int wd = inotify_add_watch(fd, root.c_str(), scan_mask_);
    if (wd < 0) return WatchError(errno, root);
    if (tree_.Find(wd) != nullptr) continue;  // the same directory under another name
    pending.push_back(tree_.AddRoot(wd, static_cast<int>(i)));
    while (!pending.empty()) {
      DirNode* node = pending.back();
      pending.pop_back();
      FATHOM_RETURN_IF_ERROR(ListInto(node, ScanMode::kSilent, none, pending));
    }
  }
  UpdateWatchCount();
  return Status::Ok();
}

Status InotifySource::Wait(std::chrono::milliseconds timeout) {
  if (pos_ < end_) return Status::Ok();  // records already read wait in the buffer
  return waker_.Wait(inotify_fd_.get(), timeout);
}

void InotifySource::Stop() { waker_.Stop(); }

SourceStats InotifySource::Stats() const { return counters_.Snapshot(); }

}  // namespace inotify_internal

SourceInfo InotifySourceInfo() {
  return {.name = "inotify",
          .priority = 10,
          .detect = inotify_internal::Detect,
          .create = inotify_internal::InotifySource::Create};
}

}  // namespace fathom

#include "sources/fanotify/fanotify_source.h"

#include <fcntl.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <string>
#include <vector>

#include "fathom/config.h"
#include "sources/fanotify/fanotify_source_impl.h"

namespace fathom {
namespace fanotify_internal {
namespace {

// FAN_UNLIMITED_QUEUE: a file-system mark queues every change on the whole file system, not
// only under the roots, so unrelated activity would overflow the default 16384-event queue
// and force OVERFLOW on the roots. The flag needs CAP_SYS_ADMIN, which FAN_MARK_FILESYSTEM
// needs anyway; the queue's memory is charged to this process's memory cgroup. The setting
// fanotify.unlimited-queue=false leaves the queue bounded.
constexpr unsigned kInitBase = FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK;
constexpr unsigned kEventFlags = O_RDONLY | O_LARGEFILE | O_CLOEXEC;

// FAN_REPORT_TARGET_FID (Linux >= 5.17) adds the object's own handle to CREATE/DELETE/MOVE
// records; it is what lets the directory cache learn from the stream. Without it (5.9-5.16)
// directories are looked up by handle.
int InitGroup(bool unlimited_queue, bool* target_fid) {
  const unsigned base = kInitBase | (unlimited_queue ? FAN_UNLIMITED_QUEUE : 0u);
#if HAVE_FAN_RENAME
  int fd = fanotify_init(base | FAN_REPORT_DFID_NAME_TARGET, kEventFlags);
  if (fd >= 0 || errno != EINVAL) {
    *target_fid = fd >= 0;
    return fd;
  }
#endif
  *target_fid = false;
  return fanotify_init(base | FAN_REPORT_DFID_NAME | FAN_REPORT_FID, kEventFlags);
}

Status InitError(int err) {
  if (err == EPERM) return Status::Error("fanotify needs root (CAP_SYS_ADMIN)");
  if (err == EINVAL) {
    return Status::Error("kernel too old for FAN_REPORT_DFID_NAME (needs Linux >= 5.9)");
  }
  return Status::FromErrno(err, "fanotify_init");
}

// Structural kinds are always needed to keep paths right; the rest only when asked for.
uint64_t KernelMask(uint32_t kinds, bool rename) {
  uint64_t mask = FAN_CREATE | FAN_DELETE | FAN_DELETE_SELF | FAN_MOVE_SELF | FAN_ONDIR;
#if HAVE_FAN_RENAME
  mask |= rename ? FAN_RENAME : (FAN_MOVED_FROM | FAN_MOVED_TO);
#else
  (void)rename;
  mask |= FAN_MOVED_FROM | FAN_MOVED_TO;
#endif
  if (kinds & kind::kModify) mask |= FAN_MODIFY;
  if (kinds & kind::kAttrib) mask |= FAN_ATTRIB;
  if (kinds & kind::kCloseWrite) mask |= FAN_CLOSE_WRITE;
  if (kinds & kind::kCloseNowrite) mask |= FAN_CLOSE_NOWRITE;
  if (kinds & kind::kOpen) mask |= FAN_OPEN;
  if (kinds & kind::kAccess) mask |= FAN_ACCESS;
  return mask;
}

Status MarkError(int err, const std::string& root) {
  return Status::FromErrno(
      err, "file system at " + root + " cannot be watched whole by fanotify (fanotify_mark)");
}

// The top of the mount that holds `path` (walking up while the device stays the same). Its
// descriptor serves open_by_handle_at; unlike `path` itself it cannot be removed, and holding
// it does not hold back a root's DELETE_SELF (which the kernel sends when the last reference
// to the removed directory goes).
std::string MountTop(const std::string& path, dev_t dev) {
  std::string top = path;
  while (top != "/") {
    size_t slash = top.rfind('/');
    std::string parent = slash == 0 ? "/" : top.substr(0, slash);
    struct stat st;
    if (stat(parent.c_str(), &st) != 0 || st.st_dev != dev) break;
    top = parent;
  }
  return top;
}

}  // namespace

const std::vector<std::string>& SettingKeys() {
  static const std::vector<std::string> keys{"fanotify.cache-size", "fanotify.use-rename",
                                             "fanotify.unlimited-queue"};
  return keys;
}

Result<FanotifySettings> ParseSettings(const SourceOptions& options) {
  FanotifySettings s;
  for (const auto& [key, value] : options.settings) {
    if (key == "fanotify.cache-size") {
      size_t n = 0;
      auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (ec != std::errc() || end != value.data() + value.size() || n == 0) {
        return Status::Error("fanotify.cache-size must be a positive number of directories, not '" +
                             value + "'");
      }
      s.cache_size = n;
    } else if (key == "fanotify.use-rename") {
      if (value != "true" && value != "false") {
        return Status::Error("fanotify.use-rename must be true or false, not '" + value + "'");
      }
      s.use_rename = value == "true";
    } else if (key == "fanotify.unlimited-queue") {
      if (value != "true" && value != "false") {
        return Status::Error("fanotify.unlimited-queue must be true or false, not '" + value + "'");
      }
      s.unlimited_queue = value == "true";
    } else if (key.rfind("fanotify.", 0) == 0) {
      std::string known;
      for (const auto& k : SettingKeys()) known += (known.empty() ? "" : ", ") + k;
      return Status::Error("unknown setting " + key + " (known: " + known + ")");
    }
  }
  return s;
}

Status Detect(const SourceOptions& options) {
  if (options.roots.empty()) return Status::Error("fanotify: no directory to watch was given");
  FATHOM_RETURN_IF_ERROR(ParseSettings(options).status());
  bool target_fid = false;
  int fd = InitGroup(true, &target_fid);
  if (fd < 0) return InitError(errno);
  UniqueFd group(fd);
  for (const auto& root : options.roots) {
    struct stat st;
    if (stat(root.c_str(), &st) != 0) return Status::FromErrno(errno, "cannot watch " + root);
    if (!S_ISDIR(st.st_mode)) return Status::Error("cannot watch " + root + ": not a directory");
    FATHOM_RETURN_IF_ERROR(HandleOfPath(root).status());
    // A file-system mark is O(1); trying it is the only sure test (btrfs subvolumes, file
    // systems without an fsid and some network file systems refuse it).
    if (fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_CREATE | FAN_ONDIR, AT_FDCWD,
                      root.c_str()) != 0) {
      return MarkError(errno, root);
    }
  }
  return Status::Ok();
}

Result<std::unique_ptr<Source>> FanotifySource::Create(const SourceOptions& options) {
  FATHOM_ASSIGN_OR_RETURN(FanotifySettings settings, ParseSettings(options));
  if (options.roots.empty()) return Status::Error("fanotify: no directory to watch was given");
  FATHOM_ASSIGN_OR_RETURN(auto waker, source_internal::StopWaker::Create("fanotify"));
  auto roots = source_internal::DistinctRoots(options.roots, options.recursive);
  return std::unique_ptr<Source>(
      new FanotifySource(options, settings, std::move(roots), std::move(waker)));
}

FanotifySource::FanotifySource(SourceOptions options, FanotifySettings settings,
                               std::vector<std::string> roots, source_internal::StopWaker waker)
    : options_(std::move(options)),
      settings_(settings),
      cache_(settings.cache_size),
      waker_(std::move(waker)),
      buf_(std::make_unique<uint64_t[]>(kReadBufferBytes / sizeof(uint64_t))) {
  for (auto& r : roots) roots_.push_back(Root{std::move(r), {}, true});
}

Status FanotifySource::Start() {
  if (fan_fd_.valid()) return Status::Error("fanotify source: Start() called twice");
  own_pid_ = getpid();
  int fd = InitGroup(settings_.unlimited_queue, &report_target_fid_);
  if (fd < 0) return InitError(errno);
  fan_fd_ = UniqueFd(fd);
  for (auto& root : roots_) {
    FATHOM_ASSIGN_OR_RETURN(root.key, HandleOfPath(root.path));
    cache_.Pin(root.key, root.path);
  }
  if (options_.recursive) {
    // Opened before the marks are placed, so that no mount made meanwhile goes unseen.
    FATHOM_ASSIGN_OR_RETURN(MountTable table, MountTable::Open());
    mount_table_.emplace(std::move(table));
  }
  FATHOM_RETURN_IF_ERROR(AddMarks());
  if (mount_table_) WatchMounts(true);
  return Status::Ok();
}

int FanotifySource::MarkFileSystem(const std::string& path) {
  int rc = fanotify_mark(fan_fd_.get(), FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
                         KernelMask(options_.kinds, use_rename_), AT_FDCWD, path.c_str());
  if (rc != 0 && errno == EINVAL && use_rename_) {
    // Headers newer than the kernel: FAN_RENAME needs Linux >= 5.17.
    spdlog::debug("fanotify: FAN_RENAME refused; pairing MOVED_FROM/MOVED_TO instead");
    use_rename_ = false;
    rc = fanotify_mark(fan_fd_.get(), FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
                       KernelMask(options_.kinds, use_rename_), AT_FDCWD, path.c_str());
  }
  return rc == 0 ? 0 : errno;
}

Status FanotifySource::AddMarks() {
  use_rename_ = settings_.use_rename && report_target_fid_;
  for (const auto& root : roots_) {
    struct stat st;
    if (stat(root.path.c_str(), &st) != 0)
      return Status::FromErrno(errno, "cannot watch " + root.path);
    if (marked_.contains(st.st_dev)) continue;
    if (int err = MarkFileSystem(root.path); err != 0) return MarkError(err, root.path);
    const std::string top = MountTop(root.path, st.st_dev);
    int mount_fd = open(top.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (mount_fd < 0) return Status::FromErrno(errno, "fanotify source: open " + top);
    UniqueFd owned(mount_fd);
    FATHOM_ASSIGN_OR_RETURN(std::string fsid, FsidOf(mount_fd, top));
    marked_.emplace(st.st_dev, MarkedFs{fsid, true});
    resolver_.AddFileSystem(fsid, std::move(owned));
  }
  counters_.watches = marked_.size();
  return Status::Ok();
}

void FanotifySource::WatchMounts(bool at_start) {
  auto table = mount_table_->Read();
  if (!table.ok()) {
    spdlog::warn("{}; file systems mounted below the watched directories from now on are not "
                 "watched",
                 table.status().message());
    mount_table_.reset();
    return;
  }
  std::map<std::string, const MountEntry*> below;  // mount point -> its topmost mount
  for (const auto& mount : table.value()) {
    for (const auto& root : roots_) {
      if (root.active && source_internal::IsUnder(mount.mount_point, root.path)) {
        below[mount.mount_point] = &mount;
        break;
      }
    }
  }
  for (auto it = mounts_.begin(); it != mounts_.end();) {
    if (below.contains(it->first)) {
      ++it;
      continue;
    }
    spdlog::info("fanotify: {} was unmounted", it->first);
    const dev_t dev = it->second;
    it = mounts_.erase(it);
    const bool still_seen = std::any_of(mounts_.begin(), mounts_.end(),
                                        [&](const auto& m) { return m.second == dev; });
    auto marked = marked_.find(dev);
    if (still_seen || marked == marked_.end() || marked->second.holds_root) continue;
    // Its marks went with its superblock; a new file system may get the same device number.
    resolver_.RemoveFileSystem(marked->second.fsid);
    marked_.erase(marked);
    cache_.Clear();
  }
  for (const auto& [mount_point, mount] : below) {
    if (!mounts_.contains(mount_point)) WatchMount(*mount, at_start);
  }
  counters_.watches = marked_.size();
}

void FanotifySource::WatchMount(const MountEntry& mount, bool at_start) {
  const std::string& at = mount.mount_point;
  const std::string what = "the " + mount.fs_type + " file system (" + mount.source + ") mounted at " + at;
  struct stat st;
  if (stat(at.c_str(), &st) != 0) {
    spdlog::debug("fanotify: {} is gone already: {}", at, std::strerror(errno));
    return;
  }
  mounts_.emplace(at, st.st_dev);
  if (marked_.contains(st.st_dev)) {
    ++counters_.watch_failures;
    spdlog::warn("fanotify: {} shows a file system already watched through another mount (a bind "
                 "mount?); changes made through {} are reported under that other mount's paths, "
                 "not below {} (watch {} with --backend inotify to see them there)",
                 what, at, at, at);
    return;
  }
  if (int err = MarkFileSystem(at); err != 0) {
    ++counters_.watch_failures;
    spdlog::warn("fanotify: cannot watch {}: {}{}; changes below {} are NOT reported "
                 "(watch it with --backend inotify, or unmount it)",
                 what, std::strerror(err),
                 err == EOPNOTSUPP || err == ENODEV || err == EXDEV ? " (it has no file handles)" : "",
                 at);
    return;
  }
  int fd = open(at.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  UniqueFd owned(fd);
  auto fsid = fd < 0 ? Result<std::string>(Status::FromErrno(errno, "open " + at)) : FsidOf(fd, at);
  if (!fsid.ok()) {
    ++counters_.watch_failures;
    spdlog::warn("fanotify: cannot watch {}: {}", what, fsid.status().message());
    return;
  }
  marked_.emplace(st.st_dev, MarkedFs{fsid.value(), false});
  resolver_.AddFileSystem(fsid.value(), at);
  spdlog::info("fanotify: watching {}{}", what, at_start ? "" : " (mounted after the start)");
}

Status FanotifySource::Wait(std::chrono::milliseconds timeout) {
  if (!mount_table_) return waker_.Wait(fan_fd_.get(), timeout);
  pollfd fds[2] = {{fan_fd_.get(), POLLIN, 0}, {mount_table_->fd(), POLLPRI, 0}};
  FATHOM_RETURN_IF_ERROR(waker_.Wait(fds, timeout));
  // Polling consumed the change notice: remember it for Drain().
  if (fds[1].revents & (POLLPRI | POLLERR)) mounts_changed_ = true;
  return Status::Ok();
}

void FanotifySource::Stop() { waker_.Stop(); }

SourceStats FanotifySource::Stats() const { return counters_.Snapshot(); }

}  // namespace fanotify_internal

SourceInfo FanotifySourceInfo() {
  return {.name = "fanotify",
          .priority = 20,
          .detect = fanotify_internal::Detect,
          .create = fanotify_internal::FanotifySource::Create,
          .settings = fanotify_internal::SettingKeys(),
          .check_settings = [](const SourceOptions& o) {
            return fanotify_internal::ParseSettings(o).status();
          }};
}

}  // namespace fathom

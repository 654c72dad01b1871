// File data and attributes: open/read/write/release and setattr, with their records.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>

#include "lustre_sim/fuse/errno_of.h"
#include "lustre_sim/fuse/sim_fs.h"

namespace fathom::lustre_sim {

uint32_t SetattrRecordType(uint32_t la_valid, uint64_t mask) {
  uint64_t bits = 0;
  if (la_valid & kLaSize) bits |= 1ULL << CL_TRUNC;
  if (la_valid & ~(kLaCtime | kLaMtime | kLaAtime)) bits |= 1ULL << CL_SETATTR;
  if (la_valid & kLaMtime) bits |= 1ULL << CL_MTIME;
  if (la_valid & kLaCtime) bits |= 1ULL << CL_CTIME;
  if (la_valid & kLaAtime) bits |= 1ULL << CL_ATIME;
  bits &= mask;
  if (bits == 0) return 0;
  return static_cast<uint32_t>(__builtin_ctzll(bits));
}

uint32_t LustreOpenFlags(int flags) {
  return static_cast<uint32_t>((flags & ~O_ACCMODE) | ((flags + 1) & O_ACCMODE));
}

void SimFs::LogRecord(const Caller& caller, uint32_t type, const Node& node, const RecordDetails& details) {
  Status st = state_->Record(caller, type, node.fid, details);
  if (!st.ok()) fuse_log(FUSE_LOG_ERR, "fathom-lustre-sim: %s\n", st.message().c_str());
}

void SimFs::LogSetattr(const Caller& caller, const Node& node, uint32_t la_valid) {
  auto mdt = state_->Get(node.fid);
  if (!mdt.ok()) return;
  auto mask = state_->Mask(mdt->mdt);
  if (!mask.ok()) return;
  uint32_t type = SetattrRecordType(la_valid, *mask);
  if (type == 0) return;
  RecordDetails details;
  details.flags = static_cast<uint16_t>(la_valid & CLF_FLAGMASK);
  LogRecord(caller, type, node, details);
}

void SimFs::Setattr(fuse_req_t req, fuse_ino_t ino, struct stat* attr, int to_set, fuse_file_info* fi) {
  auto node = nodes_.Find(ino);
  if (node == nullptr) {
    fuse_reply_err(req, ESTALE);
    return;
  }
  const int fd = node->fd.get();
  const bool symlink = S_ISLNK(node->type);
  const auto start = Clock::now();
  uint32_t la_valid = 0;
  if (to_set & FUSE_SET_ATTR_MODE) {
    int rc = fi != nullptr ? fchmod(static_cast<int>(reinterpret_cast<OpenFile*>(fi->fh)->fd.get()), attr->st_mode)
                           : (symlink ? (errno = EOPNOTSUPP, -1) : chmod(ProcPath(fd).c_str(), attr->st_mode));
    if (rc != 0) {
      fuse_reply_err(req, errno);
      return;
    }
    la_valid |= kLaMode | kLaCtime;
  }
  if (to_set & (FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID)) {
    uid_t uid = (to_set & FUSE_SET_ATTR_UID) ? attr->st_uid : static_cast<uid_t>(-1);
    gid_t gid = (to_set & FUSE_SET_ATTR_GID) ? attr->st_gid : static_cast<gid_t>(-1);
    if (fchownat(fd, "", uid, gid, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) != 0) {
      fuse_reply_err(req, errno);
      return;
    }
    if (to_set & FUSE_SET_ATTR_UID) la_valid |= kLaUid;
    if (to_set & FUSE_SET_ATTR_GID) la_valid |= kLaGid;
    la_valid |= kLaCtime;
  }
  if (to_set & FUSE_SET_ATTR_SIZE) {
    int rc = fi != nullptr ? ftruncate(reinterpret_cast<OpenFile*>(fi->fh)->fd.get(), attr->st_size)
                           : truncate(ProcPath(fd).c_str(), attr->st_size);
    if (rc != 0) {
      fuse_reply_err(req, errno);
      return;
    }
    la_valid |= kLaSize | kLaMtime | kLaCtime;
  }
  if (to_set & (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME)) {
    struct timespec tv[2];
    tv[0].tv_sec = 0;
    tv[1].tv_sec = 0;
    tv[0].tv_nsec = UTIME_OMIT;
    tv[1].tv_nsec = UTIME_OMIT;
    if (to_set & FUSE_SET_ATTR_ATIME_NOW) {
      tv[0].tv_nsec = UTIME_NOW;
    } else if (to_set & FUSE_SET_ATTR_ATIME) {
      tv[0] = attr->st_atim;
    }
    if (to_set & FUSE_SET_ATTR_MTIME_NOW) {
      tv[1].tv_nsec = UTIME_NOW;
    } else if (to_set & FUSE_SET_ATTR_MTIME) {
      tv[1] = attr->st_mtim;
    }
    int rc = fi != nullptr ? futimens(reinterpret_cast<OpenFile*>(fi->fh)->fd.get(), tv)
                           : (symlink ? utimensat(fd, "", tv, AT_EMPTY_PATH)
                                      : utimensat(AT_FDCWD, ProcPath(fd).c_str(), tv, 0));
    if (rc != 0) {
      fuse_reply_err(req, errno);
      return;
    }
    if (to_set & FUSE_SET_ATTR_ATIME) la_valid |= kLaAtime;
    if (to_set & FUSE_SET_ATTR_MTIME) la_valid |= kLaMtime;
    la_valid |= kLaCtime;
  }
  if (la_valid != 0) {
    const Caller caller = CallerOf(req);
    LogSetattr(caller, *node, la_valid);
    CountMdt(caller.jobid, MdtOfNode(*node), MdtOp::kSetattr, start);
    // The OSTs of the file's stripes: a new size is a punch, other attributes a setattr.
    if (S_ISREG(node->type)) {
      auto layout = state_->GetLayout(node->fid);
      if (layout.ok()) {
        CountOsts(*layout, caller.jobid, (la_valid & kLaSize) ? OstOp::kPunch : OstOp::kSetattr, start);
      }
    }
  }
  Getattr(req, ino, fi);
}

void SimFs::Open(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  auto node = nodes_.Find(ino);
  if (node == nullptr) {
    fuse_reply_err(req, ESTALE);
    return;
  }
  const auto start = Clock::now();
  int flags = (fi->flags & ~(O_NOFOLLOW | O_CREAT | O_EXCL)) | O_CLOEXEC;
  int fd = open(ProcPath(node->fd.get()).c_str(), flags);
  if (fd < 0) {
    fuse_reply_err(req, errno);
    return;
  }
  auto file = std::make_unique<OpenFile>();
  file->fd = UniqueFd(fd);
  file->node = node;
  file->caller = CallerOf(req);
  PlaceOpenFile(*file);
  CountMdt(file->caller.jobid, file->mdt, MdtOp::kOpen, start);
  file->open_flags = LustreOpenFlags(fi->flags);
  file->writable = (fi->flags & O_ACCMODE) != O_RDONLY;
  RecordDetails details;
  details.open_flags = file->open_flags;
  LogRecord(file->caller, CL_OPEN, *node, details);
  fi->fh = reinterpret_cast<uint64_t>(file.get());
  if (fuse_reply_open(req, fi) == 0) file.release();
}

void SimFs::Read(fuse_req_t req, size_t size, off_t off, fuse_file_info* fi) {
  auto* file = reinterpret_cast<OpenFile*>(fi->fh);
  const auto start = Clock::now();
  DelayIo(*file, off, size);
  // What the read returns: the file's size bounds it. Counted before the reply: once it is
  // sent, the kernel may release the file (and `file` with it) at any time.
  struct stat st {};
  size_t got = size;
  if (fstat(file->fd.get(), &st) == 0) {
    got = off >= st.st_size ? 0 : std::min<size_t>(size, static_cast<size_t>(st.st_size - off));
  }
  if (got > 0) CountIo(*file, off, got, false, start);
  fuse_bufvec buf = FUSE_BUFVEC_INIT(size);
  buf.buf[0].flags = static_cast<fuse_buf_flags>(FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK);
  buf.buf[0].fd = file->fd.get();
  buf.buf[0].pos = off;
  fuse_reply_data(req, &buf, FUSE_BUF_SPLICE_MOVE);
}

void SimFs::WriteBuf(fuse_req_t req, fuse_bufvec* bufv, off_t off, fuse_file_info* fi) {
  auto* file = reinterpret_cast<OpenFile*>(fi->fh);
  const auto start = Clock::now();
  DelayIo(*file, off, fuse_buf_size(bufv));
  fuse_bufvec out = FUSE_BUFVEC_INIT(fuse_buf_size(bufv));
  out.buf[0].flags = static_cast<fuse_buf_flags>(FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK);
  out.buf[0].fd = file->fd.get();
  out.buf[0].pos = off;
  ssize_t n = fuse_buf_copy(&out, bufv, FUSE_BUF_SPLICE_NONBLOCK);
  if (n < 0) {
    fuse_reply_err(req, static_cast<int>(-n));
    return;
  }
  file->written.store(true, std::memory_order_relaxed);
  CountIo(*file, off, static_cast<size_t>(n), true, start);
  fuse_reply_write(req, static_cast<size_t>(n));
}

void SimFs::LogClose(OpenFile& file) {
  if (file.close_logged.exchange(true)) return;
  CountMdt(file.caller.jobid, file.mdt, MdtOp::kClose, Clock::now());
  if (file.written.load(std::memory_order_relaxed)) {
    // The client sends the new times with the close (la_valid ATIME|MTIME|CTIME).
    LogSetattr(file.caller, *file.node, kLaAtime | kLaMtime | kLaCtime);
  }
  bool opened_for_write = (file.open_flags & (2 /* MDS_FMODE_WRITE */ | O_TRUNC | O_APPEND)) != 0;
  auto entry = state_->Get(file.node->fid);
  bool open_logged = false;
  if (entry.ok()) {
    auto mask = state_->Mask(entry->mdt);
    open_logged = mask.ok() && (*mask & (1ULL << CL_OPEN));
  }
  if (opened_for_write || open_logged) {
    RecordDetails details;
    details.open_flags = file.open_flags;
    LogRecord(file.caller, CL_CLOSE, *file.node, details);
  }
}

void SimFs::Flush(fuse_req_t req, fuse_file_info* fi) {
  auto* file = reinterpret_cast<OpenFile*>(fi->fh);
  // Closing a duplicate reports deferred write errors, as close(2) on the backing file would.
  int dup_fd = dup(file->fd.get());
  int rc = dup_fd < 0 ? -1 : close(dup_fd);
  const int err = rc == 0 ? 0 : errno;
  if (file->written.load(std::memory_order_relaxed)) LogClose(*file);
  fuse_reply_err(req, err);
}

void SimFs::Release(fuse_req_t req, fuse_file_info* fi) {
  std::unique_ptr<OpenFile> file(reinterpret_cast<OpenFile*>(fi->fh));
  LogClose(*file);
  file.reset();
  fuse_reply_err(req, 0);
}

void SimFs::Fsync(fuse_req_t req, int datasync, fuse_file_info* fi) {
  auto* file = reinterpret_cast<OpenFile*>(fi->fh);
  const auto start = Clock::now();
  int rc = datasync ? fdatasync(file->fd.get()) : fsync(file->fd.get());
  if (file->layout) CountOsts(*file->layout, file->caller.jobid, OstOp::kSync, start);
  fuse_reply_err(req, rc == 0 ? 0 : errno);
}

void SimFs::Fallocate(fuse_req_t req, int mode, off_t offset, off_t length, fuse_file_info* fi) {
  auto* file = reinterpret_cast<OpenFile*>(fi->fh);
  int rc = fallocate(file->fd.get(), mode, offset, length);
  if (rc == 0) file->written.store(true, std::memory_order_relaxed);
  fuse_reply_err(req, rc == 0 ? 0 : errno);
}

void SimFs::Lseek(fuse_req_t req, off_t off, int whence, fuse_file_info* fi) {
  auto* file = reinterpret_cast<OpenFile*>(fi->fh);
  off_t res = lseek(file->fd.get(), off, whence);
  if (res < 0) {
    fuse_reply_err(req, errno);
    return;
  }
  fuse_reply_lseek(req, res);
}

}  // namespace fathom::lustre_sim

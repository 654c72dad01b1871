// Namespace mutations: each is made on the backing directory, then on SimState (which logs
// the record), under one mutex; a state failure undoes the backing change.
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "lustre_sim/fuse/errno_of.h"
#include "lustre_sim/fuse/sim_fs.h"

namespace fathom::lustre_sim {
namespace {

ObjectType TypeOf(mode_t mode) {
  if (S_ISDIR(mode)) return ObjectType::kDirectory;
  if (S_ISLNK(mode)) return ObjectType::kSymlink;
  if (S_ISREG(mode)) return ObjectType::kFile;
  return ObjectType::kNode;
}

// Gives a new backing object to the caller (the daemon creates everything as root).
void Chown(int dirfd, const char* name, const Caller& caller) {
  if (caller.uid == 0 && caller.gid == 0) return;
  if (fchownat(dirfd, name, caller.uid, caller.gid, AT_SYMLINK_NOFOLLOW) != 0) return;
}

}  // namespace

int SimFs::MakeObject(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode, dev_t rdev,
                      const char* target, std::optional<int> mdt, fuse_entry_param* e,
                      const LayoutSpec* layout) {
  auto dir = nodes_.Find(parent);
  if (dir == nullptr) return ESTALE;
  if (std::strlen(name) > LUSTRE_NAME_MAX) return ENAMETOOLONG;
  Caller caller = CallerOf(req);
  const auto start = Clock::now();
  std::lock_guard ns(ns_mu_);
  // Lustre counts a directory as mkdir, anything else made without an open as mknod.
  CountMdt(caller.jobid, mdt.value_or(MdtOfNode(*dir)), S_ISDIR(mode) && target == nullptr ? MdtOp::kMkdir : MdtOp::kMknod,
           start);
  int rc;
  if (target != nullptr) {
    rc = symlinkat(target, dir->fd.get(), name);
  } else if (S_ISDIR(mode)) {
    rc = mkdirat(dir->fd.get(), name, mode & 07777);
  } else {
    rc = mknodat(dir->fd.get(), name, mode, rdev);
  }
  if (rc != 0) return errno;
  Chown(dir->fd.get(), name, caller);
  ObjectType type = target != nullptr ? ObjectType::kSymlink : TypeOf(mode);
  auto made = state_->Create(caller, dir->fid, name, type, mdt, layout);
  if (!made.ok()) {
    unlinkat(dir->fd.get(), name, type == ObjectType::kDirectory ? AT_REMOVEDIR : 0);
    return ErrnoOf(made.status());
  }
  if (type == ObjectType::kFile) CountObjects(made->fid, caller.jobid, OstOp::kCreate, start);
  return EntryAfterCreate(dir, name, made->fid, e);
}

void SimFs::Mknod(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode, dev_t rdev) {
  fuse_entry_param e{};
  int err = MakeObject(req, parent, name, mode, rdev, nullptr, std::nullopt, &e);
  if (err != 0) {
    fuse_reply_err(req, err);
    return;
  }
  fuse_reply_entry(req, &e);
}

void SimFs::Mkdir(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode) {
  fuse_entry_param e{};
  int err = MakeObject(req, parent, name, S_IFDIR | mode, 0, nullptr, std::nullopt, &e);
  if (err != 0) {
    fuse_reply_err(req, err);
    return;
  }
  fuse_reply_entry(req, &e);
}

void SimFs::Symlink(fuse_req_t req, const char* target, fuse_ino_t parent, const char* name) {
  fuse_entry_param e{};
  int err = MakeObject(req, parent, name, S_IFLNK | 0777, 0, target, std::nullopt, &e);
  if (err != 0) {
    fuse_reply_err(req, err);
    return;
  }
  fuse_reply_entry(req, &e);
}

void SimFs::Link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char* name) {
  auto node = nodes_.Find(ino);
  auto dir = nodes_.Find(newparent);
  if (node == nullptr || dir == nullptr) {
    fuse_reply_err(req, ESTALE);
    return;
  }
  Caller caller = CallerOf(req);
  CountMdt(caller.jobid, MdtOfNode(*dir), MdtOp::kLink, Clock::now());
  fuse_entry_param e{};
  {
    std::lock_guard ns(ns_mu_);
    if (linkat(node->fd.get(), "", dir->fd.get(), name, AT_EMPTY_PATH) != 0) {
      fuse_reply_err(req, errno);
      return;
    }
    Status linked = state_->Link(caller, node->fid, dir->fid, name);
    if (!linked.ok()) {
      unlinkat(dir->fd.get(), name, 0);
      fuse_reply_err(req, ErrnoOf(linked));
      return;
    }
    int err = EntryAfterCreate(dir, name, node->fid, &e);
    if (err != 0) {
      fuse_reply_err(req, err);
      return;
    }
  }
  fuse_reply_entry(req, &e);
}

void SimFs::Unlink(fuse_req_t req, fuse_ino_t parent, const char* name) {
  RemoveEntry(req, parent, name, 0);
}

void SimFs::Rmdir(fuse_req_t req, fuse_ino_t parent, const char* name) {
  RemoveEntry(req, parent, name, AT_REMOVEDIR);
}

void SimFs::RemoveEntry(fuse_req_t req, fuse_ino_t parent, const char* name, int flags) {
  auto dir = nodes_.Find(parent);
  if (dir == nullptr) {
    fuse_reply_err(req, ESTALE);
    return;
  }
  Caller caller = CallerOf(req);
  const auto start = Clock::now();
  CountMdt(caller.jobid, MdtOfNode(*dir), (flags & AT_REMOVEDIR) ? MdtOp::kRmdir : MdtOp::kUnlink, start);
  std::lock_guard ns(ns_mu_);
  // The last name of a regular file going takes its OST objects with it.
  auto gone = state_->Lookup(dir->fid, name);
  const bool last = gone.ok() && gone->type == ObjectType::kFile && gone->nlink == 1;
  if (unlinkat(dir->fd.get(), name, flags) != 0) {
    fuse_reply_err(req, errno);
    return;
  }
  if (last) CountObjects(gone->fid, caller.jobid, OstOp::kDestroy, start);
  fuse_reply_err(req, ErrnoOf(state_->Unlink(caller, dir->fid, name)));
}

void SimFs::Rename(fuse_req_t req, fuse_ino_t parent, const char* name, fuse_ino_t newparent,
                   const char* newname, unsigned int flags) {
  if (flags & RENAME_EXCHANGE) {
    fuse_reply_err(req, EINVAL);  // Lustre clients refuse RENAME_EXCHANGE as well
    return;
  }
  if (flags & ~static_cast<unsigned>(RENAME_NOREPLACE)) {
    fuse_reply_err(req, EINVAL);
    return;
  }
  auto from = nodes_.Find(parent);
  auto to = nodes_.Find(newparent);
  if (from == nullptr || to == nullptr) {
    fuse_reply_err(req, ESTALE);
    return;
  }
  if (std::strlen(newname) > LUSTRE_NAME_MAX) {
    fuse_reply_err(req, ENAMETOOLONG);
    return;
  }
  Caller caller = CallerOf(req);
  {
    const auto start = Clock::now();
    const int mdt = MdtOfNode(*to);
    CountMdt(caller.jobid, mdt, MdtOp::kRename, start);
    CountMdt(caller.jobid, mdt, parent == newparent ? MdtOp::kSamedirRename : MdtOp::kCrossdirRename, start);
  }
  std::lock_guard ns(ns_mu_);
  // rename(2) of a name onto another link of the same object does nothing and logs nothing.
  struct stat a{}, b{};
  if (fstatat(from->fd.get(), name, &a, AT_SYMLINK_NOFOLLOW) == 0 &&
      fstatat(to->fd.get(), newname, &b, AT_SYMLINK_NOFOLLOW) == 0 && a.st_dev == b.st_dev &&
      a.st_ino == b.st_ino) {
    fuse_reply_err(req, (flags & RENAME_NOREPLACE) ? EEXIST : 0);
    return;
  }
  // A regular file renamed over loses its name; its last one takes its OST objects with it.
  auto replaced = state_->Lookup(to->fid, newname);
  const bool last = replaced.ok() && replaced->type == ObjectType::kFile && replaced->nlink == 1;
  if (renameat2(from->fd.get(), name, to->fd.get(), newname, flags) != 0) {
    fuse_reply_err(req, errno);
    return;
  }
  if (last) CountObjects(replaced->fid, caller.jobid, OstOp::kDestroy, Clock::now());
  fuse_reply_err(req, ErrnoOf(state_->Rename(caller, from->fid, name, to->fid, newname)));
}

void SimFs::Create(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode, fuse_file_info* fi) {
  auto dir = nodes_.Find(parent);
  if (dir == nullptr) {
    fuse_reply_err(req, ESTALE);
    return;
  }
  if (std::strlen(name) > LUSTRE_NAME_MAX) {
    fuse_reply_err(req, ENAMETOOLONG);
    return;
  }
  Caller caller = CallerOf(req);
  CountMdt(caller.jobid, MdtOfNode(*dir), MdtOp::kOpen, Clock::now());
  int flags = (fi->flags & ~(O_NOFOLLOW | O_CREAT | O_EXCL)) | O_CLOEXEC;
  fuse_entry_param e{};
  auto file = std::make_unique<OpenFile>();
  {
    std::lock_guard ns(ns_mu_);
    int fd = openat(dir->fd.get(), name, flags | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
    bool created = fd >= 0;
    if (fd < 0 && errno == EEXIST && !(fi->flags & O_EXCL)) {
      fd = openat(dir->fd.get(), name, flags | O_NOFOLLOW);
    }
    if (fd < 0) {
      fuse_reply_err(req, errno);
      return;
    }
    file->fd = UniqueFd(fd);
    int err = 0;
    if (created) {
      Chown(dir->fd.get(), name, caller);
      auto made = state_->Create(caller, dir->fid, name, ObjectType::kFile);
      if (!made.ok()) {
        unlinkat(dir->fd.get(), name, 0);
        fuse_reply_err(req, ErrnoOf(made.status()));
        return;
      }
      CountObjects(made->fid, caller.jobid, OstOp::kCreate, Clock::now());
      err = EntryAfterCreate(dir, name, made->fid, &e);
    } else {
      err = LookupEntry(dir, name, &e);
    }
    if (err != 0) {
      fuse_reply_err(req, err);
      return;
    }
  }
  file->node = nodes_.Find(e.ino);
  file->caller = caller;
  PlaceOpenFile(*file);
  file->open_flags = LustreOpenFlags(fi->flags);
  file->writable = (fi->flags & O_ACCMODE) != O_RDONLY;
  RecordDetails details;
  details.open_flags = file->open_flags;
  LogRecord(caller, CL_OPEN, *file->node, details);
  fi->fh = reinterpret_cast<uint64_t>(file.get());
  if (fuse_reply_create(req, &e, fi) == 0) file.release();
}

}  // namespace fathom::lustre_sim

// Lookups, attributes, directory listing: SimFs's read side of the namespace.
#include <dirent.h>
#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <string>

#include "lustre_sim/fuse/errno_of.h"
#include "lustre_sim/fuse/fid_inode.h"
#include "lustre_sim/fuse/sim_fs.h"

namespace fathom::lustre_sim {
namespace {


ObjectType TypeOfMode(mode_t mode) {
  if (S_ISDIR(mode)) return ObjectType::kDirectory;
  if (S_ISLNK(mode)) return ObjectType::kSymlink;
  if (S_ISREG(mode)) return ObjectType::kFile;
  return ObjectType::kNode;
}

struct DirHandle {
  DIR* dir = nullptr;
  std::shared_ptr<Node> node;
  off_t offset = 0;
  dirent* entry = nullptr;  // read but not yet returned
  ~DirHandle() {
    if (dir != nullptr) closedir(dir);
  }
};

}  // namespace

SimFs::SimFs(std::unique_ptr<SimState> state, UniqueFd backing_root)
    : state_(std::move(state)),
      stats_(state_->config().fsname, state_->config().mdts, state_->config().osts) {
  auto root = std::make_unique<Node>();
  struct stat st {};
  fstatat(backing_root.get(), "", &st, AT_EMPTY_PATH);
  root->fid = lustre::kRootFid;
  root->dev = st.st_dev;
  root->ino = st.st_ino;
  root->type = S_IFDIR;
  root->fd = std::move(backing_root);
  nodes_.SetRoot(std::shared_ptr<Node>(std::move(root)));
  jobid_var_ = state_->config().jobid_var;
}

void SimFs::Init(fuse_conn_info* conn) {
  conn->want &= ~static_cast<unsigned>(FUSE_CAP_WRITEBACK_CACHE);
  conn->want &= ~static_cast<unsigned>(FUSE_CAP_ATOMIC_O_TRUNC);  // O_TRUNC arrives as setattr
  if (conn->capable & FUSE_CAP_SPLICE_READ) conn->want |= FUSE_CAP_SPLICE_READ;
}

std::string SimFs::JobidVar() {
  std::lock_guard lock(settings_mu_);
  return jobid_var_;
}

Caller SimFs::CallerOf(fuse_req_t req) {
  const fuse_ctx* ctx = fuse_req_ctx(req);
  Caller caller;
  caller.uid = ctx->uid;
  caller.gid = ctx->gid;
  caller.jobid = jobids_.Get(ctx->pid, ctx->uid, JobidVar());
  return caller;
}

int SimFs::StatNode(const Node& node, struct stat* st) {
  if (fstatat(node.fd.get(), "", st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) != 0) return errno;
  st->st_ino = FlattenFid(node.fid);
  return 0;
}

// Opens `name` under `parent` and answers with its node; an object new to the node table
// gets the FID `fid_of` gives for its stat (returning 0, or an errno).
int SimFs::OpenEntry(const std::shared_ptr<Node>& parent, const char* name,
                     const std::function<int(const struct stat&, lustre::Fid&)>& fid_of,
                     fuse_entry_param* e) {
  int fd = openat(parent->fd.get(), name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return errno;
  UniqueFd owned(fd);
  struct stat st {};
  if (fstatat(fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) != 0) return errno;
  std::shared_ptr<Node> node = nodes_.AcquireExisting(st.st_dev, st.st_ino);
  if (node == nullptr) {
    auto fresh = std::make_unique<Node>();
    if (int err = fid_of(st, fresh->fid); err != 0) return err;
    fresh->fd = std::move(owned);
    fresh->dev = st.st_dev;
    fresh->ino = st.st_ino;
    fresh->type = st.st_mode & S_IFMT;
    node = nodes_.Insert(std::move(fresh));
  }
  st.st_ino = FlattenFid(node->fid);
  *e = fuse_entry_param{};
  e->ino = node->id;
  e->attr = st;
  e->attr_timeout = kCacheSeconds;
  e->entry_timeout = kCacheSeconds;
  return 0;
}

int SimFs::LookupEntry(const std::shared_ptr<Node>& parent, const char* name, fuse_entry_param* e) {
  if (std::strlen(name) > LUSTRE_NAME_MAX) return ENAMETOOLONG;
  return OpenEntry(
      parent, name,
      [&](const struct stat& st, lustre::Fid& fid) {
        auto entry = state_->Lookup(parent->fid, name);
        if (entry.ok()) {
          fid = entry->fid;
        } else {
          // A backing object the state has never seen (made beside the mount): give it a FID.
          std::lock_guard ns(ns_mu_);
          auto again = state_->Lookup(parent->fid, name);
          if (again.ok()) {
            fid = again->fid;
          } else {
            auto made = state_->Create(Caller{}, parent->fid, name, TypeOfMode(st.st_mode));
            if (!made.ok()) return ErrnoOf(made.status());
            fid = made->fid;
          }
        }
        return 0;
      },
      e);
}

int SimFs::EntryAfterCreate(const std::shared_ptr<Node>& parent, const char* name,
                            const lustre::Fid& fid, fuse_entry_param* e) {
  return OpenEntry(
      parent, name,
      [&](const struct stat&, lustre::Fid& out) {
        out = fid;
        return 0;
      },
      e);
}

void SimFs::Lookup(fuse_req_t req, fuse_ino_t parent, const char* name) {
  if (LookupDotLustre(req, parent, name)) return;
  auto dir = nodes_.Find(parent);
  if (dir == nullptr) {
    fuse_reply_err(req, ESTALE);
    return;
  }
  fuse_entry_param e{};
  int err = LookupEntry(dir, name, &e);
  if (err == ENOENT) {
    e = fuse_entry_param{};
    e.ino = 0;  // a negative entry, not cached (other processes may create it)
    fuse_reply_entry(req, &e);
    return;
  }
  if (err != 0) {
    fuse_reply_err(req, err);
    return;
  }
  fuse_reply_entry(req, &e);
}

void SimFs::Forget(fuse_ino_t ino, uint64_t nlookup) { nodes_.Forget(ino, nlookup); }

void SimFs::Getattr(fuse_req_t req, fuse_ino_t ino, fuse_file_info*) {
  if (GetattrDotLustre(req, ino)) return;
  auto node = nodes_.Find(ino);
  if (node == nullptr) {
    fuse_reply_err(req, ESTALE);
    return;
  }
  const auto start = Clock::now();
  struct stat st {};
  int err = StatNode(*node, &st);
  CountMdt(CallerOf(req).jobid, MdtOfNode(*node), MdtOp::kGetattr, start);
  if (err != 0) {
    fuse_reply_err(req, err);
    return;
  }
  fuse_reply_attr(req, &st, kCacheSeconds);
}

void SimFs::Readlink(fuse_req_t req, fuse_ino_t ino) {
  auto node = nodes_.Find(ino);
  if (node == nullptr) {
    fuse_reply_err(req, ESTALE);
    return;
  }
  char buf[PATH_MAX + 1];
  ssize_t n = readlinkat(node->fd.get(), "", buf, sizeof(buf));
  if (n < 0) {
    fuse_reply_err(req, errno);
    return;
  }
  if (n >= static_cast<ssize_t>(sizeof(buf))) {
    fuse_reply_err(req, ENAMETOOLONG);
    return;
  }
  buf[n] = '\0';
  fuse_reply_readlink(req, buf);
}

void SimFs::Statfs(fuse_req_t req) {
  auto root = nodes_.Find(1);
  const auto start = Clock::now();
  struct statvfs sv {};
  const int rc = fstatvfs(root->fd.get(), &sv);
  // A client's statfs asks MDT0 and every OST.
  const std::string job = CallerOf(req).jobid;
  CountMdt(job, 0, MdtOp::kStatfs, start);
  for (int ost = 0; ost < stats_.osts(); ++ost) stats_.AddOst(ost, job, OstOp::kStatfs, 0);
  if (rc != 0) {
    fuse_reply_err(req, errno);
    return;
  }
  sv.f_namemax = LUSTRE_NAME_MAX;
  fuse_reply_statfs(req, &sv);
}

void SimFs::Opendir(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  if (IsDotLustre(ino)) {
    fuse_reply_err(req, EPERM);
    return;
  }
  auto node = nodes_.Find(ino);
  if (node == nullptr) {
    fuse_reply_err(req, ESTALE);
    return;
  }
  int fd = openat(node->fd.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    fuse_reply_err(req, errno);
    return;
  }
  auto handle = std::make_unique<DirHandle>();
  handle->dir = fdopendir(fd);
  if (handle->dir == nullptr) {
    int err = errno;
    close(fd);
    fuse_reply_err(req, err);
    return;
  }
  handle->node = node;
  fi->fh = reinterpret_cast<uint64_t>(handle.get());
  if (fuse_reply_open(req, fi) == 0) handle.release();
}

void SimFs::Readdir(fuse_req_t req, fuse_ino_t, size_t size, off_t off, fuse_file_info* fi) {
  auto* handle = reinterpret_cast<DirHandle*>(fi->fh);
  std::string buf(size, '\0');
  size_t used = 0;
  if (off != handle->offset) {
    seekdir(handle->dir, off);
    handle->entry = nullptr;
    handle->offset = off;
  }
  for (;;) {
    if (handle->entry == nullptr) {
      errno = 0;
      handle->entry = readdir(handle->dir);
      if (handle->entry == nullptr) {
        if (errno != 0 && used == 0) {
          fuse_reply_err(req, errno);
          return;
        }
        break;
      }
    }
    dirent* d = handle->entry;
    struct stat st {};
    st.st_mode = static_cast<mode_t>(DTTOIF(d->d_type));
    std::string_view name = d->d_name;
    if (name == ".") {
      st.st_ino = FlattenFid(handle->node->fid);
    } else if (name == "..") {
      st.st_ino = d->d_ino;
    } else {
      auto entry = state_->Lookup(handle->node->fid, name);
      st.st_ino = entry.ok() ? FlattenFid(entry->fid) : d->d_ino;
    }
    off_t next = telldir(handle->dir);
    size_t need = fuse_add_direntry(req, buf.data() + used, size - used, d->d_name, &st, next);
    if (need > size - used) break;  // keep the entry for the next call
    used += need;
    handle->entry = nullptr;
    handle->offset = next;
  }
  fuse_reply_buf(req, buf.data(), used);
}

void SimFs::Releasedir(fuse_req_t req, fuse_file_info* fi) {
  delete reinterpret_cast<DirHandle*>(fi->fh);
  fuse_reply_err(req, 0);
}

}  // namespace fathom::lustre_sim

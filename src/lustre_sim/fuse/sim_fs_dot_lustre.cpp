// MOUNT/.lustre/fid/[FID]: every object by its FID, as a Lustre client serves it (what
// Robinhood and `lfs fid2path` users open an object through, whatever its path).
//
// `.lustre` (FID [0x200000002:0x1:0x0]) is found by lookup in the root but not listed, like
// Lustre's; `.lustre/fid` ([0x200000002:0x2:0x0]) holds every object, found by lookup of its
// FID's text (with or without the brackets). Neither can be listed (EPERM), nor has extended
// attributes; any other request about them is refused (their node ids are none of the node
// table's: ESTALE). An
// object reached through `.lustre/fid` gets a node of its own (a directory must not alias
// its dentry at its real path), looked up and stat'ed afresh every time (the kernel caches
// nothing of it, so its attributes are those of the object now, after any change made
// through its path).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "lustre_sim/fuse/errno_of.h"
#include "lustre_sim/fuse/fid_inode.h"
#include "lustre_sim/fuse/sim_fs.h"

namespace fathom::lustre_sim {
namespace {

constexpr lustre::Fid kDotLustreFid{0x200000002, 0x1, 0x0};
constexpr lustre::Fid kFidDirFid{0x200000002, 0x2, 0x0};
// Node ids the node table never hands out (it counts up from 2).
constexpr fuse_ino_t kDotLustreNode = ~fuse_ino_t{0} - 1;
constexpr fuse_ino_t kFidDirNode = ~fuse_ino_t{0} - 2;

}  // namespace

bool SimFs::IsDotLustre(fuse_ino_t ino) { return ino == kDotLustreNode || ino == kFidDirNode; }

bool SimFs::GetattrDotLustre(fuse_req_t req, fuse_ino_t ino) {
  if (!IsDotLustre(ino)) return false;
  struct stat st {};
  if (int err = StatNode(*nodes_.Find(1), &st); err != 0) {
    fuse_reply_err(req, err);
    return true;
  }
  st.st_ino = FlattenFid(ino == kDotLustreNode ? kDotLustreFid : kFidDirFid);
  st.st_mode = S_IFDIR | (ino == kDotLustreNode ? 0755 : 0100);  // .lustre/fid: lookups only
  st.st_nlink = 2;
  st.st_uid = 0;
  st.st_gid = 0;
  fuse_reply_attr(req, &st, kCacheSeconds);
  return true;
}

bool SimFs::LookupDotLustre(fuse_req_t req, fuse_ino_t parent, const char* name) {
  fuse_entry_param e{};
  fuse_ino_t special = 0;
  if (parent == 1 && std::strcmp(name, ".lustre") == 0) {
    special = kDotLustreNode;
  } else if (parent == kDotLustreNode) {
    if (std::strcmp(name, "fid") != 0) {
      e.ino = 0;  // a negative entry
      fuse_reply_entry(req, &e);
      return true;
    }
    special = kFidDirNode;
  } else if (parent == kFidDirNode) {
    if (int err = LookupByFid(name, &e); err != 0) {
      fuse_reply_err(req, err);
      return true;
    }
    fuse_reply_entry(req, &e);
    return true;
  } else {
    return false;
  }
  e.ino = special;
  e.attr_timeout = kCacheSeconds;
  e.entry_timeout = kCacheSeconds;
  struct stat st {};
  if (int err = StatNode(*nodes_.Find(1), &st); err != 0) {
    fuse_reply_err(req, err);
    return true;
  }
  e.attr = st;
  e.attr.st_ino = FlattenFid(special == kDotLustreNode ? kDotLustreFid : kFidDirFid);
  e.attr.st_mode = S_IFDIR | (special == kDotLustreNode ? 0755 : 0100);
  fuse_reply_entry(req, &e);
  return true;
}

int SimFs::LookupByFid(const char* name, fuse_entry_param* e) {
  auto fid = lustre::ParseFid(name);
  if (!fid.ok()) return EINVAL;  // as Lustre: not a FID
  // The object's path and its opening together, before a rename can move it.
  std::lock_guard ns(ns_mu_);
  const std::vector<std::string> paths = state_->Paths(*fid);
  if (paths.empty()) return ENOENT;
  auto root = nodes_.Find(1);
  const std::string relative = paths.front() == "/" ? "." : paths.front().substr(1);
  const int fd = openat(root->fd.get(), relative.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return errno;
  UniqueFd owned(fd);
  struct stat st {};
  if (fstatat(fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) != 0) return errno;
  auto node = std::make_unique<Node>();
  node->fid = *fid;
  node->fd = std::move(owned);
  node->dev = st.st_dev;
  node->ino = st.st_ino;
  node->type = st.st_mode & S_IFMT;
  const std::shared_ptr<Node> alias = nodes_.InsertAlias(std::move(node));
  st.st_ino = FlattenFid(*fid);
  *e = fuse_entry_param{};
  e->ino = alias->id;
  e->attr = st;
  e->attr_timeout = 0;  // always asked again: see above
  e->entry_timeout = 0;
  return 0;
}

}  // namespace fathom::lustre_sim

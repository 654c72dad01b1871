// Extended attributes (passed through, XATTR records) and the control attributes lfs and
// lctl use to reach the daemon (control_xattr.h).
#include <sys/stat.h>
#include <sys/xattr.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "lustre_sim/fuse/control_xattr.h"
#include "lustre_sim/fuse/errno_of.h"
#include "lustre_sim/fuse/sim_fs.h"

namespace fathom::lustre_sim {
namespace {

std::string ProcPath(int fd) { return "/proc/self/fd/" + std::to_string(fd); }

bool IsControl(const char* name) { return std::strncmp(name, "lustre.fathom.", 14) == 0; }

}  // namespace

int SimFs::ControlXattr(fuse_req_t req, const std::shared_ptr<Node>& node, const std::string& name,
                        std::string_view value) {
  if (name == kReloadXattr) {
    std::string var = state_->config().jobid_var;
    std::lock_guard lock(settings_mu_);
    jobid_var_ = var;
    return 0;
  }
  if (name == kMkdirXattr) {
    if (!S_ISDIR(node->type)) return ENOTDIR;
    auto request = DecodeMkdirRequest(value);
    if (!request.ok()) return EINVAL;
    if (request->mdt >= state_->config().mdts) return EINVAL;
    fuse_entry_param e{};
    int err = MakeObject(req, node->id, request->name.c_str(), S_IFDIR | (request->mode & 07777), 0,
                         nullptr, request->mdt, &e);
    // The kernel did not ask for this entry: drop the lookup MakeObject took.
    if (err == 0) nodes_.Forget(e.ino, 1);
    return err;
  }
  return EOPNOTSUPP;
}

void SimFs::Setxattr(fuse_req_t req, fuse_ino_t ino, const char* name, const char* value,
                     size_t size, int flags) {
  auto node = nodes_.Find(ino);
  if (node == nullptr) {
    fuse_reply_err(req, ESTALE);
    return;
  }
  if (IsControl(name)) {
    fuse_reply_err(req, ControlXattr(req, node, name, std::string_view(value, size)));
    return;
  }
  if (S_ISLNK(node->type)) {
    fuse_reply_err(req, EPERM);
    return;
  }
  if (setxattr(ProcPath(node->fd.get()).c_str(), name, value, size, flags) != 0) {
    fuse_reply_err(req, errno);
    return;
  }
  LogXattrChange(req, *node, name);
}

namespace {

// Answers getxattr/listxattr from the backing call's result `n` (-1: errno): the size asked
// for with `size` 0, else the bytes in `buf`.
void ReplyXattr(fuse_req_t req, ssize_t n, size_t size, const std::string& buf) {
  if (n < 0) {
    fuse_reply_err(req, errno);
  } else if (size == 0) {
    fuse_reply_xattr(req, static_cast<size_t>(n));
  } else {
    fuse_reply_buf(req, buf.data(), static_cast<size_t>(n));
  }
}

}  // namespace

void SimFs::Getxattr(fuse_req_t req, fuse_ino_t ino, const char* name, size_t size) {
  if (IsDotLustre(ino)) {
    fuse_reply_err(req, ENODATA);
    return;
  }
  auto node = BackingXattrNode(req, ino, name);
  if (node == nullptr) return;
  std::string buf(size, '\0');
  ReplyXattr(req,
             getxattr(ProcPath(node->fd.get()).c_str(), name, size ? buf.data() : nullptr, size),
             size, buf);
}

void SimFs::Listxattr(fuse_req_t req, fuse_ino_t ino, size_t size) {
  auto node = nodes_.Find(ino);
  if (IsDotLustre(ino) || (node != nullptr && S_ISLNK(node->type))) {
    if (size == 0) {
      fuse_reply_xattr(req, 0);
    } else {
      fuse_reply_buf(req, nullptr, 0);
    }
    return;
  }
  if (node == nullptr) {
    fuse_reply_err(req, ESTALE);
    return;
  }
  std::string buf(size, '\0');
  ReplyXattr(req, listxattr(ProcPath(node->fd.get()).c_str(), size ? buf.data() : nullptr, size),
             size, buf);
}

void SimFs::Removexattr(fuse_req_t req, fuse_ino_t ino, const char* name) {
  auto node = BackingXattrNode(req, ino, name);
  if (node == nullptr) return;
  if (removexattr(ProcPath(node->fd.get()).c_str(), name) != 0) {
    fuse_reply_err(req, errno);
    return;
  }
  LogXattrChange(req, *node, name);
}

std::shared_ptr<Node> SimFs::BackingXattrNode(fuse_req_t req, fuse_ino_t ino, const char* name) {
  auto node = nodes_.Find(ino);
  if (node == nullptr) {
    fuse_reply_err(req, ESTALE);
    return nullptr;
  }
  if (IsControl(name) || S_ISLNK(node->type)) {
    fuse_reply_err(req, ENODATA);
    return nullptr;
  }
  return node;
}

void SimFs::LogXattrChange(fuse_req_t req, const Node& node, const char* name) {
  RecordDetails details;
  details.xattr = name;
  LogRecord(CallerOf(req), CL_SETXATTR, node, details);
  fuse_reply_err(req, 0);
}

}  // namespace fathom::lustre_sim

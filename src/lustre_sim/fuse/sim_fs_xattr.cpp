// Extended attributes (passed through, XATTR records) and the control attributes lfs and
// lctl use to reach the daemon (control_xattr.h).
#include <sys/stat.h>
#include <sys/xattr.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <string>

#include "lustre_sim/fuse/control_xattr.h"
#include "lustre_sim/fuse/errno_of.h"
#include "lustre_sim/fuse/sim_fs.h"

namespace fathom::lustre_sim {
namespace {

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
  if (name == kStatsXattr) return StatsControl(value);
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
  if (name == kSetstripeXattr) {
    if (!S_ISDIR(node->type)) return ENOTDIR;
    auto request = DecodeSetstripeRequest(value);
    if (!request.ok()) return EINVAL;
    fuse_entry_param e{};
    int err = MakeObject(req, node->id, request->name.c_str(), S_IFREG | 0666, 0, nullptr, std::nullopt, &e,
                         &request->layout);
    if (err == 0) nodes_.Forget(e.ino, 1);
    return err;
  }
  return EOPNOTSUPP;
}

int SimFs::LovXattr(const Node& node, std::string& out) {
  if (!S_ISREG(node.type)) return ENODATA;
  auto layout = state_->GetLayout(node.fid);
  if (!layout.ok()) return ErrnoOf(layout.status());
  lov_user_md_v3 header{};
  header.lmm_magic = layout->pool.empty() ? LOV_USER_MAGIC_V1 : LOV_USER_MAGIC_V3;
  header.lmm_pattern = LOV_PATTERN_RAID0;
  header.lmm_oi_id = node.fid.oid;
  header.lmm_oi_seq = node.fid.seq;
  header.lmm_stripe_size = static_cast<uint32_t>(layout->stripe_size);
  header.lmm_stripe_count = static_cast<uint16_t>(layout->osts.size());
  header.lmm_layout_gen = static_cast<uint16_t>(layout->generation);
  std::memcpy(header.lmm_pool_name, layout->pool.data(), std::min<size_t>(layout->pool.size(), LOV_MAXPOOLNAME));
  size_t header_size = layout->pool.empty() ? sizeof(lov_user_md_v1) : sizeof(lov_user_md_v3);
  out.assign(reinterpret_cast<const char*>(&header), header_size);
  for (size_t i = 0; i < layout->osts.size(); ++i) {
    lov_user_ost_data_v1 object{};
    // The emulator has no OST objects: a made-up object id per stripe.
    object.l_ost_oi_id = (static_cast<uint64_t>(node.fid.oid) << 8) | i;
    object.l_ost_oi_seq = 0;
    object.l_ost_idx = layout->osts[i];
    out.append(reinterpret_cast<const char*>(&object), sizeof(object));
  }
  return 0;
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
  if (std::strcmp(name, XATTR_LUSTRE_LOV) == 0 || std::strcmp(name, "trusted.lov") == 0) {
    auto node = nodes_.Find(ino);
    if (node == nullptr) {
      fuse_reply_err(req, ESTALE);
      return;
    }
    std::string lov;
    int err = LovXattr(*node, lov);
    if (err != 0) {
      fuse_reply_err(req, err);
    } else if (size == 0) {
      fuse_reply_xattr(req, lov.size());
    } else if (size < lov.size()) {
      fuse_reply_err(req, ERANGE);
    } else {
      fuse_reply_buf(req, lov.data(), lov.size());
    }
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

// The fuse_lowlevel_ops table: each entry forwards to the SimFs held as session userdata.
#include "lustre_sim/fuse/sim_fs.h"

namespace fathom::lustre_sim {
namespace {

SimFs* Fs(fuse_req_t req) { return static_cast<SimFs*>(fuse_req_userdata(req)); }

fuse_lowlevel_ops MakeOps() {
  fuse_lowlevel_ops ops{};
  ops.init = [](void* userdata, fuse_conn_info* conn) { static_cast<SimFs*>(userdata)->Init(conn); };
  ops.lookup = [](fuse_req_t req, fuse_ino_t parent, const char* name) { Fs(req)->Lookup(req, parent, name); };
  ops.forget = [](fuse_req_t req, fuse_ino_t ino, uint64_t nlookup) {
    Fs(req)->Forget(ino, nlookup);
    fuse_reply_none(req);
  };
  ops.forget_multi = [](fuse_req_t req, size_t count, fuse_forget_data* forgets) {
    for (size_t i = 0; i < count; ++i) Fs(req)->Forget(forgets[i].ino, forgets[i].nlookup);
    fuse_reply_none(req);
  };
  ops.getattr = [](fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) { Fs(req)->Getattr(req, ino, fi); };
  ops.setattr = [](fuse_req_t req, fuse_ino_t ino, struct stat* attr, int to_set, fuse_file_info* fi) {
    Fs(req)->Setattr(req, ino, attr, to_set, fi);
  };
  ops.readlink = [](fuse_req_t req, fuse_ino_t ino) { Fs(req)->Readlink(req, ino); };
  ops.mknod = [](fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode, dev_t rdev) {
    Fs(req)->Mknod(req, parent, name, mode, rdev);
  };
  ops.mkdir = [](fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode) {
    Fs(req)->Mkdir(req, parent, name, mode);
  };
  ops.unlink = [](fuse_req_t req, fuse_ino_t parent, const char* name) { Fs(req)->Unlink(req, parent, name); };
  ops.rmdir = [](fuse_req_t req, fuse_ino_t parent, const char* name) { Fs(req)->Rmdir(req, parent, name); };
  ops.symlink = [](fuse_req_t req, const char* link, fuse_ino_t parent, const char* name) {
    Fs(req)->Symlink(req, link, parent, name);
  };
  ops.rename = [](fuse_req_t req, fuse_ino_t parent, const char* name, fuse_ino_t newparent,
                  const char* newname, unsigned int flags) {
    Fs(req)->Rename(req, parent, name, newparent, newname, flags);
  };
  ops.link = [](fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char* newname) {
    Fs(req)->Link(req, ino, newparent, newname);
  };
  ops.open = [](fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) { Fs(req)->Open(req, ino, fi); };
  ops.read = [](fuse_req_t req, fuse_ino_t, size_t size, off_t off, fuse_file_info* fi) {
    Fs(req)->Read(req, size, off, fi);
  };
  ops.write_buf = [](fuse_req_t req, fuse_ino_t, fuse_bufvec* bufv, off_t off, fuse_file_info* fi) {
    Fs(req)->WriteBuf(req, bufv, off, fi);
  };
  ops.flush = [](fuse_req_t req, fuse_ino_t, fuse_file_info* fi) { Fs(req)->Flush(req, fi); };
  ops.release = [](fuse_req_t req, fuse_ino_t, fuse_file_info* fi) { Fs(req)->Release(req, fi); };
  ops.fsync = [](fuse_req_t req, fuse_ino_t, int datasync, fuse_file_info* fi) {
    Fs(req)->Fsync(req, datasync, fi);
  };
  ops.opendir = [](fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) { Fs(req)->Opendir(req, ino, fi); };
  ops.readdir = [](fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, fuse_file_info* fi) {
    Fs(req)->Readdir(req, ino, size, off, fi);
  };
  ops.releasedir = [](fuse_req_t req, fuse_ino_t, fuse_file_info* fi) { Fs(req)->Releasedir(req, fi); };
  ops.fsyncdir = [](fuse_req_t req, fuse_ino_t, int, fuse_file_info*) { fuse_reply_err(req, 0); };
  ops.statfs = [](fuse_req_t req, fuse_ino_t) { Fs(req)->Statfs(req); };
  ops.setxattr = [](fuse_req_t req, fuse_ino_t ino, const char* name, const char* value, size_t size,
                    int flags) { Fs(req)->Setxattr(req, ino, name, value, size, flags); };
  ops.getxattr = [](fuse_req_t req, fuse_ino_t ino, const char* name, size_t size) {
    Fs(req)->Getxattr(req, ino, name, size);
  };
  ops.listxattr = [](fuse_req_t req, fuse_ino_t ino, size_t size) { Fs(req)->Listxattr(req, ino, size); };
  ops.removexattr = [](fuse_req_t req, fuse_ino_t ino, const char* name) {
    Fs(req)->Removexattr(req, ino, name);
  };
  ops.create = [](fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode, fuse_file_info* fi) {
    Fs(req)->Create(req, parent, name, mode, fi);
  };
  ops.fallocate = [](fuse_req_t req, fuse_ino_t, int mode, off_t offset, off_t length, fuse_file_info* fi) {
    Fs(req)->Fallocate(req, mode, offset, length, fi);
  };
  ops.lseek = [](fuse_req_t req, fuse_ino_t, off_t off, int whence, fuse_file_info* fi) {
    Fs(req)->Lseek(req, off, whence, fi);
  };
  return ops;
}

}  // namespace

const fuse_lowlevel_ops& SimFs::Ops() {
  static const fuse_lowlevel_ops ops = MakeOps();
  return ops;
}

}  // namespace fathom::lustre_sim

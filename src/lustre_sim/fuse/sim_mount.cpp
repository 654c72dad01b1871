#include "lustre_sim/fuse/sim_mount.h"

#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "lustre_sim/fuse/sim_fs.h"

namespace fathom::lustre_sim {
namespace {

// libfuse reports mount failures through its log function; keep the last message so the
// error we return can say what libfuse said.
std::mutex g_log_mu;
std::string g_last_fuse_message;  // guarded by g_log_mu
bool g_debug = false;              // guarded by g_log_mu

void CaptureFuseLog(fuse_log_level level, const char* fmt, va_list ap) {
  char buf[1024];
  vsnprintf(buf, sizeof(buf), fmt, ap);
  std::string message(buf);
  while (!message.empty() && message.back() == '\n') message.pop_back();
  std::lock_guard lock(g_log_mu);
  if (level <= FUSE_LOG_ERR) g_last_fuse_message = message;
  if (level <= FUSE_LOG_ERR || g_debug) fprintf(stderr, "fathom-lustre-sim: %s\n", message.c_str());
}

std::string LastFuseMessage() {
  std::lock_guard lock(g_log_mu);
  return g_last_fuse_message;
}

Status CheckDirectory(const std::string& path, const char* what) {
  struct stat st{};
  if (stat(path.c_str(), &st) != 0) {
    return Status::FromErrno(errno, std::string("cannot use ") + what + " " + path +
                                        " (create it first with mkdir -p)");
  }
  if (!S_ISDIR(st.st_mode)) return Status::Error(std::string(what) + " " + path + " is not a directory");
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<SimMount>> SimMount::Mount(const MountConfig& config) {
  {
    std::lock_guard lock(g_log_mu);
    g_last_fuse_message.clear();
    g_debug = config.debug;
  }
  fuse_set_log_func(&CaptureFuseLog);
  FATHOM_RETURN_IF_ERROR(CheckDirectory(config.backing, "backing directory"));
  FATHOM_RETURN_IF_ERROR(CheckDirectory(config.mountpoint, "mount point"));
  if (access("/dev/fuse", R_OK | W_OK) != 0) {
    return Status::FromErrno(errno, "cannot open /dev/fuse: load the fuse kernel module (modprobe fuse) or, "
                                    "in a container, pass --device /dev/fuse --cap-add SYS_ADMIN");
  }
  UniqueFd backing(open(config.backing.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!backing.valid()) return Status::FromErrno(errno, "cannot open backing directory " + config.backing);
  auto state = SimState::CreateOrOpen(config.state_dir, config.sim);
  if (!state.ok()) return state.status();

  std::unique_ptr<SimMount> mount(new SimMount());
  mount->mountpoint_ = config.mountpoint;
  mount->fs_ = std::make_unique<SimFs>(std::move(state).value(), std::move(backing));
  std::string options = "fsname=lustre-sim:/" + config.sim.fsname +
                        ",subtype=fathom-lustre-sim,allow_other,default_permissions";
  std::vector<std::string> argv_strings = {"fathom-lustre-sim", "-o", options};
  if (config.debug) argv_strings.push_back("-d");
  std::vector<char*> argv;
  for (auto& s : argv_strings) argv.push_back(s.data());
  fuse_args args = FUSE_ARGS_INIT(static_cast<int>(argv.size()), argv.data());
  mount->session_ = fuse_session_new(&args, &SimFs::Ops(), sizeof(fuse_lowlevel_ops), mount->fs_.get());
  if (mount->session_ == nullptr) {
    return Status::Error("cannot start a FUSE session: " + LastFuseMessage());
  }
  if (fuse_session_mount(mount->session_, config.mountpoint.c_str()) != 0) {
    return Status::Error("cannot mount on " + config.mountpoint + ": " + LastFuseMessage() +
                         " (is it busy or already mounted? try: fathom-lustre-sim umount " +
                         config.mountpoint + ")");
  }
  mount->mounted_ = true;
  return mount;
}

SimMount::~SimMount() {
  if (session_ != nullptr) {
    if (mounted_) fuse_session_unmount(session_);
    fuse_session_destroy(session_);
  }
}

Status SimMount::Run() {
  if (fuse_set_signal_handlers(session_) != 0) return Status::Error("cannot install signal handlers");
  fuse_loop_config* loop = fuse_loop_cfg_create();
  fuse_loop_cfg_set_max_threads(loop, 16);
  fuse_loop_cfg_set_idle_threads(loop, 4);
  int rc = fuse_session_loop_mt(session_, loop);
  fuse_loop_cfg_destroy(loop);
  fuse_remove_signal_handlers(session_);
  fuse_session_unmount(session_);
  mounted_ = false;
  if (rc < 0) return Status::FromErrno(-rc, "FUSE request loop on " + mountpoint_ + " failed");
  return Status::Ok();
}

void SimMount::Exit() {
  if (session_ != nullptr) fuse_session_exit(session_);
}

}  // namespace fathom::lustre_sim

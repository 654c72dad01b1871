#include "support/read_only_mount.h"

#include <sys/mount.h>
#include <sys/stat.h>

#include <cerrno>

namespace fathom::testing {

ReadOnlyMount::ReadOnlyMount(const std::string& dir, const std::string& view) : view_(view) {
  mkdir(view.c_str(), 0755);
  if (mount(dir.c_str(), view.c_str(), nullptr, MS_BIND, nullptr) != 0) {
    error_ = errno;
    return;
  }
  mounted_ = true;
  if (mount(nullptr, view.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr) != 0) {
    error_ = errno;
  }
}

ReadOnlyMount::~ReadOnlyMount() {
  if (mounted_) umount2(view_.c_str(), MNT_DETACH);
}

}  // namespace fathom::testing

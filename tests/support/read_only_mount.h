// read_only_mount.h — a read-only view of a directory for one test: `dir` bind-mounted on
// `view`, then that mount remounted read-only (the kernel then refuses every write through
// `view` with EROFS, even root's), unmounted on destruction. Needs root (tests run as root).
#pragma once

#include <string>

namespace fathom::testing {

class ReadOnlyMount {
 public:
  ReadOnlyMount(const std::string& dir, const std::string& view);
  ~ReadOnlyMount();
  ReadOnlyMount(const ReadOnlyMount&) = delete;
  ReadOnlyMount& operator=(const ReadOnlyMount&) = delete;

  // 0 when mounted, else the errno of the failed mount(2).
  int error() const { return error_; }

 private:
  std::string view_;
  bool mounted_ = false;
  int error_ = 0;
};

}  // namespace fathom::testing

#include "sources/internal/source_util.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace fathom::source_internal {

bool IsUnder(std::string_view path, std::string_view root) {
  if (root == "/") return path.size() > 1 && path[0] == '/';
  return path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
         path[root.size()] == '/';
}

std::vector<std::string> DistinctRoots(std::vector<std::string> roots, bool recursive) {
  std::sort(roots.begin(), roots.end());
  roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
  if (!recursive) return roots;
  std::vector<std::string> out;
  for (const auto& r : roots) {
    bool covered =
        std::any_of(out.begin(), out.end(), [&](const std::string& o) { return IsUnder(r, o); });
    if (!covered) out.push_back(r);
  }
  return out;
}

Result<StopWaker> StopWaker::Create(std::string_view source_name) {
  int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (fd < 0) {
    return Status::FromErrno(errno, std::string(source_name) + " source: cannot create its wake-up eventfd");
  }
  return StopWaker(UniqueFd(fd), source_name);
}

StopWaker::StopWaker(StopWaker&& other) noexcept
    : fd_(std::move(other.fd_)), name_(std::move(other.name_)), stopped_(other.stopped_.load()) {}

Status StopWaker::Wait(int kernel_fd, std::chrono::milliseconds timeout) const {
  pollfd fd = {kernel_fd, POLLIN, 0};
  return Wait(std::span<pollfd>(&fd, 1), timeout);
}

Status StopWaker::Wait(std::span<pollfd> fds, std::chrono::milliseconds timeout) const {
  if (stopped_) return Status::Ok();
  if (fds.empty() || fds[0].fd < 0) return Status::Error(name_ + " source: Wait() before Start()");
  constexpr size_t kMaxFds = 4;
  if (fds.size() >= kMaxFds) return Status::Error(name_ + " source: too many descriptors to wait on");
  pollfd all[kMaxFds];
  std::copy(fds.begin(), fds.end(), all);
  all[fds.size()] = {fd_.get(), POLLIN, 0};
  int n = poll(all, static_cast<nfds_t>(fds.size() + 1), static_cast<int>(timeout.count()));
  if (n < 0 && errno != EINTR) return Status::FromErrno(errno, name_ + " source: poll");
  for (size_t i = 0; i < fds.size(); ++i) fds[i].revents = n > 0 ? all[i].revents : 0;
  return Status::Ok();
}

void StopWaker::Stop() {
  stopped_ = true;
  uint64_t one = 1;
  // The eventfd counter cannot overflow from these writes; a failed write leaves stopped_ set,
  // which the next Wait() sees.
  [[maybe_unused]] ssize_t n = write(fd_.get(), &one, sizeof one);
}

}  // namespace fathom::source_internal

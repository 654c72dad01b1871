#include "sources/lustre/changelog_queue.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>

namespace fathom::lustre_source {

Result<std::shared_ptr<ChangelogQueue>> ChangelogQueue::Create(size_t max_events) {
  int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (fd < 0) return Status::FromErrno(errno, "lustre source: cannot create its wake-up eventfd");
  return std::shared_ptr<ChangelogQueue>(new ChangelogQueue(max_events, UniqueFd(fd)));
}

bool ChangelogQueue::Publish(Chunk chunk) {
  std::unique_lock lock(mu_);
  space_cv_.wait(lock, [&] { return queued_events_ < max_events_ || stopping_; });
  if (stopping_) return false;
  queued_events_ += chunk.events.size();
  chunks_.push_back(std::move(chunk));
  lock.unlock();
  ready_cv_.notify_one();
  return true;
}

Status ChangelogQueue::Take(size_t max_events, std::deque<Chunk>& out) {
  Status error;
  {
    std::lock_guard lock(mu_);
    size_t taken = 0;
    while (!chunks_.empty() && (out.empty() || taken + chunks_.front().events.size() <= max_events)) {
      taken += chunks_.front().events.size();
      out.push_back(std::move(chunks_.front()));
      chunks_.pop_front();
    }
    queued_events_ -= taken;
    if (out.empty()) error = std::exchange(error_, Status::Ok());
  }
  space_cv_.notify_one();
  return error;
}

void ChangelogQueue::Wait(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  ready_cv_.wait_for(lock, timeout, [&] { return !chunks_.empty() || !error_.ok() || stopping_; });
}

void ChangelogQueue::Fail(Status status) {
  {
    std::lock_guard lock(mu_);
    error_ = std::move(status);
  }
  ready_cv_.notify_all();
}

void ChangelogQueue::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  uint64_t one = 1;
  // A failed write leaves stopping_ set, which the reader sees within its poll timeout.
  [[maybe_unused]] ssize_t n = write(stop_fd_.get(), &one, sizeof one);
  ready_cv_.notify_all();
  space_cv_.notify_all();
}

void ChangelogQueue::ReaderExited() {
  {
    std::lock_guard lock(mu_);
    reader_exited_ = true;
  }
  ready_cv_.notify_all();
}

bool ChangelogQueue::WaitReaderExited(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return ready_cv_.wait_for(lock, timeout, [&] { return reader_exited_; });
}

}  // namespace fathom::lustre_source

// changelog_clearer.cpp — llapi_changelog_clear calls off the sending thread.
#include "sources/lustre/changelog_clearer.h"

#include <spdlog/spdlog.h>

#include "core/thread_name.h"
#include "core/thread_priority.h"

namespace fathom::lustre_source {

ChangelogClearer::ChangelogClearer(std::shared_ptr<const LustreLibrary> lib, std::string device,
                                   std::string user)
    : lib_(std::move(lib)), device_(std::move(device)), user_(std::move(user)) {
  thread_ = std::thread([this] {
    NameThisThread("lustre-clear");
    // Clears only free MDT space; records keep flowing while one waits for the CPU.
    if (!SetThisThreadNice(kBackgroundNice)) spdlog::debug("lustre-clear keeps its priority");
    Run();
  });
}

ChangelogClearer::~ChangelogClearer() { Finish(); }

void ChangelogClearer::Request(uint64_t position) {
  {
    std::lock_guard lock(mu_);
    if (position <= requested_) return;
    requested_ = position;
  }
  wake_.notify_one();
}

Status ChangelogClearer::TakeError() {
  std::lock_guard lock(mu_);
  Status error = std::move(error_);
  error_ = Status::Ok();
  return error;
}

void ChangelogClearer::Finish() {
  {
    std::lock_guard lock(mu_);
    finishing_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void ChangelogClearer::Run() {
  std::unique_lock lock(mu_);
  uint64_t failed = 0;  // a position whose clear failed: not tried again until more is requested
  while (true) {
    wake_.wait(lock, [&] {
      return finishing_ || (requested_ > cleared_.load() && requested_ != failed);
    });
    const uint64_t target = requested_;
    if (target <= cleared_.load() || target == failed) return;  // finishing, nothing left to do
    lock.unlock();
    Status status = lib_->Clear(device_, user_, target);
    lock.lock();
    if (status.ok()) {
      cleared_ = target;
      ++clears_;
    } else {
      spdlog::warn("lustre: {}", status.message());
      if (error_.ok()) error_ = std::move(status);
      failed = target;
    }
  }
}

}  // namespace fathom::lustre_source

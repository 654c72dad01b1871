// changelog_clearer.cpp — llapi_changelog_clear calls off the sending thread.
#include "sources/lustre/changelog_clearer.h"

#include <spdlog/spdlog.h>

#include "core/thread_name.h"
#include "core/thread_priority.h"

namespace fathom::lustre_source {

ChangelogClearer::ChangelogClearer(std::shared_ptr<const LustreLibrary> lib, std::string device,
                                   std::string user, uint64_t every_records,
                                   std::chrono::milliseconds interval)
    : lib_(std::move(lib)),
      device_(std::move(device)),
      user_(std::move(user)),
      every_records_(every_records),
      interval_(interval) {
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
  auto last_clear = std::chrono::steady_clock::now();
  const auto clearable = [&] { return requested_ > cleared_.load() && requested_ != failed; };
  const auto enough = [&] { return finishing_ || (clearable() && requested_ - cleared_.load() >= every_records_); };
  while (true) {
    wake_.wait(lock, [&] { return finishing_ || clearable(); });
    // Fewer than every_records waiting: they are cleared when the interval is up.
    if (!enough()) wake_.wait_until(lock, last_clear + interval_, enough);
    if (!clearable()) {
      if (finishing_) return;
      continue;
    }
    const uint64_t target = requested_;
    lock.unlock();
    Status status = lib_->Clear(device_, user_, target);
    lock.lock();
    last_clear = std::chrono::steady_clock::now();
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

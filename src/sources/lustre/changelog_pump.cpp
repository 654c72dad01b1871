#include "sources/lustre/changelog_pump.h"

#include <poll.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "sources/lustre/record_batch.h"

namespace fathom::lustre_source {
namespace {

// How long one wait for records lasts before the stop flag is looked at again (Stop()
// also wakes it at once through the queue's eventfd).
constexpr int kPollMs = 200;
// Pause before reopening a changelog whose reader reported the end of the log.
constexpr int kReopenPauseMs = 50;

bool ReadableNow(int fd) {
  pollfd p = {fd, POLLIN, 0};
  return poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
}

}  // namespace

ChangelogPump::ChangelogPump(std::shared_ptr<const LustreLibrary> lib, std::string device,
                             ChangelogReader reader, uint64_t next_record,
                             std::unique_ptr<RecordResolver> resolver,
                             std::shared_ptr<ChangelogQueue> queue)
    : lib_(std::move(lib)),
      device_(std::move(device)),
      reader_(std::move(reader)),
      next_record_(next_record),
      resolver_(std::move(resolver)),
      queue_(std::move(queue)) {}

void ChangelogPump::Run() {
  RecordBatch batch;
  while (!queue_->stopping()) {
    if (!reader_->buffered() && !WaitReadable(kPollMs)) continue;
    batch.Clear();
    int rc = 0;
    while (batch.added() < kMaxBatchRecords) {
      changelog_rec* rec = nullptr;
      rc = reader_->Receive(&rec);
      if (rc != 0) break;
      batch.Add(rec);
      reader_->Free(&rec);
      if (!reader_->buffered() && !ReadableNow(reader_->fd())) break;
    }
    if (batch.added() > 0) {
      Chunk chunk;
      chunk.last_index = batch.last_index();
      chunk.events.reserve(batch.records().size());
      resolver_->Resolve(batch.records(), chunk.events);
      ReaderCounters& c = queue_->counters;
      c.records += batch.added();
      c.malformed = batch.malformed();
      ++c.batches;
      CopyResolverCounters();
      next_record_ = std::max(next_record_, batch.last_index() + 1);
      if (!queue_->Publish(std::move(chunk))) break;
    }
    if (rc == 0 || rc == -EAGAIN || rc == -EINTR) continue;
    if (!Reopen(rc)) break;
  }
  queue_->ReaderExited();
}

bool ChangelogPump::WaitReadable(int timeout_ms) const {
  pollfd fds[2] = {{reader_->fd(), POLLIN, 0}, {queue_->stop_fd(), POLLIN, 0}};
  const int n = poll(fds, 2, timeout_ms);
  return n > 0 && (fds[0].revents & (POLLIN | POLLERR | POLLHUP)) && !queue_->stopping();
}

bool ChangelogPump::Reopen(int rc) {
  if (rc == 1) {
    // The library reports the end of the log (it does not follow): look again shortly.
    pollfd p = {queue_->stop_fd(), POLLIN, 0};
    poll(&p, 1, kReopenPauseMs);
    if (queue_->stopping()) return false;
  } else {
    spdlog::warn("lustre: reading the changelog of {} failed ({}); reopening it at record {}",
                 device_, std::strerror(-rc), next_record_);
  }
  reader_.reset();
  auto reopened = ChangelogReader::Open(*lib_, device_, next_record_);
  if (!reopened.ok()) {
    queue_->Fail(reopened.status().WithContext("lustre source: the changelog stopped"));
    return false;
  }
  reader_.emplace(std::move(reopened).value());
  return true;
}

void ChangelogPump::CopyResolverCounters() {
  const ResolverCounters& r = resolver_->counters();
  ReaderCounters& c = queue_->counters;
  c.ignored = r.ignored;
  c.unresolved = r.unresolved;
  c.parent_removed = r.parent_removed;
  c.fid2path_calls = r.fid2path_calls;
  c.fid2path_failures = r.fid2path_failures;
}

}  // namespace fathom::lustre_source

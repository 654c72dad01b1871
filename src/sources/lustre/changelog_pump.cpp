#include "sources/lustre/changelog_pump.h"

#include <poll.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace fathom::lustre_source {
namespace {

using Clock = std::chrono::steady_clock;

// How long one wait for records lasts before the stop flag is looked at again (Stop()
// also wakes it at once through the queue's eventfd).
constexpr auto kPoll = std::chrono::milliseconds(200);
// A followed log whose records trickle in is read for up to this long after a batch's first
// record before the batch is handed on, so that records arriving one by one travel together
// (one wake-up of each thread downstream per batch, not per record).
constexpr auto kLinger = std::chrono::milliseconds(5);
// ... and is handed on at the latest this long after its first record.
constexpr auto kHold = std::chrono::milliseconds(6);
// Pause before reconnecting to a followed changelog that reported its end.
constexpr auto kReopenPause = std::chrono::milliseconds(50);

}  // namespace

ChangelogPump::ChangelogPump(std::shared_ptr<const LustreLibrary> lib, std::string device,
                             ChangelogReader reader, uint64_t next_record,
                             std::shared_ptr<RecordHandoff> handoff,
                             std::shared_ptr<ChangelogQueue> queue)
    : lib_(std::move(lib)),
      device_(std::move(device)),
      reader_(std::move(reader)),
      next_record_(next_record),
      handoff_(std::move(handoff)),
      queue_(std::move(queue)) {}

void ChangelogPump::Run() {
  batch_ = handoff_->Empty();
  if (batch_ && CatchUp()) {
    while (!queue_->stopping()) {
      if (!reader_->buffered() && !WaitReadable(kPoll)) continue;
      const int rc = ReceiveBatch(*reader_, true);
      if (!HandOff()) break;
      if (rc == 0 || rc == -EAGAIN || rc == -EINTR) continue;
      if (!Reconnect(rc)) break;
    }
  }
  reader_.reset();
  handoff_->Finish(std::move(error_));
  queue_->ReaderExited();
}

bool ChangelogPump::CatchUp() {
  for (;;) {
    auto probe = ChangelogReader::Open(*lib_, device_, next_record_, false);
    if (!probe.ok()) {
      error_ = probe.status().WithContext("lustre source");
      return false;
    }
    const uint64_t start = next_record_;
    int rc = 0;
    while (rc == 0) {
      rc = ReceiveBatch(*probe, false);
      if (!HandOff()) return false;
    }
    if (rc < 0) {
      error_ = Status::Error("lustre source: reading the changelog of " + device_ +
                             " failed: " + std::strerror(-rc));
      return false;
    }
    // Nothing was added since the following reader was opened at `start`: it is current.
    if (next_record_ == start && reader_) return true;
    reader_.reset();
    auto follow = ChangelogReader::Open(*lib_, device_, next_record_, true);
    if (!follow.ok()) {
      error_ = follow.status().WithContext("lustre source");
      return false;
    }
    reader_.emplace(std::move(follow).value());
  }
}

bool ChangelogPump::Reconnect(int rc) {
  if (rc == 1) {
    // A followed log reported its end: look again shortly rather than spin.
    if (!Pause(kReopenPause)) return false;
  } else {
    spdlog::warn("lustre: reading the changelog of {} failed ({}); reopening it at record {}",
                 device_, std::strerror(-rc), next_record_);
  }
  reader_.reset();
  return CatchUp();
}

bool ChangelogPump::WaitReadable(std::chrono::milliseconds timeout) const {
  pollfd fds[2] = {{reader_->fd(), POLLIN, 0}, {queue_->stop_fd(), POLLIN, 0}};
  const int n = poll(fds, 2, static_cast<int>(timeout.count()));
  return n > 0 && (fds[0].revents & (POLLIN | POLLERR | POLLHUP)) && !queue_->stopping();
}

bool ChangelogPump::Pause(std::chrono::microseconds pause) const {
  pollfd p = {queue_->stop_fd(), POLLIN, 0};
  const timespec ts = {0, static_cast<long>(std::chrono::nanoseconds(pause).count())};
  ppoll(&p, 1, &ts, nullptr);
  return !queue_->stopping();
}

int ChangelogPump::ReceiveBatch(const ChangelogReader& reader, bool follow) {
  int rc = 0;
  bool lingered = false;
  Clock::time_point first{};
  while (batch_->added() < kMaxBatchRecords) {
    changelog_rec* rec = nullptr;
    rc = reader.Receive(&rec);
    if (rc != 0) break;
    batch_->Add(rec);
    reader.Free(&rec);
    if (!follow) continue;
    // A followed log's batch is handed on within kHold of its first record, even when records
    // keep coming at least as fast as they are read (else a reader that fell behind would
    // gather until it caught up, and every record of that batch would wait that long).
    const auto now = Clock::now();
    if (batch_->added() == 1) first = now;
    if (now - first >= kHold) break;
    if (reader.buffered()) continue;
    // The next receive may block until a new record. Once per batch, let the records that
    // trickle in gather until kLinger after the first; then receive only those already
    // readable and hand the batch off.
    if (!lingered) {
      lingered = true;
      if (first + kLinger > now &&
          !Pause(std::chrono::duration_cast<std::chrono::microseconds>(first + kLinger - now))) {
        break;
      }
    }
    if (!WaitReadable(std::chrono::milliseconds(0))) break;
  }
  if (follow && batch_->added() > 0) {
    const auto held = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - first).count());
    std::atomic<uint64_t>& longest = queue_->counters.longest_hold_us;
    if (held > longest.load()) longest = held;
  }
  return rc;
}

bool ChangelogPump::HandOff() {
  if (batch_->added() == 0) return !queue_->stopping();
  ReaderCounters& c = queue_->counters;
  c.records += batch_->added();
  c.malformed += batch_->malformed();
  if (batch_->first_malformed() != 0) c.NoteMalformed(batch_->first_malformed());
  next_record_ = std::max(next_record_, batch_->last_index() + 1);
  if (!handoff_->Push(std::move(batch_))) return false;
  batch_ = handoff_->Empty();
  return batch_ != nullptr;
}

void ResolveBatches(RecordResolver& resolver, RecordHandoff& handoff, ChangelogQueue& queue) {
  ReaderCounters& c = queue.counters;
  for (;;) {
    Status finished;
    std::unique_ptr<RecordBatch> batch = handoff.Pop(&finished);
    if (batch == nullptr) {
      if (!finished.ok()) queue.Fail(std::move(finished));
      return;
    }
    Chunk chunk;
    chunk.last_index = batch->last_index();
    chunk.events.reserve(batch->records().size() + batch->records().size() / 4 + 8);
    resolver.Resolve(batch->records(), chunk.events);
    handoff.Recycle(std::move(batch));
    const ResolverCounters& r = resolver.counters();
    c.ignored = r.ignored;
    c.unresolved = r.unresolved;
    c.parent_removed = r.parent_removed;
    c.fid2path_calls = r.fid2path_calls;
    c.fid2path_failures = r.fid2path_failures;
    ++c.batches;
    if (!queue.Publish(std::move(chunk))) return;
  }
}

}  // namespace fathom::lustre_source

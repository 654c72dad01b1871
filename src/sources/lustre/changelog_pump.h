// changelog_pump.h — the two threads behind a Lustre source: one receives the changelog,
// one resolves it.
//
// ChangelogPump::Run() (the receiver) first reads, without following, every record the log
// already holds after the position (a following reader's descriptor need not signal records
// that were there before it was opened), then follows: it receives records in batches —
// what the library has buffered and what arrived in the 5 ms after the batch's first
// record, up to kMaxBatchRecords, handed on before any receive that could block and at the
// latest 6 ms after the batch's first record, even while records keep coming —
// calling llapi_changelog_recv only when a record is buffered or the changelog descriptor
// polls readable, and hands each unpacked batch on (record_handoff.h). A receive error (or
// the end of a followed log) reconnects the same way after the last record read; if that
// fails, the error ends the handoff. The receiver owns everything it touches (changelog
// handles, shared ownership of the library, the handoff and the queue), so one blocked
// inside the library can outlive its source; it returns on Stop() as soon as the library
// gives control back, then calls ChangelogQueue::ReaderExited().
//
// ResolveBatches() (the resolver) turns each batch into one Chunk of events with the batch's
// last record index and queues it (changelog_queue.h), until the handoff ends (queuing its
// error, if any) or is stopped.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "sources/lustre/changelog_queue.h"
#include "sources/lustre/lustre_library.h"
#include "sources/lustre/record_handoff.h"
#include "sources/lustre/record_resolver.h"

namespace fathom::lustre_source {

class ChangelogPump {
 public:
  static constexpr size_t kMaxBatchRecords = 4096;

  // `reader` follows the log from `next_record` (opened by the caller, which reports its
  // errors).
  ChangelogPump(std::shared_ptr<const LustreLibrary> lib, std::string device,
                ChangelogReader reader, uint64_t next_record,
                std::shared_ptr<RecordHandoff> handoff, std::shared_ptr<ChangelogQueue> queue);

  void Run();

 private:
  // Reads what the log holds from next_record_ without following, then leaves a following
  // reader at next_record_ in reader_ (reopened if records were read meanwhile). False on
  // Stop or error (which ends the handoff).
  bool CatchUp();
  bool Reconnect(int rc);
  // Waits until the changelog has records or Stop(); false on Stop or timeout.
  bool WaitReadable(std::chrono::milliseconds timeout) const;
  // Waits `pause` (under a second) unless Stop() comes first; false on Stop.
  bool Pause(std::chrono::microseconds pause) const;
  // Fills batch_ (empty on entry) from `reader`; with `follow`, stops when no record is
  // ready after a short linger that follows the batch's first, or when the batch's first
  // record has waited long enough. Returns the last llapi_changelog_recv result.
  int ReceiveBatch(const ChangelogReader& reader, bool follow);
  // Hands batch_ on and takes an empty one; false on Stop.
  bool HandOff();

  std::shared_ptr<const LustreLibrary> lib_;
  std::string device_;
  std::optional<ChangelogReader> reader_;
  uint64_t next_record_;  // where to reopen
  std::shared_ptr<RecordHandoff> handoff_;
  std::shared_ptr<ChangelogQueue> queue_;
  std::unique_ptr<RecordBatch> batch_;
  Status error_;
};

// The resolver thread's body: until the handoff ends or is stopped.
void ResolveBatches(RecordResolver& resolver, RecordHandoff& handoff, ChangelogQueue& queue);

}  // namespace fathom::lustre_source

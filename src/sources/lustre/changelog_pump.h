// changelog_pump.h — the body of a Lustre source's reader thread.
//
// Run() receives records in batches — what the library has buffered plus what the device
// has ready, up to kMaxBatchRecords — calling llapi_changelog_recv only when a record is
// buffered or the changelog descriptor polls readable, resolves each batch and publishes its
// events with the batch's last record index. A receive error (or the end of a log that is
// not followed) reopens the changelog once after the last record read; if that fails the
// error goes to the queue and Run() returns. Run() returns on the queue's Stop() as soon as
// the library gives control back. The pump owns everything it touches (the changelog
// handle, the resolver, shared ownership of the library and the queue), so a pump blocked
// inside the library can outlive its source. One thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "sources/lustre/changelog_queue.h"
#include "sources/lustre/lustre_library.h"
#include "sources/lustre/record_resolver.h"

namespace fathom::lustre_source {

class ChangelogPump {
 public:
  static constexpr size_t kMaxBatchRecords = 8192;

  ChangelogPump(std::shared_ptr<const LustreLibrary> lib, std::string device, ChangelogReader reader,
                uint64_t next_record, std::unique_ptr<RecordResolver> resolver,
                std::shared_ptr<ChangelogQueue> queue);

  void Run();

 private:
  // Waits until the changelog has records or Stop(); false on Stop or timeout.
  bool WaitReadable(int timeout_ms) const;
  bool Reopen(int rc);
  void CopyResolverCounters();

  std::shared_ptr<const LustreLibrary> lib_;
  std::string device_;
  std::optional<ChangelogReader> reader_;
  uint64_t next_record_;  // where to reopen
  std::unique_ptr<RecordResolver> resolver_;
  std::shared_ptr<ChangelogQueue> queue_;
};

}  // namespace fathom::lustre_source

// sink.h — where a watch pipeline commits its events: the embedded store, or a remote
// aggregator (ZeroMQ) or bus (NATS JetStream) that acknowledges only after a durable commit.
//
// Contract: Commit() returns ok only once every event of `batch` (and `position`, when given)
// is durably committed at the far end; it writes the ids the far end assigned into `batch`.
// A failed Commit() may be retried with the same batch and position: the far end drops what
// it already holds by (source, position), so nothing is stored twice. Position(source) is the
// last position durably committed for `source` (0 if none): a source resumes after it.
// A sink is used from one thread at a time (the pipeline's writer) and owned by the caller;
// Stop() alone may be called from any thread and makes a blocked Commit() fail promptly.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "fathom/event.h"
#include "fathom/status.h"
#include "fathom/store.h"

namespace fathom {

class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual Result<uint64_t> Position(std::string_view source) = 0;
  virtual Status Commit(std::vector<Event>& batch, const std::optional<SourcePosition>& position) = 0;
  virtual void Stop() {}
};

// The embedded store as a sink (borrows `store`, which must outlive it).
std::unique_ptr<EventSink> MakeStoreSink(EventStore& store);

}  // namespace fathom

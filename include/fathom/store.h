// store.h — the embedded, durable, bounded event store (SQLite, WAL mode).
//
// One writer process appends batches; any number of readers (other processes too) replay.
// Append() commits a whole batch in one transaction and assigns every event an id strictly
// greater than any id the store has ever handed out, even after retention removed rows.
// A process killed at any point (SIGKILL) leaves the store consistent: a batch is either
// wholly committed or absent, and ids continue after restart.
// A writer checks the store when it opens it and refuses a damaged one; fathom/store_check.h
// verifies a store and copies what is readable out of a damaged one (docs/store.md).
// A reader opens a store on read-only media (or in a directory it cannot write) too.
// An EventStore object is used from one thread at a time; it owns its SQLite connection (and
// a writer, threads of its own with their own connections: WAL checkpoints, retention).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

#include "fathom/event.h"
#include "fathom/status.h"

namespace fathom {

struct StoreOptions {
  std::string path;                      // SQLite file; created if absent (writer only)
  bool read_only = false;                // replay only: never creates or writes
  uint64_t max_events = 0;               // keep at most this many newest events (0 = unbounded)
  std::chrono::seconds max_age{0};       // drop events older than this (0 = unbounded)
  bool sync_full = true;                 // fsync every commit (power-loss durable); false: WAL
                                         // NORMAL, durable against process crashes only
  // Writer: SQLite's quick_check and a read of every chunk when the store is opened, stopped
  // after this long (what it did not reach is left unchecked, and a warning says so); a
  // store found damaged is refused. Zero skips the check.
  std::chrono::milliseconds open_check_limit{2000};
  // Writer with max_events or max_age: retention also runs this often on a thread of its own,
  // so that an idle store drops expired events too (zero: only when a batch commits).
  std::chrono::milliseconds retention_interval{10'000};
};

// Ids first..last, both included.
struct IdRange {
  uint64_t first = 0;
  uint64_t last = 0;
  uint64_t size() const { return last - first + 1; }
  friend bool operator==(const IdRange&, const IdRange&) = default;
};

// How far a source with a durable log (a Lustre changelog) has been stored: its name as the
// Source reports it and the log position covered by the events committed with it.
struct SourcePosition {
  std::string source;
  uint64_t position = 0;
};

// Events already encoded in the store's chunk format (src/store/event_chunk.h), so that they
// are stored or passed on as they are instead of being encoded again. Immutable and shared.
struct EncodedChunk {
  std::shared_ptr<const std::string> data;
  uint32_t count = 0;  // events it holds
  int64_t min_ts = 0;  // the oldest and newest ts_ns among them
  int64_t max_ts = 0;
};

// A stored chunk as ReplayChunks() reads it: its events have ids first_id, first_id + 1, ...
// but those below `first_held` (the oldest id the store holds) are gone.
struct StoredChunk {
  uint64_t first_id = 0;
  uint64_t first_held = 0;
  EncodedChunk chunk;
};

struct ReplayQuery {
  uint64_t since_id = 0;       // events with id > since_id
  std::string path_prefix;     // only paths equal to it or under it ("" = all)
  uint64_t limit = 0;          // at most this many (0 = all)
};

class EventStore {
 public:
  virtual ~EventStore() = default;

  static Result<std::unique_ptr<EventStore>> Open(const StoreOptions& options);

  // Commits `batch` in one transaction and writes the assigned ids into it. `position`, when
  // given, is recorded in that same transaction (even for an empty batch), so a store never
  // holds events without the position that covers them, nor a position without its events.
  virtual Status Append(std::vector<Event>& batch,
                        const std::optional<SourcePosition>& position = std::nullopt) = 0;
  // The same for a batch merged from several sources: every position in `positions` is
  // recorded in the batch's transaction.
  virtual Status Append(std::vector<Event>& batch, std::span<const SourcePosition> positions) = 0;
  // The same with the events already encoded: each chunk is stored as it is, one row each
  // (chunks without events or data are refused), its events given the next ids in order.
  // Returns the id given to the first event (the last id before + 1 when there is none).
  virtual Result<uint64_t> AppendChunks(std::span<const EncodedChunk> chunks,
                                        std::span<const SourcePosition> positions) = 0;
  // The last position recorded for `source` (0 if none).
  virtual Result<uint64_t> Position(std::string_view source) = 0;
  // Calls `fn` for each matching event in id order until it returns false.
  virtual Status Replay(const ReplayQuery& query, const std::function<bool(const Event&)>& fn) = 0;
  // Calls `fn` with each stored chunk holding ids after `since_id`, in id order, until it
  // returns false: the blobs as stored, not decoded nor checked (see store::ScanChunk).
  virtual Status ReplayChunks(uint64_t since_id,
                              const std::function<bool(const StoredChunk&)>& fn) = 0;
  // The highest id ever assigned (0 for a new store).
  virtual Result<uint64_t> LastId() = 0;
  // The lowest id still held (0 when empty): replay from below it has lost events.
  virtual Result<uint64_t> FirstId() = 0;
  // Id ranges that `fathom store recover` could not copy into this store (damaged in the store
  // it came from): assigned once, their events lost. Empty for any store not recovered.
  virtual Result<std::vector<IdRange>> LostRanges() = 0;
  // Applies max_events / max_age now; Append() also does so periodically, and a writer's
  // retention thread every retention_interval.
  virtual Status Prune() = 0;
  // Removes every event with id <= `id` (the oldest first, in bounded transactions): replay
  // from below id + 1 then reports those ids as gone. Ids above LastId() are refused.
  virtual Status PurgeThrough(uint64_t id) = 0;

  // Durable consumers: the id each named consumer has acknowledged (processed through).
  // SetConsumerPosition() commits at once; positions never move backwards (a lower id is
  // ignored). ConsumerPosition() is nullopt for a name never recorded.
  virtual Status SetConsumerPosition(std::string_view name, uint64_t id) = 0;
  virtual Result<std::optional<uint64_t>> ConsumerPosition(std::string_view name) = 0;
  virtual Result<std::vector<std::pair<std::string, uint64_t>>> ConsumerPositions() = 0;
};

}  // namespace fathom

// outbox_state.h — what an Outbox holds (its connection, its jitter source, the mutex that
// serialises its callers) and what the files implementing it share: the file's schema, the
// columns of a delivery row and their reading, transactions.
#pragma once

#include <functional>
#include <mutex>
#include <string>

#include "rules/outbox/outbox.h"
#include "store/sqlite_handle.h"

namespace fathom::rules {

inline constexpr int64_t kOutboxApplicationId = 0x464F4258;  // "FOBX"
inline constexpr int kOutboxSchemaVersion = 3;  // 2: depth, paused_rules; 3: disabled_endpoints

// The outbox's words in SQLite error messages.
extern const store::SqliteFileKind kOutboxFile;

// Opens (a writer: creates) the outbox file at `path` and checks that it is one.
Result<store::Connection> OpenOutboxDb(const std::string& path, bool read_only, int busy_timeout_ms);

// The columns of a delivery, in the order ReadDelivery reads them.
inline constexpr const char* kDeliveryColumns =
    "id, seq, rule, rule_version, path, payload, event_ids, state, attempts, created, next, lease_until,"
    " finished, last_result, depth";

// The delivery in the current row of `stmt`, selected with kDeliveryColumns first.
void ReadDelivery(const store::Statement& stmt, Delivery& out);

// "1,2,3" and back.
std::string EventIdsText(std::span<const uint64_t> ids);
std::vector<uint64_t> EventIdsFrom(std::string_view text);

struct Outbox::State {
  std::mutex mu;
  store::Connection db;
  bool read_only = false;
  std::function<double()> jitter;

  // How a transaction's commit reaches the disk. kSynced: on disk when COMMIT returns
  // (synchronous=FULL: deliveries, cursors, pauses, disabled endpoints). kLazy: a process crash
  // keeps it, a machine crash may lose it until the next synced commit (synchronous=NORMAL in
  // WAL mode): only for what, if lost, makes an action run again, never makes one lost —
  // leases, heartbeats and outcomes.
  enum class Durability { kSynced, kLazy };
  // Runs `work` in a write transaction (BEGIN IMMEDIATE), committed when it succeeds and
  // rolled back when it fails.
  Status InTransaction(std::string_view what, const std::function<Status()>& work,
                       Durability durability = Durability::kSynced);
  Status Writable(std::string_view what) const;
};

}  // namespace fathom::rules

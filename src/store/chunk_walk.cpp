#include "store/chunk_walk.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <system_error>
#include <vector>

namespace fathom::store {
namespace {

bool Interrupted(int rc) { return (rc & 0xff) == SQLITE_INTERRUPT; }

// The walk was interrupted (sqlite3_interrupt): the caller's time limit, not damage.
Status InterruptedError(const Connection& db, int rc) {
  return Status::Error(db.Error(rc, "reading the chunks").message(),
                       std::make_error_code(std::errc::interrupted));
}

class Walker {
 public:
  Walker(const Connection& db, const ChunkWalkCallbacks& callbacks)
      : db_(db), callbacks_(callbacks) {}

  Status Prepare(bool has_crc) {
    const std::string_view what = "preparing to read the chunks";
    FATHOM_ASSIGN_OR_RETURN(
        next_key_, db_.Prepare("SELECT first_id FROM chunks WHERE first_id > ?1 ORDER BY first_id",
                               what));
    FATHOM_ASSIGN_OR_RETURN(
        probe_, db_.Prepare("SELECT first_id FROM chunks WHERE first_id >= ?1 ORDER BY first_id "
                            "LIMIT 1",
                            what));
    FATHOM_ASSIGN_OR_RETURN(
        keys_before_, db_.Prepare("SELECT first_id FROM chunks WHERE first_id < ?1 AND first_id "
                                  "> ?2 ORDER BY first_id DESC",
                                  what));
    FATHOM_ASSIGN_OR_RETURN(
        row_, db_.Prepare(std::string("SELECT last_id, min_ts, max_ts, data, ") +
                              (has_crc ? "crc" : "NULL") + " FROM chunks WHERE first_id = ?1",
                          what));
    FATHOM_ASSIGN_OR_RETURN(row_last_,
                            db_.Prepare("SELECT last_id FROM chunks WHERE first_id = ?1", what));
    return Status::Ok();
  }

  Status Run() {
    int64_t after = 0;  // ids start at 1: keys above `after` are left to read
    for (;;) {
      next_key_.Reset();
      next_key_.BindInt(1, after);
      int rc;
      bool out_of_order = false;
      while ((rc = sqlite3_step(next_key_.get())) == SQLITE_ROW) {
        const int64_t key = next_key_.ColumnInt(0);
        if (key <= after) {  // only a damaged page gives keys out of order
          out_of_order = true;
          break;
        }
        FATHOM_ASSIGN_OR_RETURN(bool go_on, Fetch(key));
        if (!go_on) return Status::Ok();
        after = key;
      }
      if (rc == SQLITE_DONE && !out_of_order) return Status::Ok();
      if (!out_of_order && Interrupted(rc)) return InterruptedError(db_, rc);
      const std::string problem = out_of_order ? "the table's keys are out of order"
                                               : std::string(sqlite3_errmsg(db_.get()));
      next_key_.Reset();
      callbacks_.unreadable({static_cast<uint64_t>(after), std::nullopt, std::nullopt,
                             "rows of the chunks table cannot be read (sqlite: " + problem + ")"});
      FATHOM_ASSIGN_OR_RETURN(std::optional<int64_t> resume, NextReadableKey(after));
      if (!resume) return Status::Ok();
      FATHOM_ASSIGN_OR_RETURN(std::vector<int64_t> between, KeysBetween(after, *resume));
      between.push_back(*resume);
      for (int64_t key : between) {
        FATHOM_ASSIGN_OR_RETURN(bool go_on, Fetch(key));
        if (!go_on) return Status::Ok();
      }
      after = *resume;
    }
  }

 private:
  struct Probe {
    bool failed = false;
    std::optional<int64_t> key;  // the first key at or after the probe (none: the end)
  };

  // Seeks to the first key >= `from`.
  Result<Probe> ProbeAt(int64_t from) {
    probe_.Reset();
    probe_.BindInt(1, from);
    const int rc = sqlite3_step(probe_.get());
    Probe p;
    if (rc == SQLITE_ROW) {
      p.key = probe_.ColumnInt(0);
      if (*p.key < from) p.failed = true;  // a damaged page
    } else if (Interrupted(rc)) {
      Status error = InterruptedError(db_, rc);
      probe_.Reset();
      return error;
    } else if (rc != SQLITE_DONE) {
      p.failed = true;
    }
    probe_.Reset();
    return p;
  }

  // The first key after `after` that a seek reaches: probes after + 1, + 2, + 4, ... until a
  // seek succeeds, then halves the gap back to the lowest probe that succeeds.
  Result<std::optional<int64_t>> NextReadableKey(int64_t after) {
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    int64_t failed = after;  // the highest probe known to fail (after itself: the scan did)
    int64_t worked = 0;
    Probe found;
    for (uint64_t step = 1;; step *= 2) {
      const int64_t at = static_cast<uint64_t>(kMax - after) <= step
                             ? kMax
                             : after + static_cast<int64_t>(step);
      FATHOM_ASSIGN_OR_RETURN(Probe p, ProbeAt(at));
      if (!p.failed) {
        worked = at;
        found = p;
        break;
      }
      failed = at;
      if (at == kMax) return std::optional<int64_t>();  // nothing past the damage is readable
    }
    while (static_cast<uint64_t>(worked) - static_cast<uint64_t>(failed) > 1) {
      const int64_t mid =
          failed + static_cast<int64_t>((static_cast<uint64_t>(worked) - static_cast<uint64_t>(failed)) / 2);
      FATHOM_ASSIGN_OR_RETURN(Probe p, ProbeAt(mid));
      if (p.failed) {
        failed = mid;
      } else {
        worked = mid;
        found = p;
      }
    }
    return found.key;
  }

  // The keys in (after, before) that a descending scan from `before` reaches before it meets
  // the damage, ascending.
  Result<std::vector<int64_t>> KeysBetween(int64_t after, int64_t before) {
    std::vector<int64_t> keys;
    keys_before_.Reset();
    keys_before_.BindInt(1, before);
    keys_before_.BindInt(2, after);
    int rc;
    int64_t previous = before;
    while ((rc = sqlite3_step(keys_before_.get())) == SQLITE_ROW) {
      const int64_t key = keys_before_.ColumnInt(0);
      if (key >= previous || key <= after) break;  // out of order: a damaged page
      keys.push_back(key);
      previous = key;
    }
    if (Interrupted(rc)) {
      Status error = InterruptedError(db_, rc);
      keys_before_.Reset();
      return error;
    }
    keys_before_.Reset();
    std::reverse(keys.begin(), keys.end());
    return keys;
  }

  // Reads the row of `key` and reports it; false when the row callback stops the walk.
  Result<bool> Fetch(int64_t key) {
    row_.Reset();
    row_.BindInt(1, key);
    const int rc = sqlite3_step(row_.get());
    if (rc == SQLITE_ROW) {
      ChunkRow row;
      row.first_id = static_cast<uint64_t>(key);
      row.last_id = static_cast<uint64_t>(row_.ColumnInt(0));
      row.min_ts = row_.ColumnInt(1);
      row.max_ts = row_.ColumnInt(2);
      row.data.assign(row_.ColumnBlob(3));
      if (!row_.ColumnIsNull(4)) row.crc = static_cast<uint32_t>(row_.ColumnInt(4));
      row_.Reset();
      return callbacks_.row(row);
    }
    if (Interrupted(rc)) {
      Status error = InterruptedError(db_, rc);
      row_.Reset();
      return error;
    }
    UnreadableRows unreadable;
    unreadable.first_id = static_cast<uint64_t>(key);
    if (rc == SQLITE_DONE) {
      unreadable.problem = "its row is not found by its own id (a damaged page of the table)";
    } else {
      unreadable.problem =
          "its row cannot be read (sqlite: " + std::string(sqlite3_errmsg(db_.get())) + ")";
    }
    row_.Reset();
    row_last_.Reset();
    row_last_.BindInt(1, key);
    if (sqlite3_step(row_last_.get()) == SQLITE_ROW) {
      unreadable.last_id = static_cast<uint64_t>(row_last_.ColumnInt(0));
    }
    row_last_.Reset();
    callbacks_.unreadable(unreadable);
    return true;
  }

  const Connection& db_;
  const ChunkWalkCallbacks& callbacks_;
  Statement next_key_, probe_, keys_before_, row_, row_last_;
};

}  // namespace

Status WalkChunkRows(const Connection& db, bool has_crc, const ChunkWalkCallbacks& callbacks) {
  Walker walker(db, callbacks);
  FATHOM_RETURN_IF_ERROR(walker.Prepare(has_crc));
  return walker.Run();
}

}  // namespace fathom::store

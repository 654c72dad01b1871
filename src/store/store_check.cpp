#include "store/store_check.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "store/checksum.h"
#include "store/store_schema.h"

namespace fathom {

uint64_t StoreCheck::LostEvents() const {
  uint64_t n = 0;
  for (const auto& r : lost) n += r.size();
  return n;
}

std::string FormatIdRanges(const std::vector<IdRange>& ranges) {
  if (ranges.empty()) return "none";
  std::string out;
  for (const auto& r : ranges) {
    if (!out.empty()) out += ", ";
    out += std::to_string(r.first);
    if (r.last != r.first) out += ".." + std::to_string(r.last);
  }
  return out;
}

std::string FormatStoreCheck(const StoreCheck& c) {
  std::string out = "event store " + c.path + "\n";
  auto line = [&](const std::string& label, const std::string& text) {
    out += "  " + label + std::string(label.size() < 17 ? 17 - label.size() : 1, ' ') + text + "\n";
  };
  if (c.first_id == 0 || c.last_id == 0) {
    line("held ids:", c.last_id == 0 && c.first_id != 0 ? "none (no event was ever stored)"
                                                        : "unknown (see the problems below)");
  } else if (c.first_id > c.last_id) {
    line("held ids:", "none (newest id " + std::to_string(c.last_id) + ")");
  } else {
    line("held ids:", std::to_string(c.first_id) + ".." + std::to_string(c.last_id) + " (" +
                          std::to_string(c.last_id - c.first_id + 1) + " ids)");
  }
  if (c.integrity.empty()) {
    line("integrity check:", c.integrity_done ? "ok" : "not finished");
  } else {
    line("integrity check:", std::to_string(c.integrity.size()) + " findings");
    for (const auto& finding : c.integrity) out += "      " + finding + "\n";
  }
  std::string chunks = std::to_string(c.chunks_read) + " sound (" + std::to_string(c.events_read) +
                       " events held)";
  if (!c.chunks.empty()) chunks += ", " + std::to_string(c.chunks.size()) + " damaged:";
  line("chunks:", chunks);
  for (const auto& d : c.chunks) {
    out += "      ids " + std::to_string(d.ids.first) + ".." + std::to_string(d.ids.last) + ": " +
           d.problem + "\n";
  }
  line("lost ids:", c.lost.empty() ? "none"
                                   : FormatIdRanges(c.lost) + " (" +
                                         std::to_string(c.LostEvents()) + " events)");
  if (!c.lost_before.empty()) {
    line("lost before:", FormatIdRanges(c.lost_before) + " (recorded by the recovery that wrote "
                         "this store)");
  }
  for (const auto& problem : c.other) line("problem:", problem);
  if (!c.complete) line("note:", "the check stopped before its end; what it did not reach is unchecked");
  if (c.sound()) {
    out += "verdict: sound\n";
  } else {
    out += "verdict: damaged; `fathom store recover " + c.path +
           " --to NEW` copies every readable event (" + std::to_string(c.events_read) +
           ") into a new store, keeping their ids\n";
  }
  return out;
}

std::string FormatStoreRecovery(const StoreRecovery& r, const std::string& to) {
  std::string out = "recovered into " + to + ": " + std::to_string(r.events_copied) +
                    " events in " + std::to_string(r.chunks_copied) + " chunks, ids kept\n";
  out += "lost ids: " +
         (r.lost.empty() ? std::string("none")
                         : FormatIdRanges(r.lost) + " (recorded in the new store; `fathom "
                                                    "events` reports them as it passes)") +
         "\n";
  for (const auto& note : r.notes) out += "note: " + note + "\n";
  return out;
}

namespace store {
namespace {

// Calls sqlite3_interrupt() on `db` from `deadline` on, every 10 ms (an interrupt that comes
// while no statement runs does nothing), until destroyed; never after its destructor returns.
class Watchdog {
 public:
  Watchdog(sqlite3* db, CheckClock::time_point deadline) {
    if (deadline == CheckClock::time_point::max()) return;
    thread_ = std::thread([this, db, deadline] {
      std::unique_lock lock(mu_);
      if (wake_.wait_until(lock, deadline, [&] { return done_; })) return;
      do {
        sqlite3_interrupt(db);
      } while (!wake_.wait_for(lock, std::chrono::milliseconds(10), [&] { return done_; }));
    });
  }
  ~Watchdog() {
    {
      std::lock_guard lock(mu_);
      done_ = true;
    }
    wake_.notify_one();
    if (thread_.joinable()) thread_.join();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

 private:
  std::mutex mu_;
  std::condition_variable wake_;
  bool done_ = false;  // guarded by mu_
  std::thread thread_;
};

bool Interrupted(int rc) { return (rc & 0xff) == SQLITE_INTERRUPT; }

std::string IdsText(uint64_t first, uint64_t last) {
  return first == last ? "id " + std::to_string(first)
                       : "ids " + std::to_string(first) + ".." + std::to_string(last);
}

// `from` without the ids of `minus` (both ascending; `minus` may overlap itself).
std::vector<IdRange> Subtract(const std::vector<IdRange>& from, std::vector<IdRange> minus) {
  std::sort(minus.begin(), minus.end(),
            [](const IdRange& a, const IdRange& b) { return a.first < b.first; });
  std::vector<IdRange> out;
  for (IdRange r : from) {
    uint64_t next = r.first;  // the lowest id of r not yet placed
    bool done = false;
    for (const IdRange& m : minus) {
      if (m.last < next) continue;
      if (m.first > r.last) break;
      if (m.first > next) out.push_back({next, m.first - 1});
      if (m.last >= r.last) {
        done = true;
        break;
      }
      next = m.last + 1;
    }
    if (!done && next <= r.last) out.push_back({next, r.last});
  }
  return out;
}

// Runs PRAGMA quick_check / integrity_check; false when it was interrupted.
bool RunIntegrityCheck(const Connection& db, const CheckOptions& options, StoreCheck& check) {
  const std::string sql = std::string(options.quick ? "PRAGMA quick_check(" : "PRAGMA integrity_check(") +
                          std::to_string(std::max(options.max_findings, 1)) + ")";
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v2(db.get(), sql.c_str(), -1, &raw, nullptr);
  Statement stmt(raw);
  if (rc == SQLITE_OK) {
    while ((rc = sqlite3_step(raw)) == SQLITE_ROW) {
      // One finding per line; SQLite heads them with the database's name.
      const std::string text = stmt.ColumnText(0);
      size_t start = 0;
      while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        std::string line = text.substr(start, end - start);
        start = end + 1;
        if (line.empty() || line == "ok" || line.rfind("*** in database ", 0) == 0) continue;
        check.integrity.push_back(std::move(line));
      }
    }
  }
  if (Interrupted(rc)) return false;
  check.integrity_done = true;
  if (rc == SQLITE_DONE) return true;
  check.integrity.push_back("the check stopped at damage it could not read past (sqlite: " +
                            std::string(sqlite3_errmsg(db.get())) + ")");
  return true;
}

// meta 'first_id' or 'last_id'; nullopt (and a note in check.other) when unreadable.
std::optional<uint64_t> ReadMeta(const Connection& db, const char* key, const char* meaning,
                                 StoreCheck& check, bool& interrupted) {
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v2(db.get(), "SELECT value FROM meta WHERE key = ?1", -1, &raw, nullptr);
  Statement stmt(raw);
  if (rc == SQLITE_OK) {
    stmt.BindText(1, key);
    rc = sqlite3_step(raw);
    if (rc == SQLITE_ROW && !stmt.ColumnIsNull(0)) return static_cast<uint64_t>(stmt.ColumnInt(0));
  }
  if (Interrupted(rc)) {
    interrupted = true;
  } else if (rc == SQLITE_ROW || rc == SQLITE_DONE) {
    check.other.push_back(std::string("the store's record of ") + meaning + " (meta " + key +
                          ") is missing");
  } else {
    check.other.push_back(std::string("the store's record of ") + meaning + " (meta " + key +
                          ") cannot be read (sqlite: " + sqlite3_errmsg(db.get()) + ")");
  }
  return std::nullopt;
}

// The ranges a recovery recorded as lost (none when the store was never recovered).
std::vector<IdRange> ReadLostTable(const Connection& db, StoreCheck& check, bool& interrupted) {
  std::vector<IdRange> ranges;
  auto exists = db.QueryInt("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'lost'",
                            "reading the schema");
  if (!exists.ok() && Interrupted(sqlite3_extended_errcode(db.get()))) interrupted = true;
  if (!exists.ok() || exists.value() == 0) return ranges;
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v2(db.get(), "SELECT first_id, last_id FROM lost ORDER BY first_id", -1,
                              &raw, nullptr);
  Statement stmt(raw);
  if (rc == SQLITE_OK) {
    while ((rc = sqlite3_step(raw)) == SQLITE_ROW) {
      ranges.push_back({static_cast<uint64_t>(stmt.ColumnInt(0)),
                        static_cast<uint64_t>(stmt.ColumnInt(1))});
    }
  }
  if (Interrupted(rc)) {
    interrupted = true;
  } else if (rc != SQLITE_DONE) {
    check.other.push_back("the record of ids lost in an earlier recovery cannot be read (sqlite: " +
                          std::string(sqlite3_errmsg(db.get())) + ")");
  }
  return ranges;
}

}  // namespace

std::optional<std::string> ChunkRowProblem(const ChunkRow& row, ChunkSummary* summary) {
  if (row.last_id < row.first_id || row.last_id - row.first_id >= kMaxChunkEvents) {
    return "its row gives it " + IdsText(row.first_id, row.last_id) + ", which no chunk holds";
  }
  if (row.crc && Crc32c(row.data) != *row.crc) {
    return std::string("checksum mismatch: its bytes changed after they were stored");
  }
  auto scanned = ScanChunk(row.data);
  if (!scanned.ok()) return "its bytes do not decode (" + scanned.status().message() + ")";
  const uint64_t count = row.last_id - row.first_id + 1;
  if (scanned.value().count != count) {
    return "it holds " + std::to_string(scanned.value().count) + " events, its row says " +
           std::to_string(count);
  }
  if (scanned.value().min_ts != row.min_ts || scanned.value().max_ts != row.max_ts) {
    return std::string("its row's timestamps disagree with its events");
  }
  if (summary != nullptr) *summary = scanned.value();
  return std::nullopt;
}

Result<bool> HasChecksumColumn(const Connection& db) {
  FATHOM_ASSIGN_OR_RETURN(
      int64_t n, db.QueryInt("SELECT count(*) FROM pragma_table_info('chunks') WHERE name = 'crc'",
                             "reading the schema"));
  return n > 0;
}

StoreCheck CheckStoreConnection(const Connection& db, bool has_crc, const CheckOptions& options) {
  StoreCheck check;
  check.path = db.path();
  auto expired = [&] { return CheckClock::now() >= options.deadline; };
  std::vector<IdRange> sound;            // sound chunks, ascending
  std::vector<UnreadableRows> unreadable;
  std::optional<uint64_t> floor, newest;
  uint64_t reached = 0;                  // the highest id of any row read
  if (expired()) {
    check.complete = false;
    return check;
  }
  // One read transaction: every step below sees the same store.
  if (!db.Exec("BEGIN", "starting the check").ok()) {
    check.other.push_back("the store cannot be read (sqlite: " +
                          std::string(sqlite3_errmsg(db.get())) + ")");
    return check;
  }
  {
    Watchdog watchdog(db.get(), options.deadline);
    // Each step stops when interrupted; the clock is read between them too.
    bool interrupted = expired() || !RunIntegrityCheck(db, options, check) || expired();
    if (!interrupted) floor = ReadMeta(db, "first_id", "its retention floor", check, interrupted);
    if (!interrupted) newest = ReadMeta(db, "last_id", "its newest id", check, interrupted);
    if (!interrupted) check.lost_before = ReadLostTable(db, check, interrupted);
    interrupted = interrupted || expired();
    if (!interrupted) {
      ChunkWalkCallbacks callbacks;
      uint64_t sound_last = 0;
      callbacks.row = [&](const ChunkRow& row) {
        if (expired()) {
          interrupted = true;
          return false;
        }
        if (row.last_id >= row.first_id) reached = std::max(reached, row.last_id);
        ChunkSummary summary;
        std::optional<std::string> problem = ChunkRowProblem(row, &summary);
        if (!problem && row.first_id <= sound_last) {
          problem = "it repeats ids of the chunk before it";
        }
        if (problem) {
          check.chunks.push_back({{row.first_id, row.last_id}, *problem});
          return true;
        }
        if (options.sound_row && !options.sound_row(row)) {
          interrupted = true;
          return false;
        }
        sound.push_back({row.first_id, row.last_id});
        sound_last = row.last_id;
        return true;
      };
      callbacks.unreadable = [&](const UnreadableRows& u) {
        if (u.first_id) reached = std::max(reached, u.last_id.value_or(*u.first_id));
        unreadable.push_back(u);
      };
      Status walked = WalkChunkRows(db, has_crc, callbacks);
      if (!walked.ok()) {
        if (walked.code() == std::errc::interrupted) {
          interrupted = true;
        } else {
          check.other.push_back("the chunks table cannot be read: " + walked.message());
        }
      }
    }
    check.complete = !interrupted;
  }
  db.RollbackIfOpen();  // ends the read transaction (nothing was written)

  check.first_id = floor.value_or(0);
  check.last_id = newest.value_or(0);
  uint64_t chunk_max = 0;
  for (const auto& r : sound) chunk_max = std::max(chunk_max, r.last);
  const uint64_t held_first = floor.value_or(sound.empty() ? 1 : sound.front().first);
  uint64_t held_last = newest.value_or(std::max(chunk_max, reached));
  if (newest && chunk_max > *newest) {
    check.other.push_back("chunks hold ids up to " + std::to_string(chunk_max) +
                          ", past the newest id the store records (" + std::to_string(*newest) + ")");
  }
  if (!check.complete) held_last = std::min(held_last, reached);  // what the check reached

  for (const auto& r : sound) {
    const uint64_t first = std::max(r.first, held_first);
    const uint64_t last = std::min(r.last, held_last);
    if (first <= last) check.events_read += last - first + 1;
  }
  check.chunks_read = sound.size();

  // Held ids that no sound chunk holds, nor an earlier recovery recorded as lost.
  if (held_first <= held_last) {
    std::vector<IdRange> minus = sound;
    minus.insert(minus.end(), check.lost_before.begin(), check.lost_before.end());
    check.lost = Subtract({{held_first, held_last}}, std::move(minus));
  }

  // Rows unreadable as a whole whose ids are known are damaged chunks; the lost ids no damaged
  // row accounts for are the unreadable rows' (their ids known only from their neighbours').
  for (const auto& u : unreadable) {
    if (u.first_id && u.last_id && *u.last_id >= *u.first_id) {
      check.chunks.push_back({{*u.first_id, *u.last_id}, u.problem});
    }
  }
  std::vector<IdRange> explained;
  for (const auto& c : check.chunks) explained.push_back(c.ids);
  for (const IdRange& part : Subtract(check.lost, explained)) {
    std::string problem = "no chunk row holds them";
    for (const auto& u : unreadable) {
      if (u.first_id ? (*u.first_id >= part.first && *u.first_id <= part.last)
                     : u.after_id < part.first) {
        problem = u.first_id ? "their row cannot be read: " + u.problem : u.problem;
      }
    }
    check.chunks.push_back({part, problem});
  }
  std::sort(check.chunks.begin(), check.chunks.end(),
            [](const ChunkDamage& a, const ChunkDamage& b) { return a.ids.first < b.ids.first; });
  return check;
}

Status DamagedStoreError(const std::string& path, const std::string& what) {
  return Status::Error("event store " + path + " is damaged, so nothing is appended to it: " + what +
                       "; `fathom store verify " + path +
                       "` reports all of it, and `fathom store recover " + path +
                       " --to NEW` copies every readable event into a new store to write to "
                       "instead");
}

Status CheckBeforeWriting(const Connection& db, int64_t version, bool has_crc,
                          std::chrono::milliseconds limit) {
  if (limit.count() <= 0) return Status::Ok();
  CheckOptions options;
  options.quick = true;
  options.deadline = CheckClock::now() + limit;
  options.max_findings = 10;
  StoreCheck check;
  if (version < 2) {  // converted by this writer, which reads every event: SQLite's check only
    Watchdog watchdog(db.get(), options.deadline);
    check.complete = RunIntegrityCheck(db, options, check);
  } else {
    check = CheckStoreConnection(db, has_crc, options);
  }
  const std::string& path = db.path();
  if (!check.sound()) {
    std::string what;
    size_t problems = check.integrity.size() + check.chunks.size() + check.other.size();
    if (!check.integrity.empty()) {
      what = "SQLite's integrity check says: " + check.integrity.front();
    } else if (!check.chunks.empty()) {
      const ChunkDamage& c = check.chunks.front();
      what = "the chunk of " + IdsText(c.ids.first, c.ids.last) + " is damaged: " + c.problem;
    } else if (!check.other.empty()) {
      what = check.other.front();
    } else {
      what = "ids " + FormatIdRanges(check.lost) + " are not held";
      problems = 1;
    }
    if (problems > 1) what += " (and " + std::to_string(problems - 1) + " more problems)";
    return DamagedStoreError(path, what);
  }
  if (!check.complete) {
    spdlog::warn(
        "event store {}: the check at start-up stopped after {} ms, with no damage in what it "
        "reached; `fathom store verify {}` checks all of it",
        path, limit.count(), path);
  }
  return Status::Ok();
}

}  // namespace store

Result<StoreCheck> VerifyStore(const std::string& path) {
  StoreOptions options;
  options.path = path;
  options.read_only = true;
  FATHOM_ASSIGN_OR_RETURN(store::OpenedStore opened, store::OpenStoreConnection(options));
  return store::CheckStoreConnection(opened.db, opened.has_crc, store::CheckOptions{});
}

}  // namespace fathom

// store_test_util.h — building events, reading a store back, and checking a SQLite file,
// shared by the store tests and the CLI tests that inspect a store. Header-only; one thread.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fathom/event.h"
#include "fathom/store.h"

namespace fathom::testing {

// Opens a store, failing the test (and returning nullptr) when it cannot.
inline std::unique_ptr<EventStore> OpenOrDie(const StoreOptions& options) {
  auto store = EventStore::Open(options);
  EXPECT_TRUE(store.ok()) << store.status().message();
  return store.ok() ? std::move(store.value()) : nullptr;
}

inline Event MakeEvent(const std::string& path, int64_t ts_ns = NowNs(),
                       uint32_t mask = kind::kCreate) {
  Event e;
  e.ts_ns = ts_ns;
  e.mask = mask;
  e.root = "/watched";
  e.path = path;
  e.source = "inotify";
  return e;
}

// `n` CREATE events on "/watched/<stem><i>" for i in [first, first + n).
inline std::vector<Event> MakeBatch(size_t n, size_t first = 0, const std::string& stem = "f",
                                    int64_t ts_ns = NowNs()) {
  std::vector<Event> batch;
  batch.reserve(n);
  for (size_t i = first; i < first + n; ++i)
    batch.push_back(MakeEvent("/watched/" + stem + std::to_string(i), ts_ns));
  return batch;
}

inline StoreOptions WriterOptions(const std::string& path) {
  StoreOptions o;
  o.path = path;
  o.sync_full = false;
  return o;
}

inline StoreOptions ReaderOptions(const std::string& path) {
  StoreOptions o;
  o.path = path;
  o.read_only = true;
  return o;
}

inline ReplayQuery Query(uint64_t since_id, std::string path_prefix = "", uint64_t limit = 0) {
  ReplayQuery q;
  q.since_id = since_id;
  q.path_prefix = std::move(path_prefix);
  q.limit = limit;
  return q;
}

// Every event matching `query`, in replay order; a failed replay adds a gtest failure.
inline std::vector<Event> ReplayAll(EventStore& store, const ReplayQuery& query = {}) {
  std::vector<Event> out;
  Status s = store.Replay(query, [&](const Event& e) {
    out.push_back(e);
    return true;
  });
  EXPECT_TRUE(s.ok()) << s.message();
  return out;
}

inline std::vector<uint64_t> Ids(const std::vector<Event>& events) {
  std::vector<uint64_t> ids;
  for (const auto& e : events) ids.push_back(e.id);
  return ids;
}

inline std::vector<uint64_t> IdRange(uint64_t first, uint64_t last) {
  std::vector<uint64_t> ids;
  for (uint64_t id = first; id <= last; ++id) ids.push_back(id);
  return ids;
}

// Runs `sql` on its own connection to `path`; returns the first column of every row, or the
// error text prefixed with "error: ".
inline std::vector<std::string> SqlColumn(const std::string& path, const std::string& sql,
                                          int flags = SQLITE_OPEN_READONLY) {
  std::vector<std::string> rows;
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc == SQLITE_OK) {
    sqlite3_busy_timeout(db, 10'000);
    sqlite3_stmt* stmt = nullptr;
    rc = sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr);
    while (rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
      rows.emplace_back(text != nullptr ? text : "");
      rc = SQLITE_OK;
    }
    sqlite3_finalize(stmt);
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
  }
  if (rc != SQLITE_OK) rows = {std::string("error: ") + sqlite3_errmsg(db)};
  sqlite3_close_v2(db);
  return rows;
}

// Upper-case hex of `bytes`, as SQLite's hex() writes it.
inline std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

// The bytes of upper-case or lower-case hex text.
inline std::string Unhex(std::string_view hex) {
  auto digit = [](char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(digit(hex[i]) * 16 + digit(hex[i + 1])));
  }
  return out;
}

// PRAGMA integrity_check's verdict: {"ok"} for a sound file.
inline std::vector<std::string> IntegrityCheck(const std::string& path) {
  return SqlColumn(path, "PRAGMA integrity_check");
}

// Runs one or more SQL statements on `path` (creating it if needed); returns the error or "".
inline std::string SqlExec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  char* error = nullptr;
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  std::string message = rc == SQLITE_OK ? "" : (error != nullptr ? error : sqlite3_errmsg(db));
  sqlite3_free(error);
  sqlite3_close_v2(db);
  return message;
}

}  // namespace fathom::testing

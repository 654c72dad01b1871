// Damaged store files, damaged on disk in several ways and with several seeds: what
// VerifyStore reports, what RecoverStore copies (every event outside the damaged ranges, ids
// kept) and reports lost, that a writer refuses a damaged store, and that a replay after the
// damage goes on. And the time limit of a writer's check at start-up.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include "fathom/store.h"
#include "fathom/store_check.h"
#include "store/sqlite_handle.h"
#include "store/store_check.h"
#include "store/store_schema.h"
#include "store/store_test_util.h"
#include "support/temp_dir.h"

namespace fathom {
namespace {

using namespace std::chrono_literals;
using testing::Ids;
using testing::MakeEvent;
using testing::Query;
using testing::ReaderOptions;
using testing::ReplayAll;
using testing::WriterOptions;

constexpr uint64_t kPage = 4096;

// A store written through the library, as fathom writes one, and what it holds.
struct Original {
  std::vector<Event> events;       // ids 1..N
  std::vector<IdRange> chunks;     // its rows, in id order
};

Original WriteStore(const std::string& path, uint32_t seed) {
  Original o;
  std::mt19937 rng(seed);
  auto store = EventStore::Open(WriterOptions(path));
  EXPECT_TRUE(store.ok()) << store.status().message();
  if (!store.ok()) return o;
  for (int b = 0; b < 40; ++b) {
    std::vector<Event> batch;
    const size_t n = 1 + rng() % 2500;
    for (size_t i = 0; i < n; ++i) {
      Event e = MakeEvent("/watched/d" + std::to_string(rng() % 50) + "/file-" +
                              std::to_string(rng()),
                          int64_t{1'700'000'000} * 1'000'000'000 + b * 1'000'000 + int64_t(i),
                          rng() % 2 == 0 ? kind::kCreate : kind::kCloseWrite);
      if (rng() % 4 == 0) e.attrs = R"({"size":)" + std::to_string(rng() % 100000) + "}";
      batch.push_back(std::move(e));
    }
    EXPECT_TRUE(store.value()->Append(batch).ok());
    o.events.insert(o.events.end(), batch.begin(), batch.end());
  }
  store.value().reset();  // closed: every page in the main file, no WAL left
  for (const auto& row : testing::SqlColumn(path, "SELECT first_id || ' ' || last_id FROM chunks ORDER BY first_id")) {
    IdRange r;
    std::sscanf(row.c_str(), "%lu %lu", &r.first, &r.last);
    o.chunks.push_back(r);
  }
  return o;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void WriteAt(const std::string& path, uint64_t offset, std::string_view bytes) {
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  file.seekp(static_cast<std::streamoff>(offset));
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Flips a byte inside the data of the chunk row `first_id`, found in the file itself (a
// window of its bytes that occurs once there). Returns false if no such window was found.
bool CorruptChunkBytes(const std::string& path, uint64_t first_id, std::mt19937& rng) {
  const auto hex = testing::SqlColumn(
      path, "SELECT hex(data) FROM chunks WHERE first_id = " + std::to_string(first_id));
  if (hex.size() != 1) return false;
  const std::string blob = testing::Unhex(hex[0]);
  const std::string file = ReadFile(path);
  constexpr size_t kWindow = 24;
  if (blob.size() < kWindow) return false;
  for (int attempt = 0; attempt < 200; ++attempt) {
    const size_t at = rng() % (blob.size() - kWindow + 1);
    const std::string_view window(blob.data() + at, kWindow);
    const size_t found = file.find(window);
    if (found == std::string::npos || file.find(window, found + 1) != std::string::npos) continue;
    const size_t flip = found + rng() % kWindow;
    const char changed = static_cast<char>(file[flip] ^ static_cast<char>(1 + rng() % 255));
    WriteAt(path, flip, std::string_view(&changed, 1));
    return true;
  }
  return false;
}

// SQLite's variable-length integer at p (1 to 9 bytes, big-endian groups of 7 bits).
uint64_t SqliteVarint(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) {
    v = (v << 7) | (p[i] & 0x7f);
    if ((p[i] & 0x80) == 0) return v;
  }
  return (v << 8) | p[8];
}

// The rowids (first_id) of the cells on table-leaf page `pageno` of `file`.
std::vector<uint64_t> LeafRowids(const std::string& file, uint64_t pageno) {
  const auto* page = reinterpret_cast<const unsigned char*>(file.data()) + (pageno - 1) * kPage;
  const size_t header = pageno == 1 ? 100 : 0;
  EXPECT_EQ(page[header], 0x0D) << "page " << pageno << " is not a table leaf";
  const unsigned cells = (page[header + 3] << 8) | page[header + 4];
  std::vector<uint64_t> rowids;
  for (unsigned i = 0; i < cells; ++i) {
    const unsigned at = (page[header + 8 + 2 * i] << 8) | page[header + 9 + 2 * i];
    const unsigned char* cell = page + at;
    while (*cell & 0x80) ++cell;  // payload size
    ++cell;
    rowids.push_back(SqliteVarint(cell));
  }
  return rowids;
}

// Overwrites a leaf page of the chunks table with random bytes (and a page type no b-tree
// page has); returns the ids its rows held.
std::vector<IdRange> CorruptLeafPage(const std::string& path, const Original& o, std::mt19937& rng) {
  const auto leaves = testing::SqlColumn(
      path, "SELECT pageno FROM dbstat WHERE name = 'chunks' AND pagetype = 'leaf' ORDER BY pageno");
  EXPECT_GE(leaves.size(), 3u) << "the store should span several leaves";
  const uint64_t pageno = std::stoull(leaves.at(rng() % leaves.size()));
  std::set<uint64_t> rowids;
  for (uint64_t r : LeafRowids(ReadFile(path), pageno)) rowids.insert(r);
  std::string garbage(kPage, '\0');
  for (char& c : garbage) c = static_cast<char>(rng());
  garbage[0] = 0x00;
  WriteAt(path, (pageno - 1) * kPage, garbage);
  std::vector<IdRange> lost;
  for (const IdRange& c : o.chunks) {
    if (rowids.count(c.first) == 0) continue;
    if (!lost.empty() && lost.back().last + 1 == c.first) {
      lost.back().last = c.last;
    } else {
      lost.push_back(c);
    }
  }
  return lost;
}

uint64_t RootPageOfChunks(const std::string& path) {
  return std::stoull(
      testing::SqlColumn(path, "SELECT rootpage FROM sqlite_schema WHERE name = 'chunks'").at(0));
}

bool InRanges(uint64_t id, const std::vector<IdRange>& ranges) {
  return std::any_of(ranges.begin(), ranges.end(),
                     [&](const IdRange& r) { return id >= r.first && id <= r.last; });
}

class DamagedStore : public ::testing::Test {
 protected:
  void SetUp() override {
    original_path_ = dir_ / "original.db";
    original_ = WriteStore(original_path_, 20241124);
    ASSERT_GE(original_.chunks.size(), 20u);
  }

  // A fresh copy of the original for one seed.
  std::string Copy(int seed) {
    const std::string path = dir_ / ("damaged-" + std::to_string(seed) + ".db");
    std::filesystem::copy_file(original_path_, path);
    return path;
  }

  // Everything a damaged store must give: verify's report, recovery of every event outside the
  // lost ranges (with their ids), the lost ranges recorded, and a writer that refuses it.
  // `expected_lost`: the exact ids damaged, when the test knows them.
  StoreCheck CheckDamaged(const std::string& damaged, const std::optional<std::vector<IdRange>>& expected_lost,
                          const std::string& context) {
    SCOPED_TRACE(context);
    auto verified = VerifyStore(damaged);
    EXPECT_TRUE(verified.ok()) << verified.status().message();
    if (!verified.ok()) return {};
    const StoreCheck& check = verified.value();
    EXPECT_FALSE(check.sound()) << FormatStoreCheck(check);
    EXPECT_TRUE(check.complete);
    EXPECT_EQ(check.first_id, 1u);
    EXPECT_EQ(check.last_id, original_.events.size());
    EXPECT_FALSE(check.lost.empty()) << FormatStoreCheck(check);
    if (expected_lost) {
      EXPECT_EQ(check.lost, *expected_lost) << FormatStoreCheck(check);
    }
    // Lost ranges are whole chunks of the original; the damaged chunks reported cover them.
    for (const IdRange& r : check.lost) {
      EXPECT_TRUE(std::any_of(original_.chunks.begin(), original_.chunks.end(),
                              [&](const IdRange& c) { return c.first == r.first; }))
          << "lost range starts inside a chunk: " << r.first;
      EXPECT_TRUE(std::any_of(original_.chunks.begin(), original_.chunks.end(),
                              [&](const IdRange& c) { return c.last == r.last; }))
          << "lost range ends inside a chunk: " << r.last;
      EXPECT_TRUE(std::any_of(check.chunks.begin(), check.chunks.end(),
                              [&](const ChunkDamage& d) { return d.ids.first <= r.first; }));
    }
    EXPECT_EQ(check.events_read + check.LostEvents(), original_.events.size());
    const std::string report = FormatStoreCheck(check);
    EXPECT_NE(report.find("lost ids:        " + FormatIdRanges(check.lost)), std::string::npos) << report;
    EXPECT_NE(report.find("verdict: damaged; `fathom store recover " + damaged), std::string::npos)
        << report;

    // Recovery: every other event, identical, ids kept; the lost ranges reported and recorded.
    const std::string recovered = damaged + ".recovered";
    auto recovery = RecoverStore(damaged, recovered);
    EXPECT_TRUE(recovery.ok()) << recovery.status().message();
    if (!recovery.ok()) return check;
    EXPECT_EQ(recovery.value().lost, check.lost);
    std::vector<Event> expected;
    for (const Event& e : original_.events) {
      if (!InRanges(e.id, check.lost)) expected.push_back(e);
    }
    EXPECT_EQ(recovery.value().events_copied, expected.size());
    {
      auto store = testing::OpenOrDie(ReaderOptions(recovered));
      EXPECT_NE(store, nullptr);
      if (store == nullptr) return check;
      const auto events = ReplayAll(*store);
      EXPECT_EQ(events.size(), expected.size());
      EXPECT_TRUE(events == expected) << "the recovered events differ from the original's";
      EXPECT_EQ(store->LostRanges().value(), check.lost);
      EXPECT_EQ(store->LastId().value(), original_.events.size());
    }
    auto again = VerifyStore(recovered);
    EXPECT_TRUE(again.ok()) << again.status().message();
    if (again.ok()) {
      EXPECT_TRUE(again.value().sound()) << FormatStoreCheck(again.value());
      EXPECT_EQ(again.value().lost_before, check.lost);
    }
    EXPECT_EQ(testing::IntegrityCheck(recovered), std::vector<std::string>{"ok"});
    // A recovered store takes a writer, whose ids continue after the newest.
    {
      auto writer = EventStore::Open(WriterOptions(recovered));
      EXPECT_TRUE(writer.ok()) << writer.status().message();
      if (writer.ok()) {
        auto batch = testing::MakeBatch(1);
        EXPECT_TRUE(writer.value()->Append(batch).ok());
        EXPECT_EQ(batch[0].id, original_.events.size() + 1);
      }
    }

    // A writer refuses the damaged store and writes nothing into it.
    const std::string before = ReadFile(damaged);
    auto writer = EventStore::Open(WriterOptions(damaged));
    EXPECT_FALSE(writer.ok());
    if (!writer.ok()) {
      const std::string& m = writer.status().message();
      EXPECT_NE(m.find("event store " + damaged + " is damaged, so nothing is appended to it"),
                std::string::npos)
          << m;
      EXPECT_NE(m.find("`fathom store verify " + damaged + "`"), std::string::npos) << m;
      EXPECT_NE(m.find("`fathom store recover " + damaged + " --to NEW`"), std::string::npos) << m;
    }
    EXPECT_EQ(ReadFile(damaged), before) << "the refusing writer changed the file";
    return check;
  }

  // A replay from after the damage returns exactly the original's events after it; one from
  // before meets the damage and says what to do.
  void CheckReplayAroundTheDamage(const std::string& damaged, const std::vector<IdRange>& lost) {
    auto store = testing::OpenOrDie(ReaderOptions(damaged));
    ASSERT_NE(store, nullptr);
    const uint64_t after = lost.back().last;
    const auto events = ReplayAll(*store, Query(after));
    ASSERT_EQ(events.size(), original_.events.size() - after);
    EXPECT_TRUE(std::equal(events.begin(), events.end(), original_.events.begin() + after));
    Status s = store->Replay(Query(lost.front().first - 1), [](const Event&) { return true; });
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("event store " + damaged), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("fathom store recover"), std::string::npos) << s.message();
  }

  testing::TempDir dir_;
  std::string original_path_;
  Original original_;
};

TEST_F(DamagedStore, ASoundStoreVerifiesAsSound) {
  auto check = VerifyStore(original_path_);
  ASSERT_TRUE(check.ok()) << check.status().message();
  EXPECT_TRUE(check.value().sound()) << FormatStoreCheck(check.value());
  EXPECT_TRUE(check.value().complete);
  EXPECT_TRUE(check.value().integrity_done);
  EXPECT_EQ(check.value().chunks_read, original_.chunks.size());
  EXPECT_EQ(check.value().events_read, original_.events.size());
  const std::string report = FormatStoreCheck(check.value());
  EXPECT_NE(report.find("integrity check: ok"), std::string::npos) << report;
  EXPECT_NE(report.find("verdict: sound"), std::string::npos) << report;
}

TEST_F(DamagedStore, CorruptBytesInAChunkAreFoundByItsChecksumAndThatChunkAloneIsLost) {
  for (int seed = 1; seed <= 5; ++seed) {
    std::mt19937 rng(seed);
    const std::string damaged = Copy(seed);
    const IdRange chunk = original_.chunks.at(rng() % original_.chunks.size());
    ASSERT_TRUE(CorruptChunkBytes(damaged, chunk.first, rng)) << "seed " << seed;
    const StoreCheck check =
        CheckDamaged(damaged, std::vector<IdRange>{chunk}, "chunk bytes, seed " + std::to_string(seed));
    EXPECT_TRUE(check.integrity.empty()) << "SQLite sees nothing wrong with the page";
    ASSERT_EQ(check.chunks.size(), 1u) << FormatStoreCheck(check);
    EXPECT_EQ(check.chunks[0].ids, chunk);
    EXPECT_EQ(check.chunks[0].problem, "checksum mismatch: its bytes changed after they were stored");
    CheckReplayAroundTheDamage(damaged, {chunk});
  }
}

TEST_F(DamagedStore, ACorruptLeafPageLosesExactlyTheChunksOnIt) {
  for (int seed = 1; seed <= 5; ++seed) {
    std::mt19937 rng(100 + seed);
    const std::string damaged = Copy(seed);
    const std::vector<IdRange> lost = CorruptLeafPage(damaged, original_, rng);
    ASSERT_FALSE(lost.empty());
    const StoreCheck check = CheckDamaged(damaged, lost, "leaf page, seed " + std::to_string(seed));
    EXPECT_FALSE(check.integrity.empty()) << "SQLite's check finds the page";
    CheckReplayAroundTheDamage(damaged, lost);
  }
}

TEST_F(DamagedStore, ATruncatedFileLosesTheChunksPastItsEnd) {
  for (int seed = 1; seed <= 5; ++seed) {
    std::mt19937 rng(200 + seed);
    const std::string damaged = Copy(seed);
    const uint64_t pages = std::filesystem::file_size(damaged) / kPage;
    const uint64_t keep = pages / 2 + rng() % (pages / 2 - 1);
    ASSERT_EQ(truncate(damaged.c_str(), static_cast<off_t>(keep * kPage)), 0);
    const StoreCheck check =
        CheckDamaged(damaged, std::nullopt, "truncated to " + std::to_string(keep) + " of " +
                                                std::to_string(pages) + " pages, seed " + std::to_string(seed));
    EXPECT_FALSE(check.integrity.empty());
  }
}

TEST_F(DamagedStore, ACorruptRootPageLosesEveryChunkButKeepsTheRest) {
  std::mt19937 rng(7);
  const std::string damaged = Copy(0);
  std::string garbage(kPage, '\0');
  for (char& c : garbage) c = static_cast<char>(rng());
  garbage[0] = 0x00;
  WriteAt(damaged, (RootPageOfChunks(damaged) - 1) * kPage, garbage);
  const StoreCheck check = CheckDamaged(
      damaged, std::vector<IdRange>{{1, original_.events.size()}}, "root page");
  EXPECT_EQ(check.chunks_read, 0u);
}

TEST_F(DamagedStore, RecoveryNeverOverwritesAFile) {
  const std::string damaged = Copy(1);
  std::mt19937 rng(1);
  ASSERT_TRUE(CorruptChunkBytes(damaged, original_.chunks[3].first, rng));
  const std::string taken = dir_ / "taken.db";
  std::ofstream(taken) << "precious";
  auto recovery = RecoverStore(damaged, taken);
  ASSERT_FALSE(recovery.ok());
  EXPECT_NE(recovery.status().message().find(taken + " exists"), std::string::npos)
      << recovery.status().message();
  EXPECT_EQ(ReadFile(taken), "precious");
  // Nor is anything left behind beside it.
  for (const auto& entry : std::filesystem::directory_iterator(dir_.path())) {
    EXPECT_EQ(entry.path().string().find(".recovering-"), std::string::npos) << entry.path();
  }
}

TEST_F(DamagedStore, RecoveryKeepsSourceAndConsumerPositions) {
  {
    auto store = testing::OpenOrDie(WriterOptions(original_path_));
    ASSERT_NE(store, nullptr);
    std::vector<Event> none;
    ASSERT_TRUE(store->Append(none, SourcePosition{"lustre:fs-MDT0000", 77}).ok());
    ASSERT_TRUE(store->SetConsumerPosition("archiver", 1234).ok());
  }
  const std::string damaged = Copy(2);
  std::mt19937 rng(2);
  ASSERT_TRUE(CorruptChunkBytes(damaged, original_.chunks[5].first, rng));
  const std::string recovered = dir_ / "recovered.db";
  auto recovery = RecoverStore(damaged, recovered);
  ASSERT_TRUE(recovery.ok()) << recovery.status().message();
  EXPECT_TRUE(recovery.value().notes.empty());
  auto store = testing::OpenOrDie(WriterOptions(recovered));
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->Position("lustre:fs-MDT0000").value(), 77u);
  EXPECT_EQ(store->ConsumerPosition("archiver").value(), std::optional<uint64_t>(1234));
}

// The check a writer runs when it opens a store is bounded in time.
TEST(StartUpCheck, StopsAtItsDeadlineReportingWhatItReached) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  WriteStore(db, 3);
  StoreOptions options = ReaderOptions(db);
  auto opened = store::OpenStoreConnection(options);
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  store::CheckOptions check_options;
  check_options.quick = true;
  check_options.deadline = store::CheckClock::now() - 1s;  // already past: nothing is checked
  const StoreCheck check =
      store::CheckStoreConnection(opened.value().db, opened.value().has_crc, check_options);
  EXPECT_FALSE(check.complete);
  EXPECT_FALSE(check.integrity_done);
  EXPECT_EQ(check.chunks_read, 0u);
  EXPECT_TRUE(check.sound()) << "a check cut short reports no damage it did not reach";
  EXPECT_NE(FormatStoreCheck(check).find("the check stopped before its end"), std::string::npos);
}

TEST(StartUpCheck, SqlitesIntegrityCheckIsInterruptedAtTheDeadline) {
  // SQLite's integrity check is one VDBE instruction, which a progress handler cannot stop
  // (SQLite 3.40); the watchdog's sqlite3_interrupt() does. 64 MiB take SQLite far longer
  // than 20 ms to check on any machine.
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  WriteStore(db, 4);
  ASSERT_EQ(testing::SqlExec(db, "CREATE TABLE ballast(x BLOB);"
                                 "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
                                 "WHERE i < 16384) INSERT INTO ballast SELECT randomblob(4000) FROM n"),
            "");
  auto opened = store::OpenStoreConnection(ReaderOptions(db));
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  store::CheckOptions check_options;
  check_options.quick = true;
  check_options.deadline = store::CheckClock::now() + 20ms;
  const StoreCheck check =
      store::CheckStoreConnection(opened.value().db, opened.value().has_crc, check_options);
  EXPECT_FALSE(check.complete);
  EXPECT_FALSE(check.integrity_done);
  // The connection is usable afterwards.
  EXPECT_EQ(opened.value().db.QueryInt("SELECT count(*) FROM ballast", "count").value(), 16384);
}

TEST(StartUpCheck, AWriterWithTheCheckOffOpensADamagedStore) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  const Original o = WriteStore(db, 5);
  std::mt19937 rng(5);
  ASSERT_TRUE(CorruptChunkBytes(db, o.chunks[1].first, rng));
  ASSERT_FALSE(EventStore::Open(WriterOptions(db)).ok());
  StoreOptions unchecked = WriterOptions(db);
  unchecked.open_check_limit = 0ms;
  auto store = EventStore::Open(unchecked);
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto batch = testing::MakeBatch(2);
  ASSERT_TRUE(store.value()->Append(batch).ok());
  EXPECT_EQ(batch[0].id, o.events.size() + 1);
}

}  // namespace
}  // namespace fathom

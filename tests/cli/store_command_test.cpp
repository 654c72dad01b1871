// The store's damage and read-only media end to end, through the real binary: `fathom store
// verify|recover`, `fathom events` around damage and on a recovered store, `fathom watch`
// refusing a damaged store, and both commands on a real read-only mount.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "fathom/store.h"
#include "store/store_test_util.h"
#include "support/read_only_mount.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom {
namespace {

using namespace std::chrono_literals;
using testing::FathomBinary;
using testing::RunResult;

using testing::Lines;

RunResult Fathom(std::vector<std::string> args) {
  args.insert(args.begin(), FathomBinary());
  return testing::Run(args, 60s);
}

// 10,000 events (/watched/f0 .. f9999) in chunks of 4,096: ids 1..4096, 4097..8192, 8193..10000.
void WriteStore(const std::string& db) {
  auto store = testing::OpenOrDie(testing::WriterOptions(db));
  ASSERT_NE(store, nullptr);
  auto batch = testing::MakeBatch(10'000);
  ASSERT_TRUE(store->Append(batch).ok());
}

// Changes a byte in the middle of the chunk holding ids 4097..8192 (its checksum then fails).
void DamageTheMiddleChunk(const std::string& db) {
  ASSERT_EQ(testing::SqlExec(db, "UPDATE chunks SET data = substr(data, 1, 99) || "
                                 "CASE WHEN substr(data, 100, 1) = x'00' THEN x'01' ELSE x'00' END "
                                 "|| substr(data, 101) WHERE first_id = 4097"),
            "");
}

// `fathom events --store DB --format inotify` lines for ids in [first, last] of WriteStore's.
std::vector<std::string> ExpectedLines(uint64_t first, uint64_t last) {
  std::vector<std::string> lines;
  for (uint64_t id = first; id <= last; ++id) {
    lines.push_back("/watched CREATE /f" + std::to_string(id - 1));
  }
  return lines;
}

class StoreCommand : public ::testing::Test {
 protected:
  void SetUp() override { WriteStore(db_); }
  testing::TempDir dir_;
  std::string db_ = dir_ / "events.db";
};

TEST_F(StoreCommand, VerifyOfASoundStoreExitsZero) {
  auto r = Fathom({"store", "verify", db_});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Lines(r.out), (std::vector<std::string>{
                              "event store " + db_,
                              "  held ids:        1..10000 (10000 ids)",
                              "  integrity check: ok",
                              "  chunks:          3 sound (10000 events held)",
                              "  lost ids:        none",
                              "verdict: sound",
                          }));
}

TEST_F(StoreCommand, VerifyOfADamagedStoreExitsOneAndSaysWhatIsLost) {
  DamageTheMiddleChunk(db_);
  auto r = Fathom({"store", "verify", db_});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(Lines(r.out),
            (std::vector<std::string>{
                "event store " + db_,
                "  held ids:        1..10000 (10000 ids)",
                "  integrity check: ok",
                "  chunks:          2 sound (5904 events held), 1 damaged:",
                "      ids 4097..8192: checksum mismatch: its bytes changed after they were stored",
                "  lost ids:        4097..8192 (4096 events)",
                "verdict: damaged; `fathom store recover " + db_ +
                    " --to NEW` copies every readable event (5904) into a new store, keeping "
                    "their ids",
            }));
}

TEST_F(StoreCommand, RecoverCopiesTheRestAndEventsPassesTheLostIdsSayingSo) {
  DamageTheMiddleChunk(db_);
  const std::string recovered = dir_ / "recovered.db";
  auto r = Fathom({"store", "recover", db_, "--to", recovered});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = Lines(r.out);
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[lines.size() - 2], "recovered into " + recovered + ": 5904 events in 2 chunks, ids kept");
  EXPECT_EQ(lines.back(),
            "lost ids: 4097..8192 (recorded in the new store; `fathom events` reports them as it "
            "passes)");

  r = Fathom({"events", "--store", recovered});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> expected = ExpectedLines(1, 4096);
  const auto after = ExpectedLines(8193, 10000);
  expected.insert(expected.end(), after.begin(), after.end());
  EXPECT_EQ(Lines(r.out), expected);
  EXPECT_NE(r.err.find("events 4097..8192 were lost: damaged in the store this one was recovered "
                       "from"),
            std::string::npos)
      << r.err;

  r = Fathom({"store", "verify", recovered});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("lost before:     4097..8192"), std::string::npos) << r.out;

  // Never over an existing store.
  r = Fathom({"store", "recover", db_, "--to", recovered});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(recovered + " exists"), std::string::npos) << r.err;
}

TEST_F(StoreCommand, EventsSkipsDamageBeforeTheRequestedRangeAndStopsAtDamageInIt) {
  DamageTheMiddleChunk(db_);
  auto r = Fathom({"events", "--store", db_, "--since", "8192"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Lines(r.out), ExpectedLines(8193, 10000));

  r = Fathom({"events", "--store", db_, "--since", "5000"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("the chunk of ids 4097..8192 is damaged (checksum mismatch"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("`fathom store recover " + db_ + " --to NEW`"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("a replay after id 8192 goes on past it"), std::string::npos) << r.err;

  r = Fathom({"events", "--store", db_});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(Lines(r.out), ExpectedLines(1, 4096)) << "what comes before the damage is printed";
}

TEST_F(StoreCommand, WatchRefusesADamagedStore) {
  DamageTheMiddleChunk(db_);
  testing::TempDir watched;
  auto r = Fathom({"watch", watched.path(), "--store", db_, "-t", "1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("fathom watch: event store " + db_ +
                       " is damaged, so nothing is appended to it: the chunk of ids 4097..8192 "
                       "is damaged: checksum mismatch"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("`fathom store verify " + db_ + "`"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("`fathom store recover " + db_ + " --to NEW`"), std::string::npos) << r.err;
  EXPECT_EQ(testing::SqlColumn(db_, "SELECT value FROM meta WHERE key = 'last_id'"),
            std::vector<std::string>{"10000"});
}

TEST_F(StoreCommand, BadUsageExitsTwo) {
  EXPECT_EQ(Fathom({"store"}).exit_code, 2);
  EXPECT_EQ(Fathom({"store", "verify"}).exit_code, 2);
  EXPECT_EQ(Fathom({"store", "recover", db_}).exit_code, 2) << "--to is required";
  auto r = Fathom({"store", "verify", dir_ / "absent.db"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no event store at"), std::string::npos) << r.err;
}

// A real read-only mount of the directory holding a store.
class ReadOnlyStore : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(mount_.error(), 0) << "mounting a read-only view failed (tests run as root)";
  }
  testing::TempDir rw_;
  testing::TempDir other_;
  std::string view_ = other_ / "ro";
  testing::ReadOnlyMount mount_{rw_.path(), view_};
};

TEST_F(ReadOnlyStore, EventsReplaysAStoreOnReadOnlyMedia) {
  WriteStore(rw_ / "events.db");
  auto r = Fathom({"events", "--store", view_ + "/events.db"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Lines(r.out), ExpectedLines(1, 10'000));
  r = Fathom({"store", "verify", view_ + "/events.db"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST_F(ReadOnlyStore, WatchOnReadOnlyMediaFailsNamingTheReadOnlyFileSystem) {
  WriteStore(rw_ / "events.db");
  testing::TempDir watched;
  for (const std::string name : {"events.db", "new.db"}) {
    auto r = Fathom({"watch", watched.path(), "--store", view_ + "/" + name, "-t", "1"});
    EXPECT_EQ(r.exit_code, 1) << name;
    EXPECT_NE(r.err.find(view_ + "/" + name + ": the file system holding it is mounted read-only "
                                             "(Read-only file system)"),
              std::string::npos)
        << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(rw_ / "new.db"));
}

}  // namespace
}  // namespace fathom

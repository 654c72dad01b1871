// RecordBatch: records as liblustreapi hands them out, malformed ones skipped but counted
// and passed over by the position.
#include "sources/lustre/record_batch.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "lustre/changelog_binary.h"

namespace fathom::lustre_source {
namespace {

using lustre::ChangelogRecord;

ChangelogRecord Sample(uint64_t index, uint32_t type = CL_CREATE) {
  ChangelogRecord r;
  r.index = index;
  r.type = type;
  r.time_ns = 1700000000123456789ull;
  r.tfid = {0x200000400, 2, 0};
  r.pfid = lustre::kRootFid;
  r.name = "hello.txt";
  r.has_jobid = true;
  r.jobid = "touch.0";
  r.has_extra_flags = true;
  r.extra_flags = CLFE_UIDGID | CLFE_NID | CLFE_OPEN | CLFE_XATTR;
  r.nid = "0@lo";
  return r;
}

// The packed record, in storage aligned for a struct changelog_rec.
struct Packed {
  explicit Packed(const std::string& bytes) : words((bytes.size() + 7) / 8) {
    std::memcpy(words.data(), bytes.data(), bytes.size());
  }
  changelog_rec* rec() { return reinterpret_cast<changelog_rec*>(words.data()); }
  char* bytes() { return reinterpret_cast<char*>(words.data()); }
  std::vector<uint64_t> words;
};

TEST(RecordBatchTest, UnpacksWellFormedRecords) {
  RecordBatch batch;
  Packed a(lustre::PackRecord(Sample(7)));
  Packed b(lustre::PackRecord(Sample(8, CL_MKDIR)));
  EXPECT_TRUE(batch.Add(a.rec()));
  EXPECT_TRUE(batch.Add(b.rec()));
  ASSERT_EQ(batch.records().size(), 2u);
  EXPECT_EQ(batch.records()[0], Sample(7));
  EXPECT_EQ(batch.records()[1].type, static_cast<uint32_t>(CL_MKDIR));
  EXPECT_EQ(batch.last_index(), 8u);
  EXPECT_EQ(batch.malformed(), 0u);
}

TEST(RecordBatchTest, MalformedRecordsAreSkippedCountedAndPassedOver) {
  RecordBatch batch;
  Packed good(lustre::PackRecord(Sample(10)));
  // Unknown extra-flag bits.
  Packed bad_flags(lustre::PackRecord(Sample(11)));
  const size_t ef_at = lustre::RecordOffset(CLF_VERSION | CLF_JOBID, 0);
  uint64_t ef = 0;
  std::memcpy(&ef, bad_flags.bytes() + ef_at, sizeof ef);
  ef |= 0x400;
  std::memcpy(bad_flags.bytes() + ef_at, &ef, sizeof ef);
  // A name with a NUL inside, in a record that is not a rename.
  ChangelogRecord nul = Sample(12);
  nul.name = std::string("ab\0cd", 5);
  Packed bad_name(lustre::PackRecord(nul));
  // Nanoseconds out of range in cr_time.
  Packed bad_time(lustre::PackRecord(Sample(13)));
  bad_time.rec()->cr_time |= (1u << 30) - 1;
  Packed last(lustre::PackRecord(Sample(14)));

  EXPECT_TRUE(batch.Add(good.rec()));
  EXPECT_FALSE(batch.Add(bad_flags.rec()));
  EXPECT_FALSE(batch.Add(bad_name.rec()));
  EXPECT_FALSE(batch.Add(bad_time.rec()));
  EXPECT_TRUE(batch.Add(last.rec()));
  EXPECT_EQ(batch.records().size(), 2u);
  EXPECT_EQ(batch.added(), 5u);
  EXPECT_EQ(batch.malformed(), 3u);
  EXPECT_EQ(batch.last_index(), 14u);

  // The position passes a malformed record even when it ends the batch.
  batch.Clear();
  EXPECT_FALSE(batch.Add(bad_time.rec()));
  EXPECT_EQ(batch.last_index(), 13u);
  EXPECT_TRUE(batch.records().empty());
  EXPECT_EQ(batch.malformed(), 1u);
}

}  // namespace
}  // namespace fathom::lustre_source

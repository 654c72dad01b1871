// The HDF5 trace reader on damaged input: a trace cut short, a damaged frame, another format
// version, something that is no trace. Each is a clear message with the file and the offset,
// and what can be read still is. The traces are real: known_ops under libfathom-h5.so.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "h5prov/h5_format.h"
#include "h5prov/h5_run.h"

namespace fathom::h5prov {
namespace {

using namespace testing;
namespace f = format;

class TraceReader : public ::testing::Test {
 protected:
  void SetUp() override {
    auto run = RunTraced(dir_ / "traces", {Workload("known_ops"), dir_ / "known.h5"});
    ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
    auto files = FindTraceFiles(dir_ / "traces");
    ASSERT_TRUE(files.ok() && files->size() == 1u);
    std::ifstream in(files->front(), std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    bytes_ = bytes.str();
    auto whole = DecodeTrace(bytes_, "known.fh5");
    ASSERT_TRUE(whole.ok());
    whole_ = *whole;
    ASSERT_TRUE(whole_.problems.empty());
    // The frames' offsets: the process record's, the calls', the end record's.
    for (size_t at = f::kFileHeaderSize; at < bytes_.size();) {
      frames_.push_back(at);
      at += f::kFrameHeaderSize + f::GetU32(reinterpret_cast<const uint8_t*>(bytes_.data()) + at + 4);
    }
    ASSERT_EQ(frames_.size(), 3u);
  }

  fathom::testing::TempDir dir_;
  std::string bytes_;
  Trace whole_;
  std::vector<size_t> frames_;
};

TEST_F(TraceReader, TraceCutInsideAFrameKeepsTheFramesBeforeIt) {
  const size_t cut = frames_[2] + 5;
  auto trace = DecodeTrace(bytes_.substr(0, cut), "cut.fh5");
  ASSERT_TRUE(trace.ok());
  EXPECT_EQ(trace->calls.size(), whole_.calls.size());
  EXPECT_EQ(trace->objects.size(), whole_.objects.size());
  EXPECT_FALSE(trace->ended);
  ASSERT_EQ(trace->problems.size(), 1u);
  EXPECT_EQ(trace->problems[0], "cut.fh5 ends inside the frame at offset " + std::to_string(frames_[2]) +
                                    " (the process was killed while writing); the rest of the file is not read");
}

TEST_F(TraceReader, DamagedFrameIsSkippedAndTheFramesAfterItAreRead) {
  std::string damaged = bytes_;
  damaged[frames_[1] + f::kFrameHeaderSize + 3] ^= 0x40;  // inside the calls' payload: its CRC fails
  auto trace = DecodeTrace(damaged, "damaged.fh5");
  ASSERT_TRUE(trace.ok());
  EXPECT_TRUE(trace->has_process);
  EXPECT_TRUE(trace->calls.empty());
  EXPECT_TRUE(trace->ended);  // the end record, after the damage
  EXPECT_EQ(trace->end_calls, 18u);
  ASSERT_EQ(trace->problems.size(), 1u);
  EXPECT_EQ(trace->problems[0], "bytes " + std::to_string(frames_[1]) + " to " + std::to_string(frames_[2]) +
                                    " of damaged.fh5 are not a frame that checks (damaged) and are skipped");
}

TEST_F(TraceReader, OtherFormatVersionIsAnErrorNamingTheFile) {
  std::string other = bytes_;
  other[8] = 2;
  auto trace = DecodeTrace(other, "v2.fh5");
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.status().message(),
            "v2.fh5 is an HDF5 trace of format version 2, which this fathom does not read (it reads version 1); "
            "read it with the fathom that wrote it");
}

TEST_F(TraceReader, FileThatIsNoTraceIsAnError) {
  auto trace = DecodeTrace("FIOTRACE\x01\0\0\0\0\0\0\0", "io.fio");
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.status().message(),
            "io.fio is not a fathom HDF5 trace (no FH5TRACE header); traces are the *.fh5 files `fathom h5 run` "
            "writes");
}

TEST_F(TraceReader, DumpPrintsEveryRecordAsJsonLines) {
  auto run = fathom::testing::Run({fathom::testing::FathomBinary(), "h5", "dump", dir_ / "traces"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto lines = fathom::testing::Lines(run.out);
  // process, 7 objects, 18 calls, 7 closed, end
  ASSERT_EQ(lines.size(), 1u + 7u + 18u + 7u + 1u);
  EXPECT_EQ(lines[0].rfind("{\"type\":\"process\"", 0), 0u);
  EXPECT_NE(lines[11].find("\"op\":\"H5Dwrite\""), std::string::npos) << lines[11];
  EXPECT_NE(lines[11].find("\"mem_bytes\":24,\"file_bytes\":24,\"selection\":{\"kind\":\"regular\",\"points\":6,"
                           "\"start\":[1,2],\"stride\":[1,1],\"count\":[2,3],\"block\":[1,1]}"),
            std::string::npos)
      << lines[11];
  EXPECT_EQ(lines.back(), "{\"type\":\"end\",\"file\":\"" + FindTraceFiles(dir_ / "traces")->front() +
                              "\",\"ended\":true,\"calls\":18,\"dropped\":0,\"open_at_exit\":0}");
}

}  // namespace
}  // namespace fathom::h5prov

// What of a growing trace file may be sent: the header and whole frames whose CRC checks, and
// everything once the run is over.
#include "iotrace/trace_tail.h"

#include <gtest/gtest.h>

#include "iotrace/transport/trace_files.h"
#include "support/temp_dir.h"

namespace fathom::iotrace::transport {
namespace {

using namespace iotrace::testing;

uint64_t Sendable(TraceTail& tail, bool run_over) {
  auto end = tail.SafeEnd(run_over);
  EXPECT_TRUE(end.ok()) << end.status().message();
  return end.ok() ? *end : ~uint64_t{0};
}

class TraceTailTest : public ::testing::Test {
 protected:
  fathom::testing::TempDir dir_;
  const std::string path_ = dir_ / "host.1.2.fio";
};

TEST_F(TraceTailTest, FileGrownFrameByFrameIsSendableUpToItsLastWholeFrame) {
  TraceTail tail(path_, IoTraceKind());
  Append(path_, "");
  EXPECT_EQ(Sendable(tail, false), 0u);
  Append(path_, FileHeader().substr(0, 10));
  EXPECT_EQ(Sendable(tail, false), 0u);
  Append(path_, FileHeader().substr(10));
  EXPECT_EQ(Sendable(tail, false), 16u);

  const std::string first = Frame(std::string(100, 'a'));  // 112 bytes
  Append(path_, first.substr(0, 7));                       // half a frame header
  EXPECT_EQ(Sendable(tail, false), 16u);
  Append(path_, first.substr(7, 50));  // the header and part of the payload
  EXPECT_EQ(Sendable(tail, false), 16u);
  Append(path_, first.substr(57));
  EXPECT_EQ(Sendable(tail, false), 128u);

  const std::string second = Frame(std::string(3000, 'b'));  // 3012 bytes
  Append(path_, second.substr(0, 1500));
  EXPECT_EQ(Sendable(tail, false), 128u);
  EXPECT_EQ(Sendable(tail, true), 1628u);  // the run is over: everything, the cut frame too
  Append(path_, second.substr(1500));
  EXPECT_EQ(Sendable(tail, false), 3140u);
  EXPECT_EQ(Sendable(tail, true), 3140u);
}

TEST_F(TraceTailTest, FrameWithABadCrcHoldsBackItAndWhatFollowsUntilTheRunIsOver) {
  TraceTail tail(path_, IoTraceKind());
  Append(path_, FileHeader() + Frame("first"));  // 16 + 17
  EXPECT_EQ(Sendable(tail, false), 33u);
  Append(path_, Frame("damaged", true) + Frame("after it"));  // 19 + 20
  EXPECT_EQ(Sendable(tail, false), 33u);
  Append(path_, Frame("more"));
  EXPECT_EQ(Sendable(tail, false), 33u);
  EXPECT_EQ(Sendable(tail, true), 33u + 19 + 20 + 16);
}

TEST_F(TraceTailTest, FrameLongerThanTheFormatAllowsIsHeldBack) {
  TraceTail tail(path_, IoTraceKind());
  std::string frame = Frame("x");
  format::PutU32(reinterpret_cast<uint8_t*>(frame.data()) + 4, format::kMaxFramePayload + 1);
  Append(path_, FileHeader() + frame);
  EXPECT_EQ(Sendable(tail, false), 16u);
  EXPECT_EQ(Sendable(tail, true), 16u + 13);
}

TEST_F(TraceTailTest, FileThatIsNotATraceIsSentOnlyWhenTheRunIsOver) {
  TraceTail tail(path_, IoTraceKind());
  Append(path_, std::string("NOTATRACEFILE...") + Frame("frame"));
  EXPECT_EQ(Sendable(tail, false), 0u);
  EXPECT_EQ(Sendable(tail, true), 16u + 17);
}

TEST_F(TraceTailTest, MissingFileIsAnErrorNamingIt) {
  TraceTail tail(path_, IoTraceKind());
  auto end = tail.SafeEnd(false);
  ASSERT_FALSE(end.ok());
  EXPECT_EQ(end.status().message(),
            "cannot open trace file " + path_ + ": No such file or directory");
}

}  // namespace
}  // namespace fathom::iotrace::transport

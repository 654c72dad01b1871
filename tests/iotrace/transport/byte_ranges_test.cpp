// The byte ranges a stream holds of a file: merged, and where the first byte missing lies.
#include "iotrace/transport/byte_ranges.h"

#include <gtest/gtest.h>

#include <limits>

namespace fathom::iotrace::transport {
namespace {

TEST(ByteRanges, TouchingAndOverlappingRangesMerge) {
  ByteRanges r;
  r.Add(10, 20);
  r.Add(30, 40);
  r.Add(20, 25);  // touches the first
  EXPECT_EQ(r.bytes(), 25u);
  EXPECT_EQ(r.FirstMissing(10), 25u);
  r.Add(22, 35);  // bridges both
  EXPECT_EQ(r.bytes(), 30u);
  EXPECT_EQ(r.FirstMissing(10), 40u);
  r.Add(5, 5);  // empty
  EXPECT_EQ(r.bytes(), 30u);
  EXPECT_EQ(r.end(), 40u);
}

TEST(ByteRanges, FirstMissingAndNextHeldSayWhatToSendNext) {
  ByteRanges r;
  EXPECT_EQ(r.FirstMissing(0), 0u);
  EXPECT_EQ(r.NextHeld(0), std::numeric_limits<uint64_t>::max());
  r.Add(0, 100);
  r.Add(300, 400);
  EXPECT_EQ(r.FirstMissing(0), 100u);
  EXPECT_EQ(r.NextHeld(100), 300u);
  EXPECT_EQ(r.FirstMissing(350), 400u);
  EXPECT_EQ(r.FirstMissing(200), 200u);
  EXPECT_EQ(r.NextHeld(300), std::numeric_limits<uint64_t>::max());
}

TEST(ByteRanges, FirstHoleIsTheFirstGapFromZero) {
  ByteRanges r;
  EXPECT_FALSE(r.FirstHole().has_value());
  r.Add(0, 10);
  EXPECT_FALSE(r.FirstHole().has_value());
  r.Add(20, 30);
  EXPECT_EQ(r.FirstHole(), std::make_pair(uint64_t{10}, uint64_t{20}));
  ByteRanges late;
  late.Add(5, 8);
  EXPECT_EQ(late.FirstHole(), std::make_pair(uint64_t{0}, uint64_t{5}));
}

}  // namespace
}  // namespace fathom::iotrace::transport

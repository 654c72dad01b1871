// Sizes, durations and counts as the condition language writes them.
#include "condition/units.h"

#include <gtest/gtest.h>

namespace fathom::condition {
namespace {

constexpr int64_t kS = 1000000000;

TEST(UnitsTest, SizesArePowersOf1024InAnyCase) {
  EXPECT_EQ(ParseSize("0"), 0);
  EXPECT_EQ(ParseSize("512"), 512);
  EXPECT_EQ(ParseSize("12B"), 12);
  EXPECT_EQ(ParseSize("1K"), 1024);
  EXPECT_EQ(ParseSize("1kb"), 1024);
  EXPECT_EQ(ParseSize("3M"), 3 * 1048576);
  EXPECT_EQ(ParseSize("1GB"), int64_t{1} << 30);
  EXPECT_EQ(ParseSize("2tb"), int64_t{2} << 40);
  EXPECT_EQ(ParseSize("1P"), int64_t{1} << 50);
  EXPECT_EQ(ParseSize("7E"), int64_t{7} << 60);
  EXPECT_EQ(ParseSize("8E"), std::nullopt);  // 2^63: past int64
  EXPECT_EQ(ParseSize("1.5G"), std::nullopt);
  EXPECT_EQ(ParseSize("-1"), std::nullopt);
  EXPECT_EQ(ParseSize("G"), std::nullopt);
  EXPECT_EQ(ParseSize("1Q"), std::nullopt);
  EXPECT_EQ(ParseSize("99999999999999999999"), std::nullopt);
}

TEST(UnitsTest, DurationsAndTheirUnits) {
  EXPECT_EQ(ParseDuration("45"), 45 * kS);
  EXPECT_EQ(ParseDuration("45s"), 45 * kS);
  EXPECT_EQ(ParseDuration("2sec"), 2 * kS);
  EXPECT_EQ(ParseDuration("250ms"), kS / 4);
  EXPECT_EQ(ParseDuration("10MS"), kS / 100);
  EXPECT_EQ(ParseDuration("15min"), 900 * kS);
  EXPECT_EQ(ParseDuration("15m"), 900 * kS);
  EXPECT_EQ(ParseDuration("6h"), 6 * 3600 * kS);
  EXPECT_EQ(ParseDuration("30d"), 30 * 86400 * kS);
  EXPECT_EQ(ParseDuration("2W"), 14 * 86400 * kS);
  EXPECT_EQ(ParseDuration("1y"), 365 * 86400 * kS);
  EXPECT_EQ(ParseDuration("1year"), 365 * 86400 * kS);
  EXPECT_EQ(ParseDuration("200y"), int64_t{200} * 365 * 86400 * kS);
  EXPECT_EQ(ParseDuration("300y"), std::nullopt);  // past int64 nanoseconds
  EXPECT_EQ(ParseDuration("3 d"), std::nullopt);
  EXPECT_EQ(ParseDuration("1fortnight"), std::nullopt);
}

TEST(UnitsTest, CountsAreBareNumbers) {
  EXPECT_EQ(ParseCount("0"), 0);
  EXPECT_EQ(ParseCount("42"), 42);
  EXPECT_EQ(ParseCount("42K"), std::nullopt);
  EXPECT_EQ(ParseCount(""), std::nullopt);
}

}  // namespace
}  // namespace fathom::condition

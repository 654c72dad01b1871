// CRC-32C of chunks: the standard check value, and the hardware and table versions agreeing
// on every length and alignment.
#include "store/checksum.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace fathom::store {
namespace {

TEST(Checksum, IsCrc32c) {
  EXPECT_EQ(Crc32c("123456789"), 0xE3069283u);  // the CRC-32C check value
  EXPECT_EQ(Crc32cPortable("123456789"), 0xE3069283u);
  EXPECT_EQ(Crc32c(""), 0u);
  EXPECT_EQ(Crc32c(std::string(32, '\0')), 0x8A9136AAu);  // RFC 3720 B.4: 32 bytes of zeros
  EXPECT_EQ(Crc32c(std::string(32, '\xff')), 0x62A8AB43u);  // 32 bytes of 0xff
}

TEST(Checksum, HardwareAndTableAgreeOnEveryLengthAndAlignment) {
  std::mt19937 rng(42);
  std::string bytes(5000, '\0');
  for (char& c : bytes) c = static_cast<char>(rng());
  for (size_t offset = 0; offset < 9; ++offset) {
    for (size_t length : {0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000, 4096, 4990}) {
      const std::string_view s(bytes.data() + offset, length);
      EXPECT_EQ(Crc32c(s), Crc32cPortable(s)) << "offset " << offset << " length " << length;
    }
  }
}

TEST(Checksum, ChangesWithAnySingleFlippedBit) {
  std::string bytes(300, 'a');
  const uint32_t sound = Crc32c(bytes);
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string flipped = bytes;
      flipped[i] = static_cast<char>(flipped[i] ^ (1 << bit));
      ASSERT_NE(Crc32c(flipped), sound) << "byte " << i << " bit " << bit;
    }
  }
}

}  // namespace
}  // namespace fathom::store

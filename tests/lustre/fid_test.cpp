// FIDs: Lustre's DFID text form and struct lu_fid.
#include "lustre/fid.h"

#include <gtest/gtest.h>

#include <cstring>
#include <unordered_set>

namespace fathom::lustre {
namespace {

TEST(Fid, FormatPrintsLikeLustreDfid) {
  EXPECT_EQ(FormatFid(kRootFid), "[0x200000007:0x1:0x0]");
  EXPECT_EQ(FormatFid(Fid{0x300005716, 0x626c, 0}), "[0x300005716:0x626c:0x0]");
  EXPECT_EQ(FormatFid(Fid{~uint64_t{0}, ~uint32_t{0}, ~uint32_t{0}}),
            "[0xffffffffffffffff:0xffffffff:0xffffffff]");
  EXPECT_EQ(FormatFid(Fid{~uint64_t{0}, ~uint32_t{0}, ~uint32_t{0}}).size(), kMaxFidText);
}

TEST(Fid, ZeroSequencePrintsWithoutPrefixAsPrintfHashDoes) {
  EXPECT_EQ(FormatFid(Fid{}), "[0:0x0:0x0]");
  EXPECT_EQ(FormatFid(Fid{0, 5, 1}), "[0:0x5:0x1]");
}

TEST(Fid, ParseAcceptsWithAndWithoutBrackets) {
  auto a = ParseFid("[0x200000007:0x1:0x0]");
  auto b = ParseFid("0x200000007:0x1:0x0");
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(*a, kRootFid);
  EXPECT_EQ(*b, kRootFid);
  auto upper = ParseFid("[0X2000000AB:0XFF:0x0]");
  ASSERT_TRUE(upper.ok());
  EXPECT_EQ(*upper, (Fid{0x2000000ab, 0xff, 0}));
  auto zero = ParseFid("[0:0x0:0x0]");
  ASSERT_TRUE(zero.ok());
  EXPECT_TRUE(zero->zero());
}

TEST(Fid, ParseRoundTripsFormattedFids) {
  for (Fid f : {Fid{}, kRootFid, Fid{1, 2, 3}, Fid{0x300005716, 0x17a, 0},
                Fid{~uint64_t{0}, ~uint32_t{0}, ~uint32_t{0}}, Fid{0, 0, 7}}) {
    auto parsed = ParseFid(FormatFid(f));
    ASSERT_TRUE(parsed.ok()) << FormatFid(f) << ": " << parsed.status().message();
    EXPECT_EQ(*parsed, f);
  }
}

TEST(Fid, ParseRejectsMalformedTextAndNamesIt) {
  for (const char* bad : {"",
                          "[]",
                          "[0x1:0x2]",
                          "0x1:0x2:0x3]",
                          "[0x1:0x2:0x3",
                          "[0x1:0x2:0x3] ",
                          " [0x1:0x2:0x3]",
                          "[0x10000000000000000:0x1:0x0]",
                          "[0x1:0x100000000:0x0]",
                          "[0x1:0x1:0x100000000]",
                          "[0x1:0x1:0x0:0x0]",
                          "[1:0x1:0x0]",
                          "[0x1:1:0x0]",
                          "[0xg:0x1:0x0]",
                          "[0x:0x1:0x0]",
                          "[-0x1:0x1:0x0]",
                          "[0x1::0x0]",
                          "[0x1:0x1:]",
                          "[[0x1:0x1:0x0]]",
                          "x"}) {
    auto r = ParseFid(bad);
    EXPECT_FALSE(r.ok()) << "accepted '" << bad << "'";
    if (!r.ok()) {
      EXPECT_NE(r.status().message().find("'" + std::string(bad) + "'"), std::string::npos)
          << r.status().message();
    }
  }
}

TEST(Fid, ZeroIgnoresVersionAsLustreFidIsZeroDoes) {
  EXPECT_TRUE((Fid{0, 0, 5}).zero());
  EXPECT_FALSE((Fid{0, 1, 0}).zero());
  EXPECT_FALSE((Fid{1, 0, 0}).zero());
}

TEST(Fid, AbiConversionKeepsEveryField) {
  Fid f{0x200000401, 0x1234, 0x7};
  lu_fid abi = ToAbi(f);
  EXPECT_EQ(abi.f_seq, 0x200000401u);
  EXPECT_EQ(abi.f_oid, 0x1234u);
  EXPECT_EQ(abi.f_ver, 0x7u);
  EXPECT_EQ(FromAbi(abi), f);
  unsigned char bytes[sizeof(lu_fid)];
  std::memcpy(bytes, &abi, sizeof bytes);
  EXPECT_EQ(bytes[0], 0x01);   // f_seq first, little-endian
  EXPECT_EQ(bytes[8], 0x34);   // then f_oid
  EXPECT_EQ(bytes[12], 0x07);  // then f_ver
}

TEST(Fid, HashSpreadsNeighbouringFids) {
  std::unordered_set<size_t> hashes;
  for (uint32_t oid = 0; oid < 1000; ++oid) hashes.insert(FidHash{}(Fid{0x200000400, oid, 0}));
  for (uint64_t seq = 0; seq < 1000; ++seq) hashes.insert(FidHash{}(Fid{seq, 1, 0}));
  EXPECT_GT(hashes.size(), 1990u);
}

}  // namespace
}  // namespace fathom::lustre

// NIDs: libcfs's text form, lnet_nid_t and struct lnet_nid.
#include "lustre/nid.h"

#include <gtest/gtest.h>

namespace fathom::lustre {
namespace {

uint64_t Nid4(std::string_view text) {
  auto r = ParseNid4(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().message();
  return r.ok() ? *r : 0;
}

TEST(Nid, LoopbackIsLnetNidLo0) {
  EXPECT_EQ(kNidLo0, 0x0009000000000000u);  // LNET_MKNID(LNET_MKNET(LOLND=9, 0), 0)
  EXPECT_EQ(Nid4("0@lo"), kNidLo0);
  EXPECT_EQ(FormatNid4(kNidLo0), "0@lo");
}

TEST(Nid, TcpEncodesSocklndNetworkAndIpv4Address) {
  EXPECT_EQ(Nid4("10.0.0.1@tcp"), 0x000200000a000001u);
  EXPECT_EQ(Nid4("192.168.1.2@tcp3"), (uint64_t{2 << 16 | 3} << 32) | 0xc0a80102u);
  EXPECT_EQ(Nid4("10.0.0.1@tcp0"), Nid4("10.0.0.1@tcp"));
  EXPECT_EQ(FormatNid4(0x000200000a000001u), "10.0.0.1@tcp");
  EXPECT_EQ(FormatNid4((uint64_t{2 << 16 | 3} << 32) | 0xc0a80102u), "192.168.1.2@tcp3");
}

TEST(Nid, O2ibUsesLndFive) {
  EXPECT_EQ(Nid4("10.1.2.3@o2ib"), (uint64_t{5} << 48) | 0x0a010203u);
  EXPECT_EQ(Nid4("10.1.2.3@o2ib1"), (uint64_t{5 << 16 | 1} << 32) | 0x0a010203u);
  EXPECT_EQ(FormatNid4((uint64_t{5 << 16 | 12} << 32) | 0x0a010203u), "10.1.2.3@o2ib12");
}

TEST(Nid, NumericNetworksPrintDecimalAddresses) {
  EXPECT_EQ(Nid4("12@gni"), (uint64_t{13} << 48) | 12);
  EXPECT_EQ(Nid4("0x10@kfi2"), (uint64_t{16 << 16 | 2} << 32) | 16);
  EXPECT_EQ(FormatNid4((uint64_t{16 << 16 | 2} << 32) | 16), "16@kfi2");
}

TEST(Nid, UnknownLndAndAnyPrintAsLibcfsDoes) {
  EXPECT_EQ(FormatNid4(0), "0@<0:0>");
  EXPECT_EQ(FormatNid4((uint64_t{7 << 16 | 1} << 32) | 0xab), "ab@<7:1>");
  EXPECT_EQ(Nid4("ab@<7:1>"), (uint64_t{7 << 16 | 1} << 32) | 0xab);
  EXPECT_EQ(FormatNid4(kNidAny), "<?>");
  EXPECT_EQ(Nid4("<?>"), kNidAny);
  // LND 0xff is ANY whatever the rest says (lnet_nid_to_nid4).
  EXPECT_EQ(FormatNid4(0x00ff00010000000full), "f@<255:1>");
  EXPECT_EQ(Nid4("f@<255:1>"), kNidAny);
}

TEST(Nid, AddressWithoutNetworkIsTcp0LikeLibcfsStr2nid) {
  EXPECT_EQ(Nid4("10.0.0.7"), Nid4("10.0.0.7@tcp"));
}

TEST(Nid, EveryFormattedNid4ParsesBack) {
  for (uint64_t n : std::initializer_list<uint64_t>{kNidLo0, kNidAny, 0, 0x000200000a000001ull,
                                                    0x0005ffffffffffffull, 0x0013000400000009ull,
                                                    0x0012000101020304ull}) {
    auto back = ParseNid4(FormatNid4(n));
    ASSERT_TRUE(back.ok()) << FormatNid4(n) << ": " << back.status().message();
    EXPECT_EQ(*back, n) << FormatNid4(n);
  }
}

TEST(Nid, ParseRejectsMalformedText) {
  for (const char* bad : {"", "@tcp", "1.2.3@tcp", "256.0.0.1@tcp", "1.2.3.4.5@tcp", "x@lo",
                          "1.2.3.4@ib", "1.2.3.4@tcp70000", "1.2.3.4@tcpx", "1.2.3.4@<1>",
                          "1.2.3.4@<300:1>", "fe80::1@o2ib", "1.2.3.4@tcp@tcp", "a.b.c.d@tcp"}) {
    auto r = ParseNid(bad);
    EXPECT_FALSE(r.ok()) << "accepted '" << bad << "'";
    if (!r.ok()) {
      EXPECT_NE(r.status().message().find(bad), std::string::npos);
    }
  }
}

TEST(Nid, Ipv6NidHasNoNid4Form) {
  auto nid = ParseNid("2001:db8::1@tcp");
  ASSERT_TRUE(nid.ok()) << nid.status().message();
  EXPECT_EQ(nid->addr_len, 16);
  EXPECT_FALSE(NidToNid4(*nid).has_value());
  EXPECT_FALSE(ParseNid4("2001:db8::1@tcp").ok());
  EXPECT_EQ(FormatNid(*nid), "2001:db8::1@tcp");
}

TEST(Nid, LnetNidBytesAreNetworkOrder) {
  auto nid = ParseNid("10.0.0.1@tcp2");
  ASSERT_TRUE(nid.ok());
  auto bytes = NidToLnetNid(*nid);
  const std::array<uint8_t, kLnetNidBytes> expected = {0, 2, 0, 2, 10, 0, 0, 1};
  EXPECT_EQ(bytes, expected);
  auto back = NidFromLnetNid(bytes);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(FormatNid(*back), "10.0.0.1@tcp2");

  auto v6 = ParseNid("2001:db8::5@efa");
  ASSERT_TRUE(v6.ok());
  auto v6bytes = NidToLnetNid(*v6);
  EXPECT_EQ(v6bytes[0], 12);  // nid_size: total bytes - 8
  EXPECT_EQ(v6bytes[1], 18);  // EFALND
  EXPECT_EQ(v6bytes[4], 0x20);
  EXPECT_EQ(v6bytes[19], 0x05);
  auto v6back = NidFromLnetNid(v6bytes);
  ASSERT_TRUE(v6back.ok());
  EXPECT_EQ(FormatNid(*v6back), "2001:db8::5@efa");
}

TEST(Nid, LnetNidBytesWithUnsupportedSizeAreRejected) {
  std::array<uint8_t, kLnetNidBytes> bytes{};
  bytes[0] = 4;  // 8-byte address
  bytes[1] = 2;
  EXPECT_FALSE(NidFromLnetNid(bytes).ok());
  bytes[0] = 12;
  bytes[1] = 5;  // o2ib has no IPv6 form
  EXPECT_FALSE(NidFromLnetNid(bytes).ok());
  bytes[1] = 0xff;  // LNET_ANY_NID, whatever the size
  auto any = NidFromLnetNid(bytes);
  ASSERT_TRUE(any.ok());
  EXPECT_EQ(FormatNid(*any), "<?>");
}

}  // namespace
}  // namespace fathom::lustre

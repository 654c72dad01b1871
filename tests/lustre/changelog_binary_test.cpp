// struct changelog_rec: Lustre's layout, pack/unpack round trips, hostile input.
#include "lustre/changelog_binary.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "lustre/nid.h"

namespace fathom::lustre {
namespace {

constexpr uint64_t kPayload = CLFE_UIDGID | CLFE_NID | CLFE_OPEN | CLFE_XATTR;

std::span<const std::byte> Bytes(const std::string& s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

template <typename T>
T At(const std::string& s, size_t off) {
  T v;
  std::memcpy(&v, s.data() + off, sizeof v);
  return v;
}

template <typename T>
void SetAt(std::string& s, size_t off, T v) {
  std::memcpy(s.data() + off, &v, sizeof v);
}

ChangelogRecord FullRename() {
  ChangelogRecord r;
  r.index = 11332887;
  r.type = CL_RENAME;
  r.flags = CLF_RENAME_LAST;
  r.prev = 11332880;
  r.time_ns = 1552084067ull * 1'000'000'000 + 416587265;
  r.tfid = {0x300005716, 0x17a, 0};
  r.pfid = {0x300005716, 0xe7, 0};
  r.name = "hi.txt";
  r.has_rename = true;
  r.sfid = {0x300005716, 0x626b, 0};
  r.spfid = {0x300005716, 0xe8, 0};
  r.sname = "hello.txt";
  r.has_jobid = true;
  r.jobid = "mv.0";
  r.has_extra_flags = true;
  r.extra_flags = kPayload;
  r.uid = 1000;
  r.gid = 100;
  r.nid = "10.0.0.1@tcp";
  r.open_flags = 0;
  r.xattr = "user.tag";
  return r;
}

TEST(ChangelogAbi, StructSizesAndOffsetsMatchLustreUserH) {
  EXPECT_EQ(sizeof(lu_fid), 16u);
  EXPECT_EQ(sizeof(changelog_rec), 64u);
  EXPECT_EQ(offsetof(changelog_rec, cr_namelen), 0u);
  EXPECT_EQ(offsetof(changelog_rec, cr_flags), 2u);
  EXPECT_EQ(offsetof(changelog_rec, cr_type), 4u);
  EXPECT_EQ(offsetof(changelog_rec, cr_index), 8u);
  EXPECT_EQ(offsetof(changelog_rec, cr_prev), 16u);
  EXPECT_EQ(offsetof(changelog_rec, cr_time), 24u);
  EXPECT_EQ(offsetof(changelog_rec, cr_tfid), 32u);
  EXPECT_EQ(offsetof(changelog_rec, cr_markerflags), 32u);
  EXPECT_EQ(offsetof(changelog_rec, cr_pfid), 48u);
  EXPECT_EQ(sizeof(changelog_ext_rename), 32u);
  EXPECT_EQ(offsetof(changelog_ext_rename, cr_spfid), 16u);
  EXPECT_EQ(sizeof(changelog_ext_jobid), 32u);
  EXPECT_EQ(sizeof(changelog_ext_extra_flags), 8u);
  EXPECT_EQ(sizeof(changelog_ext_uidgid), 16u);
  EXPECT_EQ(sizeof(changelog_ext_nid), 24u);  // u64, u64, u32 + tail padding
  EXPECT_EQ(offsetof(changelog_ext_nid, padding), 16u);
  EXPECT_EQ(sizeof(changelog_ext_openmode), 4u);
  EXPECT_EQ(sizeof(changelog_ext_xattr), 256u);
  EXPECT_EQ(CLF_SUPPORTED, 0xf000);
  EXPECT_EQ(CLFE_SUPPORTED, 0x1f);
  EXPECT_EQ(CHANGELOG_DEFMASK, 0x0077fbffu);
}

TEST(ChangelogBinary, RecordOffsetMatchesChangelogRecOffset) {
  EXPECT_EQ(RecordOffset(0, 0), 64u);
  EXPECT_EQ(RecordOffset(CLF_VERSION, 0), 64u);
  EXPECT_EQ(RecordOffset(CLF_VERSION | CLF_RENAME, 0), 96u);
  EXPECT_EQ(RecordOffset(CLF_VERSION | CLF_JOBID, 0), 96u);
  EXPECT_EQ(RecordOffset(CLF_VERSION | CLF_RENAME | CLF_JOBID, 0), 128u);
  EXPECT_EQ(RecordOffset(CLF_SUPPORTED, 0), 136u);
  EXPECT_EQ(RecordOffset(CLF_SUPPORTED, CLFE_UIDGID), 152u);
  EXPECT_EQ(RecordOffset(CLF_SUPPORTED, CLFE_UIDGID | CLFE_NID), 176u);
  EXPECT_EQ(RecordOffset(CLF_SUPPORTED, CLFE_UIDGID | CLFE_NID | CLFE_OPEN), 180u);
  EXPECT_EQ(RecordOffset(CLF_SUPPORTED, CLFE_SUPPORTED), 436u);
  // Extra flags count only with CLF_EXTRA_FLAGS; unknown bits never count.
  EXPECT_EQ(RecordOffset(CLF_VERSION, CLFE_SUPPORTED), 64u);
  EXPECT_EQ(RecordOffset(CLF_EXTRA_FLAGS, 0x40), 72u);
}

TEST(ChangelogBinary, HandBuiltRenameHasLustresByteLayout) {
  ChangelogRecord r = FullRename();
  r.extra_flags = CLFE_UIDGID | CLFE_NID;
  const std::string b = PackRecord(r);
  ASSERT_EQ(b.size(), 176u + 16u);
  EXPECT_EQ(At<uint16_t>(b, 0), 16u);  // "hi.txt\0hello.txt"
  EXPECT_EQ(At<uint16_t>(b, 2), CLF_VERSION | CLF_RENAME | CLF_JOBID | CLF_EXTRA_FLAGS | 0x1);
  EXPECT_EQ(At<uint32_t>(b, 4), uint32_t{CL_RENAME});
  EXPECT_EQ(At<uint64_t>(b, 8), 11332887u);
  EXPECT_EQ(At<uint64_t>(b, 16), 11332880u);
  EXPECT_EQ(At<uint64_t>(b, 24), (1552084067ull << 30) | 416587265);
  EXPECT_EQ(At<uint64_t>(b, 32), 0x300005716u);  // tfid
  EXPECT_EQ(At<uint32_t>(b, 40), 0x17au);
  EXPECT_EQ(At<uint32_t>(b, 44), 0u);
  EXPECT_EQ(At<uint32_t>(b, 56), 0xe7u);        // pfid.f_oid
  EXPECT_EQ(At<uint32_t>(b, 64 + 8), 0x626bu);  // sfid.f_oid
  EXPECT_EQ(At<uint32_t>(b, 80 + 8), 0xe8u);    // spfid.f_oid
  EXPECT_EQ(std::string(b.data() + 96, 32), std::string("mv.0") + std::string(28, '\0'));
  EXPECT_EQ(At<uint64_t>(b, 128), uint64_t{CLFE_UIDGID | CLFE_NID});
  EXPECT_EQ(At<uint64_t>(b, 136), 1000u);
  EXPECT_EQ(At<uint64_t>(b, 144), 100u);
  EXPECT_EQ(At<uint64_t>(b, 152), 0x000200000a000001u);  // lnet_nid_t of 10.0.0.1@tcp
  EXPECT_EQ(std::string(b.data() + 160, 16), std::string(16, '\0'));
  EXPECT_EQ(std::string(b.data() + 176, 16), std::string("hi.txt\0hello.txt", 16));
}

TEST(ChangelogBinary, OpenModeAndXattrFollowNidInFlagOrder) {
  ChangelogRecord r = FullRename();
  r.type = CL_OPEN;
  r.has_rename = false;
  r.name.clear();
  r.sname.clear();
  r.open_flags = 01 | 02000;
  const std::string b = PackRecord(r);
  ASSERT_EQ(b.size(), 64u + 32 + 8 + 16 + 24 + 4 + 256);
  EXPECT_EQ(At<uint64_t>(b, 96), kPayload);
  EXPECT_EQ(At<uint64_t>(b, 104), 1000u);                // uid
  EXPECT_EQ(At<uint64_t>(b, 120), 0x000200000a000001u);  // nid
  EXPECT_EQ(At<uint32_t>(b, 144), 01u | 02000u);         // open flags
  EXPECT_EQ(std::string(b.data() + 148, 9), std::string("user.tag\0", 9));
}

TEST(ChangelogBinary, PackUnpackRoundTripsEveryTypeAndExtensionCombination) {
  int checked = 0;
  // Also unpacked into one record over and over, as a changelog reader does: nothing of the
  // records before may be left in it.
  ChangelogRecord reused = FullRename();
  for (uint32_t type = 0; type < CL_LAST; ++type) {
    for (int ext = 0; ext < 8; ++ext) {
      for (uint64_t payload = 0; payload <= kPayload; ++payload) {
        for (bool nid_be : {false, true}) {
          if (nid_be && !(payload & CLFE_NID)) continue;
          ChangelogRecord r;
          r.index = 1000 + type;
          r.type = type;
          r.flags = static_cast<uint16_t>(type);  // per-type bits survive
          r.prev = 7;
          r.time_ns = 1552084067ull * 1'000'000'000 + type;
          r.tfid = {0x200000401, type + 1, 0};
          r.pfid = type == CL_MTIME ? Fid{} : kRootFid;
          r.name = type == CL_MTIME ? "" : "file-" + std::to_string(type);
          if (ext & 1) {
            r.has_rename = true;
            r.sfid = {0x200000401, 99, 0};
            r.spfid = {0x200000402, 1, 0};
            r.sname = "old-name";
          }
          if (ext & 2) {
            r.has_jobid = true;
            r.jobid = "dd.1000";
          }
          if (ext & 4) {
            r.has_extra_flags = true;
            r.extra_flags = payload | (nid_be ? CLFE_NID_BE : 0);
            if (payload & CLFE_UIDGID) r.uid = 1234, r.gid = 5678;
            if (payload & CLFE_NID) r.nid = "192.168.3.4@o2ib2";
            if (payload & CLFE_OPEN) r.open_flags = 0x3;
            if (payload & CLFE_XATTR) r.xattr = "trusted.lov";
          } else if (payload != 0 || nid_be) {
            continue;
          }
          PackOptions options;
          options.want_extra = kPayload | (nid_be ? CLFE_NID_BE : 0);
          const std::string bytes = PackRecord(r, options);
          size_t consumed = 0;
          auto back = UnpackRecord(Bytes(bytes), &consumed);
          ASSERT_TRUE(back.ok()) << back.status().message();
          EXPECT_EQ(consumed, bytes.size());
          EXPECT_EQ(*back, r) << "type " << type << " ext " << ext << " payload " << payload;
          size_t reused_consumed = 0;
          ASSERT_TRUE(UnpackRecordInto(Bytes(bytes), reused, &reused_consumed).ok());
          EXPECT_EQ(reused_consumed, bytes.size());
          EXPECT_EQ(reused, r) << "reused: type " << type << " ext " << ext << " payload " << payload;
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, CL_LAST * (4 + 4 * (16 + 8)));
}

TEST(ChangelogBinary, PackKeepsOnlyWantedExtensions) {
  ChangelogRecord r = FullRename();
  PackOptions no_jobid{false, kPayload};
  auto a = UnpackRecord(Bytes(PackRecord(r, no_jobid)));
  ASSERT_TRUE(a.ok());
  EXPECT_FALSE(a->has_jobid);
  EXPECT_EQ(a->jobid, "");

  PackOptions uidgid_only{true, CLFE_UIDGID};
  auto b = UnpackRecord(Bytes(PackRecord(r, uidgid_only)));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->extra_flags, uint64_t{CLFE_UIDGID});
  EXPECT_EQ(b->nid, "");
  EXPECT_EQ(b->xattr, "");
  EXPECT_EQ(b->uid, 1000u);

  PackOptions none{true, 0};
  const std::string c = PackRecord(r, none);
  EXPECT_EQ(At<uint16_t>(c, 2) & CLF_EXTRA_FLAGS, 0);
  EXPECT_EQ(c.size(), 128u + 16u);
}

TEST(ChangelogBinary, Ipv6NidIsPackedInTheLargeForm) {
  ChangelogRecord r = FullRename();
  r.extra_flags = CLFE_NID;
  r.nid = "2001:db8::7@tcp";
  const std::string b = PackRecord(r);
  EXPECT_EQ(At<uint64_t>(b, 128), uint64_t{CLFE_NID | CLFE_NID_BE});
  EXPECT_EQ(static_cast<uint8_t>(b[136]), 12);  // lnet_nid.nid_size
  EXPECT_EQ(static_cast<uint8_t>(b[137]), 2);   // SOCKLND
  auto back = UnpackRecord(Bytes(b));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->nid, "2001:db8::7@tcp");
}

TEST(ChangelogBinary, UnpackReadsLargeFormNidAsLfsAsksForIt) {
  ChangelogRecord r = FullRename();
  r.extra_flags = CLFE_NID;
  r.nid = "0@lo";
  std::string b = PackRecord(r, PackOptions{true, CLFE_NID | CLFE_NID_BE});
  EXPECT_EQ(At<uint64_t>(b, 128), uint64_t{CLFE_NID | CLFE_NID_BE});
  const std::array<uint8_t, 8> lo = {0, 9, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(std::memcmp(b.data() + 136, lo.data(), lo.size()), 0);
  auto back = UnpackRecord(Bytes(b));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->nid, "0@lo");
}

TEST(ChangelogBinary, EveryTruncationIsAnErrorNotACrash) {
  ChangelogRecord r = FullRename();
  const std::string full = PackRecord(r);
  ASSERT_TRUE(UnpackRecord(Bytes(full)).ok());
  for (size_t len = 0; len < full.size(); ++len) {
    // A heap copy of exactly `len` bytes, so that ASan sees any read past the end.
    std::vector<std::byte> cut(len);
    std::copy_n(reinterpret_cast<const std::byte*>(full.data()), len, cut.begin());
    auto res = UnpackRecord(std::span<const std::byte>(cut.data(), len));
    ASSERT_FALSE(res.ok()) << "accepted " << len << " of " << full.size() << " bytes";
    EXPECT_NE(res.status().message().find("truncated"), std::string::npos)
        << res.status().message();
  }
}

TEST(ChangelogBinary, UnknownExtraFlagsAreRejectedWithTheirValue) {
  std::string b = PackRecord(FullRename());
  SetAt<uint64_t>(b, 128, kPayload | 0x20);
  auto res = UnpackRecord(Bytes(b));
  ASSERT_FALSE(res.ok());
  EXPECT_NE(res.status().message().find("0x2f"), std::string::npos) << res.status().message();
  EXPECT_NE(res.status().message().find("#11332887"), std::string::npos);
  SetAt<uint64_t>(b, 128, CLFE_NID_BE);
  EXPECT_FALSE(UnpackRecord(Bytes(b)).ok());
}

TEST(ChangelogBinary, UnterminatedFixedStringsAreRejected) {
  std::string b = PackRecord(FullRename());
  std::memset(b.data() + 96, 'j', 32);
  auto jobid = UnpackRecord(Bytes(b));
  ASSERT_FALSE(jobid.ok());
  EXPECT_NE(jobid.status().message().find("jobid"), std::string::npos);

  ChangelogRecord x = FullRename();
  x.has_rename = false;
  x.sname.clear();
  std::string c = PackRecord(x);
  const size_t xattr_off = 64 + 32 + 8 + 16 + 24 + 4;
  std::memset(c.data() + xattr_off, 'x', 256);
  auto xattr = UnpackRecord(Bytes(c));
  ASSERT_FALSE(xattr.ok());
  EXPECT_NE(xattr.status().message().find("xattr"), std::string::npos);
}

TEST(ChangelogBinary, LongJobidAndXattrAreCutLikeStrscpy) {
  ChangelogRecord r = FullRename();
  r.jobid = std::string(40, 'j');
  r.xattr = std::string(300, 'x');
  auto back = UnpackRecord(Bytes(PackRecord(r)));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->jobid, std::string(31, 'j'));
  EXPECT_EQ(back->xattr, std::string(255, 'x'));
}

TEST(ChangelogBinary, NamesWithEmbeddedNulAreRejectedOutsideRenames) {
  ChangelogRecord r = FullRename();
  r.has_rename = false;
  r.sname.clear();
  r.type = CL_CREATE;
  r.name = std::string("ab\0cd", 5);
  auto res = UnpackRecord(Bytes(PackRecord(r)));
  ASSERT_FALSE(res.ok());
  EXPECT_NE(res.status().message().find("offset 2"), std::string::npos) << res.status().message();

  ChangelogRecord rn = FullRename();
  rn.sname = std::string("old\0er", 6);
  EXPECT_FALSE(UnpackRecord(Bytes(PackRecord(rn))).ok());
}

TEST(ChangelogBinary, RenameNamesSplitAtTheFirstNul) {
  ChangelogRecord r = FullRename();
  r.name = "";
  r.sname = "gone";
  auto back = UnpackRecord(Bytes(PackRecord(r)));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->name, "");
  EXPECT_EQ(back->sname, "gone");
}

TEST(ChangelogBinary, RenameExtensionWithoutSourceKeepsTheWholeName) {
  // Lustre's kernel adds a zeroed rename extension to other records (changelog_remap_rec).
  ChangelogRecord r = FullRename();
  r.type = CL_CREATE;
  r.sfid = {};
  r.spfid = {};
  r.sname.clear();
  const std::string b = PackRecord(r);
  EXPECT_EQ(At<uint16_t>(b, 0), r.name.size());
  auto back = UnpackRecord(Bytes(b));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, r);
}

TEST(ChangelogBinary, NanosecondsBeyondOneSecondAreRejected) {
  std::string b = PackRecord(FullRename());
  SetAt<uint64_t>(b, 24, (uint64_t{5} << 30) | 1'000'000'000);
  auto res = UnpackRecord(Bytes(b));
  ASSERT_FALSE(res.ok());
  EXPECT_NE(res.status().message().find("cr_time"), std::string::npos);
}

TEST(ChangelogBinary, TimeIsSecondsShiftedThirtyBitsOrNanoseconds) {
  ChangelogRecord r;
  r.time_ns = 1'700'000'000ull * 1'000'000'000 + 999'999'999;
  const std::string b = PackRecord(r);
  EXPECT_EQ(At<uint64_t>(b, 24), (1'700'000'000ull << 30) | 999'999'999);
  auto back = UnpackRecord(Bytes(b));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->time_ns, r.time_ns);
}

TEST(ChangelogBinary, Nid4WithBitsAboveTheLndIsRejected) {
  ChangelogRecord r = FullRename();
  r.extra_flags = CLFE_NID;
  std::string b = PackRecord(r);
  SetAt<uint64_t>(b, 136, 0x0102000000000001ull);
  EXPECT_FALSE(UnpackRecord(Bytes(b)).ok());
  SetAt<uint64_t>(b, 136, 0x00ff000000000001ull);
  EXPECT_FALSE(UnpackRecord(Bytes(b)).ok());
  SetAt<uint64_t>(b, 136, kNidAny);
  auto any = UnpackRecord(Bytes(b));
  ASSERT_TRUE(any.ok());
  EXPECT_EQ(any->nid, "<?>");
}

TEST(ChangelogBinary, ConsecutiveRecordsUnpackOneAtATime) {
  ChangelogRecord a = FullRename();
  ChangelogRecord b = FullRename();
  b.index += 1;
  b.type = CL_UNLINK;
  b.has_rename = false;
  b.sfid = b.spfid = Fid{};
  b.sname.clear();
  b.name = "x";
  const std::string stream = PackRecord(a) + PackRecord(b);
  size_t used = 0;
  auto first = UnpackRecord(Bytes(stream), &used);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(*first, a);
  EXPECT_EQ(used, PackRecord(a).size());
  auto second = UnpackRecord(Bytes(stream).subspan(used), &used);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*second, b);
}

TEST(ChangelogBinary, UnpackFromLlapiStructReadsItsOwnSize) {
  ChangelogRecord r = FullRename();
  const std::string b = PackRecord(r);
  std::vector<uint64_t> aligned((b.size() + 7) / 8);
  std::memcpy(aligned.data(), b.data(), b.size());
  auto back = UnpackRecord(reinterpret_cast<const changelog_rec*>(aligned.data()));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, r);
}

TEST(ChangelogBinary, MarkRecordCarriesMarkerFlagsInTheTargetFid) {
  ChangelogRecord r;
  r.type = CL_MARK;
  r.tfid = {0x5, 0, 0};  // cr_markerflags = 5 overlays the low half of f_seq
  const std::string b = PackRecord(r, PackOptions{false, 0});
  EXPECT_EQ(b.size(), 64u);
  EXPECT_EQ(At<uint32_t>(b, offsetof(changelog_rec, cr_markerflags)), 5u);
  auto back = UnpackRecord(Bytes(b));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, r);
}

}  // namespace
}  // namespace fathom::lustre

// Record type names and changelog mask expressions (lctl set_param mdd.*.changelog_mask=).
#include "lustre/changelog_record.h"

#include <gtest/gtest.h>

#include <vector>

namespace fathom::lustre {
namespace {

constexpr uint64_t Bit(uint32_t type) { return uint64_t{1} << type; }

uint64_t Apply(uint64_t mask, std::string_view expr) {
  auto r = ApplyMaskExpression(mask, expr);
  EXPECT_TRUE(r.ok()) << expr << ": " << r.status().message();
  return r.ok() ? *r : 0;
}

TEST(RecordType, NamesAreLustreChangelogType2str) {
  const std::vector<std::string_view> expected = {
      "MARK",  "CREAT", "MKDIR", "HLINK", "SLINK",  "MKNOD", "UNLNK", "RMDIR", "RENME",
      "RNMTO", "OPEN",  "CLOSE", "LYOUT", "TRUNC",  "SATTR", "XATTR", "HSM",   "MTIME",
      "CTIME", "ATIME", "MIGRT", "FLRW",  "RESYNC", "GXATR", "NOPEN"};
  ASSERT_EQ(expected.size(), static_cast<size_t>(CL_LAST));
  for (uint32_t t = 0; t < CL_LAST; ++t) {
    ASSERT_TRUE(RecordTypeName(t).has_value());
    EXPECT_EQ(*RecordTypeName(t), expected[t]);
    EXPECT_EQ(ParseRecordTypeName(expected[t]), t);
  }
  EXPECT_EQ(*RecordTypeName(CL_CREATE), "CREAT");
  EXPECT_EQ(*RecordTypeName(CL_DN_OPEN), "NOPEN");
}

TEST(RecordType, UnknownTypesAndNamesHaveNoMapping) {
  EXPECT_FALSE(RecordTypeName(CL_LAST).has_value());
  EXPECT_FALSE(RecordTypeName(0xffffffffu).has_value());
  EXPECT_FALSE(ParseRecordTypeName("creat").has_value());
  EXPECT_FALSE(ParseRecordTypeName("CREATE").has_value());
  EXPECT_FALSE(ParseRecordTypeName("").has_value());
}

TEST(ChangelogMask, AllAndDefaultAreLustresMasks) {
  EXPECT_EQ(Apply(CHANGELOG_MINMASK, "ALL"), CHANGELOG_ALLMASK);
  EXPECT_EQ(Apply(CHANGELOG_ALLMASK, "DEFAULT"), CHANGELOG_DEFMASK);
  EXPECT_EQ(FormatMask(CHANGELOG_DEFMASK),
            "MARK CREAT MKDIR HLINK SLINK MKNOD UNLNK RMDIR RENME RNMTO CLOSE LYOUT TRUNC SATTR "
            "XATTR HSM MTIME CTIME MIGRT FLRW RESYNC ");
  EXPECT_EQ(CHANGELOG_ALLMASK, 0x1ffffffu);
}

TEST(ChangelogMask, PlainListReplacesTheMaskButKeepsMark) {
  EXPECT_EQ(Apply(CHANGELOG_ALLMASK, "CREAT MKDIR"), Bit(CL_MARK) | Bit(CL_CREATE) | Bit(CL_MKDIR));
  EXPECT_EQ(FormatMask(Apply(CHANGELOG_DEFMASK, "CREAT UNLNK")), "MARK CREAT UNLNK ");
}

TEST(ChangelogMask, PlusAndMinusEditTheCurrentMask) {
  const uint64_t m = Apply(CHANGELOG_DEFMASK, "+ATIME -CLOSE");
  EXPECT_EQ(m, (CHANGELOG_DEFMASK | Bit(CL_ATIME)) & ~Bit(CL_CLOSE));
}

TEST(ChangelogMask, OperatorAppliesToTheNextWordOnly) {
  // As in the kernel: "-CREAT ATIME" removes CREAT and adds ATIME.
  EXPECT_EQ(Apply(CHANGELOG_DEFMASK, "-CREAT ATIME"),
            (CHANGELOG_DEFMASK & ~Bit(CL_CREATE)) | Bit(CL_ATIME));
}

TEST(ChangelogMask, EditOfMinimalMaskStartsFromDefault) {
  EXPECT_EQ(Apply(CHANGELOG_MINMASK, "+OPEN"), CHANGELOG_DEFMASK | Bit(CL_OPEN));
  EXPECT_EQ(Apply(CHANGELOG_MINMASK, "  -MTIME"), CHANGELOG_DEFMASK & ~Bit(CL_MTIME));
}

TEST(ChangelogMask, WordsAreCaseInsensitiveAndCommaSeparated) {
  EXPECT_EQ(Apply(0, "creat,Mkdir"), Bit(CL_MARK) | Bit(CL_CREATE) | Bit(CL_MKDIR));
  EXPECT_EQ(Apply(CHANGELOG_DEFMASK, "all"), CHANGELOG_ALLMASK);
}

TEST(ChangelogMask, NoneAndMinusAllLeaveOnlyMark) {
  EXPECT_EQ(Apply(CHANGELOG_ALLMASK, "NONE"), CHANGELOG_MINMASK);
  EXPECT_EQ(Apply(CHANGELOG_ALLMASK, "-ALL"), CHANGELOG_MINMASK);
  EXPECT_EQ(Apply(CHANGELOG_ALLMASK, "-NONE"), CHANGELOG_ALLMASK);
}

TEST(ChangelogMask, DefaultKeywordEditsAndOnlyCountsAsTheLastWord) {
  EXPECT_EQ(Apply(CHANGELOG_MINMASK | Bit(CL_OPEN), "+DEFAULT"), CHANGELOG_DEFMASK | Bit(CL_OPEN));
  EXPECT_EQ(Apply(CHANGELOG_ALLMASK, "-DEFAULT"),
            (CHANGELOG_ALLMASK & ~CHANGELOG_DEFMASK) | CHANGELOG_MINMASK);
  EXPECT_EQ(Apply(CHANGELOG_ALLMASK, "+ATIME DEFAULT"), CHANGELOG_DEFMASK);
  EXPECT_FALSE(ApplyMaskExpression(CHANGELOG_ALLMASK, "DEFAULT +ATIME").ok());
}

TEST(ChangelogMask, MarkCannotBeMaskedOut) {
  EXPECT_TRUE(Apply(CHANGELOG_DEFMASK, "-MARK") & Bit(CL_MARK));
}

TEST(ChangelogMask, EmptyExpressionKeepsTheMask) {
  EXPECT_EQ(Apply(CHANGELOG_DEFMASK, ""), CHANGELOG_DEFMASK);
  EXPECT_EQ(Apply(CHANGELOG_DEFMASK, " ,\t"), CHANGELOG_DEFMASK);
}

TEST(ChangelogMask, ErrorsNameTheBadWord) {
  auto r = ApplyMaskExpression(CHANGELOG_DEFMASK, "CREAT BOGUS MKDIR");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'BOGUS'"), std::string::npos) << r.status().message();
  EXPECT_FALSE(ApplyMaskExpression(CHANGELOG_DEFMASK, "CREAT +").ok());
  EXPECT_FALSE(ApplyMaskExpression(CHANGELOG_DEFMASK, "+-CREAT").ok());
  EXPECT_FALSE(ApplyMaskExpression(CHANGELOG_DEFMASK, "CREATE").ok());
  EXPECT_FALSE(ApplyMaskExpression(CHANGELOG_DEFMASK, "RESYNCX").ok());
}

TEST(ChangelogMask, FormatOfEmptyMaskIsEmpty) {
  EXPECT_EQ(FormatMask(0), "");
  EXPECT_EQ(FormatMask(Bit(CL_DN_OPEN) | Bit(40)), "NOPEN ");
}

TEST(ChangelogMask, FormattedMaskParsesBackToItself) {
  for (uint64_t m : {CHANGELOG_DEFMASK, CHANGELOG_ALLMASK, CHANGELOG_MINMASK,
                     CHANGELOG_MINMASK | Bit(CL_RENAME) | Bit(CL_GETXATTR)}) {
    EXPECT_EQ(Apply(0, FormatMask(m)), m) << FormatMask(m);
  }
}

}  // namespace
}  // namespace fathom::lustre

#include "fathom/event.h"

#include <gtest/gtest.h>

namespace fathom {
namespace {

TEST(KindNames, ListsKindsInInotifyBitOrderWithIsDirLast) {
  EXPECT_EQ(KindNames(kind::kCreate | kind::kIsDir), "CREATE,ISDIR");
  EXPECT_EQ(KindNames(kind::kCloseWrite | kind::kModify), "MODIFY,CLOSE_WRITE");
  EXPECT_EQ(KindNames(kind::kOverflow), "OVERFLOW");
  EXPECT_EQ(KindNames(kind::kParentRemoved | kind::kDelete), "DELETE,PARENT_REMOVED");
  EXPECT_EQ(KindNames(0), "");
}

TEST(KindNames, UsesInotifyBitValues) {
  EXPECT_EQ(kind::kCreate, 0x100u);
  EXPECT_EQ(kind::kMovedTo, 0x80u);
  EXPECT_EQ(kind::kIsDir, 0x40000000u);
  EXPECT_EQ(kind::kOverflow, 0x4000u);
}

TEST(ParseKind, AcceptsNamesCaseInsensitivelyAndGroupAliases) {
  EXPECT_EQ(ParseKind("CREATE"), kind::kCreate);
  EXPECT_EQ(ParseKind("close_write"), kind::kCloseWrite);
  EXPECT_EQ(ParseKind("close"), kind::kCloseWrite | kind::kCloseNowrite);
  EXPECT_EQ(ParseKind("move"), kind::kMovedFrom | kind::kMovedTo);
  EXPECT_FALSE(ParseKind("ISDIR").has_value());
  EXPECT_FALSE(ParseKind("bogus").has_value());
}

TEST(RelativePath, StartsWithSlashAndIsSlashForTheRoot) {
  EXPECT_EQ(RelativePath("/home/u/test", "/home/u/test/okdir/hi.txt"), "/okdir/hi.txt");
  EXPECT_EQ(RelativePath("/home/u/test", "/home/u/test"), "/");
  EXPECT_EQ(RelativePath("/", "/etc/passwd"), "/etc/passwd");
}

TEST(KindDefault, ExcludesReadsButKeepsEveryChange) {
  EXPECT_FALSE(kind::kDefault & kind::kAccess);
  EXPECT_FALSE(kind::kDefault & kind::kOpen);
  EXPECT_FALSE(kind::kDefault & kind::kCloseNowrite);
  for (uint32_t k : {kind::kCreate, kind::kModify, kind::kAttrib, kind::kCloseWrite, kind::kMovedFrom,
                     kind::kMovedTo, kind::kDelete, kind::kDeleteSelf, kind::kMoveSelf, kind::kOverflow}) {
    EXPECT_TRUE(kind::kDefault & k) << KindNames(k);
  }
}

}  // namespace
}  // namespace fathom

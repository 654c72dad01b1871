#include "fathom/status.h"

#include <gtest/gtest.h>

namespace fathom {
namespace {

Result<int> Half(int x) {
  if (x % 2 != 0) return Status::Error("odd: " + std::to_string(x));
  return x / 2;
}

Result<int> Quarter(int x) {
  int h = 0;
  FATHOM_ASSIGN_OR_RETURN(h, Half(x));
  return Half(h);
}

TEST(Status, FromErrnoNamesTheCallAndTheReason) {
  Status s = Status::FromErrno(ENOENT, "open /nope");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "open /nope: No such file or directory");
  EXPECT_EQ(s.code(), std::errc::no_such_file_or_directory);
}

TEST(Status, WithContextPrefixesFailuresOnly) {
  EXPECT_TRUE(Status::Ok().WithContext("x").ok());
  EXPECT_EQ(Status::Error("boom").WithContext("store").message(), "store: boom");
}

TEST(Result, AssignOrReturnPropagatesTheFirstError) {
  EXPECT_EQ(Quarter(8).value(), 2);
  auto r = Quarter(6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "odd: 3");
}

}  // namespace
}  // namespace fathom

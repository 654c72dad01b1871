// Parsing conditions: the canonical form of what parses, and for what does not, the line,
// the column, what was found and what was expected.
#include <gtest/gtest.h>

#include "fathom/condition.h"

namespace fathom::condition {
namespace {

std::string Canonical(std::string_view text) {
  auto c = Condition::Parse(text);
  EXPECT_TRUE(c.ok()) << text << ": " << c.status().message();
  return c.ok() ? c->ToString() : "";
}

std::string Error(std::string_view text, std::string_view source = "condition", int first_line = 1) {
  auto c = Condition::Parse(text, source, first_line);
  EXPECT_FALSE(c.ok()) << text;
  return c.ok() ? "" : c.status().message();
}

TEST(ConditionParseTest, RobinhoodConditionsPortLineByLine) {
  EXPECT_EQ(Canonical("(size > 1GB or owner == 'root') and path == /fs/*.tar"),
            "((size > '1GB' or owner == 'root') and path == '/fs/*.tar')");
  EXPECT_EQ(Canonical("type == file and name == \"*.tmp\" and last_mod > 30d"),
            "((type == 'file' and name == '*.tmp') and last_mod > '30d')");
  EXPECT_EQ(Canonical("not tree == /scratch/keep AND Last_Access>=60d"),
            "(not tree == '/scratch/keep' and last_access >= '60d')");
  EXPECT_EQ(Canonical("xattr.user.project == 'p-1*' or fileclass == big"),
            "(xattr.user.project == 'p-1*' or fileclass == 'big')");
  EXPECT_EQ(Canonical("ost_index == 3 and ost_pool != fast and mdt_index < 2 and dircount > 1000"),
            "(((ost_index == '3' and ost_pool != 'fast') and mdt_index < '2') and dircount > '1000')");
}

TEST(ConditionParseTest, CanonicalFormParsesBackToItself) {
  for (const char* text : {"size<=5K", "not (depth >= 3 or nlink != 1) and blocks > 0",
                           "iname == '*.H5' or name == 'a\\'b' or path == '/x y/**/z'",
                           "creation < 1h or rm_time > 2w or last_mdchange == 10"}) {
    const std::string once = Canonical(text);
    EXPECT_EQ(Canonical(once), once) << text;
  }
}

TEST(ConditionParseTest, ErrorsNameTheLineColumnFoundAndExpected) {
  EXPECT_EQ(Error("size > 1GB and colour == red"),
            "condition: line 1, column 16: found 'colour', expected a criterion (tree path name iname type mode "
            "owner group projid size blocks depth dircount nlink last_access last_mod last_mdchange creation "
            "rm_time ost_pool ost_index mdt_index fileclass xattr.NAME)");
  EXPECT_EQ(Error("size > 12Q", "policies.yaml, rule old_tmp", 7),
            "policies.yaml, rule old_tmp: line 7, column 8: found '12Q', expected a size for size (a "
            "number, then B K M G T P or E, or KB MB ...)");
  EXPECT_EQ(Error("type == file and\n  last_mod > soon"),
            "condition: line 2, column 14: found 'soon', expected a duration for last_mod (a number, "
            "then s min h d w or y)");
  EXPECT_EQ(Error("name > '*.tmp'"),
            "condition: line 1, column 6: found '>', expected == or != (name is compared by equality)");
  EXPECT_EQ(Error("(size > 1 or nlink > 2"), "condition: line 1, column 23: found the end of the condition, "
                                              "expected ')', 'and' or 'or'");
  EXPECT_EQ(Error("size > 1)"), "condition: line 1, column 9: found ')', expected no ')' here: it closes no '('");
  EXPECT_EQ(Error("size 1"), "condition: line 1, column 6: found '1', expected a comparison operator "
                             "(== != < <= > >=) after size");
  EXPECT_EQ(Error("size = 1"), "condition: line 1, column 6: found '=', expected an operator (== != < <= > >=)");
  EXPECT_EQ(Error("type == folder"), "condition: line 1, column 9: found 'folder', expected a type (file dir "
                                     "symlink chr blk fifo sock)");
  EXPECT_EQ(Error("path == 'rel/*'"), "condition: line 1, column 9: found \"rel/*\", expected an absolute path "
                                      "(or glob) for path");
  EXPECT_EQ(Error("name == 'open"), "condition: line 1, column 9: found a string that does not end, expected "
                                    "its closing '");
  EXPECT_EQ(Error("size > 1 and"), "condition: line 1, column 13: found the end of the condition, expected a "
                                   "criterion (tree path name iname type mode owner group projid size blocks depth "
                                   "dircount nlink last_access last_mod last_mdchange creation rm_time ost_pool "
                                   "ost_index mdt_index fileclass xattr.NAME), 'not' or '('");
  EXPECT_EQ(Error("fileclass == 'big*'"), "condition: line 1, column 14: found \"big*\", expected a file class's "
                                          "name (no wildcards)");
  EXPECT_EQ(Error("nlink == -1"), "condition: line 1, column 10: found '-1', expected a whole number for nlink");
}

TEST(ConditionParseTest, DeepNestingAndHugeConditionsAreRefusedNotOverflowed) {
  const std::string deep = std::string(300, '(') + "size > 1" + std::string(300, ')');
  EXPECT_NE(Error(deep).find("expected fewer nested 'not' and parentheses (at most 200)"), std::string::npos);
  std::string wide = "size > 1";
  for (int i = 0; i < 5000; ++i) wide += " or size > 1";
  EXPECT_NE(Error(wide).find("expected fewer comparisons (at most 4096 in one condition)"), std::string::npos);
}

}  // namespace
}  // namespace fathom::condition

// The policy configuration's file classes: conditions, unions, intersections and complements,
// classes named inside conditions, and every error with its file, line and column.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include "fathom/policy.h"

namespace fathom::policy {
namespace {

constexpr int64_t kNow = int64_t{1800000000} * 1000000000;

PolicyConfig Parse(std::string_view yaml) {
  auto config = ParsePolicyConfig(yaml, "policies.yaml");
  EXPECT_TRUE(config.ok()) << config.status().message();
  return config.ok() ? std::move(config).value() : PolicyConfig{};
}

std::string Error(std::string_view yaml) {
  auto config = ParsePolicyConfig(yaml, "policies.yaml");
  EXPECT_FALSE(config.ok()) << yaml;
  return config.ok() ? "" : config.status().message();
}

catalog::Attrs File(int64_t size) {
  catalog::Attrs a;
  a.mode = S_IFREG | 0644;
  a.size = size;
  a.mtime_ns = a.atime_ns = a.ctime_ns = kNow;
  return a;
}

constexpr const char* kClasses = R"(
fileclasses:
  tmp: "type == file and name == '*.tmp'"
  big: "size > 1M"
  keep: "tree == /scratch/keep"
  big_tmp: {inter: [big, tmp]}
  either: {union: [big, tmp]}
  loose: {not: keep}
  named: "fileclass == big_tmp and not fileclass == keep"
)";

TEST(PolicyConfigTest, ClassesCombineAsUnionsIntersectionsAndComplements) {
  const PolicyConfig config = Parse(kClasses);
  const FileClasses& c = config.fileclasses;
  EXPECT_EQ(c.Names(), (std::vector<std::string>{"big", "big_tmp", "either", "keep", "loose", "named", "tmp"}));
  const catalog::Attrs small = File(10), large = File(int64_t{5} << 20);
  auto in = [&](std::string_view cls, std::string_view path, const catalog::Attrs& a) {
    condition::Subject s;
    s.path = path;
    s.attrs = &a;
    return c.Contains(cls, s, kNow);
  };
  EXPECT_TRUE(in("tmp", "/scratch/a.tmp", small));
  EXPECT_FALSE(in("big_tmp", "/scratch/a.tmp", small));
  EXPECT_TRUE(in("big_tmp", "/scratch/a.tmp", large));
  EXPECT_TRUE(in("either", "/scratch/a.dat", large));
  EXPECT_FALSE(in("either", "/scratch/a.dat", small));
  EXPECT_TRUE(in("loose", "/scratch/a.dat", small));
  EXPECT_FALSE(in("loose", "/scratch/keep/a.dat", small));
  EXPECT_TRUE(in("named", "/scratch/x/a.tmp", large));
  EXPECT_FALSE(in("named", "/scratch/keep/a.tmp", large));
  EXPECT_FALSE(in("undefined", "/scratch/a.tmp", large));
  catalog::Selection sel;
  c.Narrow("big_tmp", sel, kNow);
  EXPECT_EQ(sel.min_size, (int64_t{1} << 20) + 1);
  EXPECT_EQ(sel.type, static_cast<uint32_t>(S_IFREG));
  EXPECT_EQ(sel.name_tests.size(), 1u);
  catalog::Selection none;
  c.Narrow("either", none, kNow);
  EXPECT_FALSE(none.min_size || none.type);
}

TEST(PolicyConfigTest, AnEmptyFileHasNoClasses) {
  EXPECT_TRUE(Parse("").fileclasses.Names().empty());
  EXPECT_TRUE(Parse("fileclasses:\n").fileclasses.Names().empty());
}

TEST(PolicyConfigTest, ErrorsNameTheFileLineAndColumn) {
  EXPECT_EQ(Error("fileclasses:\n  a: \"size > 1 and colour == red\"\n"),
            "policies.yaml, fileclass a: line 2, column 20: found 'colour', expected a criterion (tree path name "
            "iname type owner group projid size blocks depth dircount nlink last_access last_mod last_mdchange "
            "creation rm_time ost_pool ost_index mdt_index fileclass xattr.NAME)");
  EXPECT_EQ(Error("fileclasses:\n  a: size > 12Q\n"),
            "policies.yaml, fileclass a: line 2, column 13: found '12Q', expected a size for size (a number, then "
            "B K M G T P or E, or KB MB ...)");
  EXPECT_EQ(Error("fileclasses:\n  a: [x\n"),
            "policies.yaml: line 3, column 1: not valid YAML here: end of sequence flow not found");
  EXPECT_EQ(Error("fileclasses:\n  ? [a, b]\n  : size > 1\n"),
            "policies.yaml: line 2, column 5: not valid YAML here: bad conversion");
  EXPECT_EQ(Error("filclasses:\n  a: size > 1\n"),
            "policies.yaml: line 1, column 1: unknown section 'filclasses' (expected fileclasses)");
  EXPECT_EQ(Error("fileclasses:\n  a: {union: [b]}\n"),
            "policies.yaml: line 2, column 6: fileclass 'a' names 'b', which is not defined (defined: a)");
  EXPECT_EQ(Error("fileclasses:\n  a: {union: [b]}\n  b: \"fileclass == a\"\n"),
            "policies.yaml: line 2, column 6: fileclass 'a' is defined through itself (a -> b -> a)");
  EXPECT_EQ(Error("fileclasses:\n  a: \"fileclass == a\"\n"),
            "policies.yaml: line 2, column 6: fileclass 'a' is defined through itself (a -> a)");
  EXPECT_EQ(Error("fileclasses:\n  a: {both: [b]}\n"),
            "policies.yaml: line 2, column 7: fileclass 'a': expected a condition, or one of {union: [CLASS...]}, "
            "{inter: [CLASS...]}, {not: CLASS}");
  EXPECT_EQ(Error("fileclasses:\n  a: {inter: []}\n"),
            "policies.yaml: line 2, column 14: fileclass 'a': inter: expected a list of class names");
  EXPECT_EQ(Error("fileclasses:\n  a b: size > 1\n"),
            "policies.yaml: line 2, column 3: fileclass name 'a b': use letters, digits, '_', '-' and '.'");
  EXPECT_EQ(Error("fileclasses: [a]\n"),
            "policies.yaml: line 1, column 14: fileclasses: expected a mapping of class names");
}

TEST(PolicyConfigTest, AMissingFileSaysWhichAndWhatToDo) {
  auto config = LoadPolicyConfig("/nonexistent/policies.yaml");
  ASSERT_FALSE(config.ok());
  EXPECT_NE(config.status().message().find("/nonexistent/policies.yaml: cannot read it (check the path given to --config)"),
            std::string::npos)
      << config.status().message();
}

}  // namespace
}  // namespace fathom::policy

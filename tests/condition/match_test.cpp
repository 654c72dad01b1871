// Evaluating conditions against catalog attributes, and the bounds they give the catalog's
// indexes (Narrow).
#include <sys/stat.h>

#include <gtest/gtest.h>

#include "fathom/condition.h"

namespace fathom::condition {
namespace {

constexpr int64_t kS = 1000000000;
constexpr int64_t kDay = 86400 * kS;
constexpr int64_t kNow = 1800000000 * kS;

catalog::Attrs File(int64_t size, uint32_t uid = 1000, int64_t age_days = 0) {
  catalog::Attrs a;
  a.mode = S_IFREG | 0644;
  a.uid = uid;
  a.gid = 100;
  a.nlink = 1;
  a.size = size;
  a.blocks = (size + 511) / 512;
  a.atime_ns = a.mtime_ns = a.ctime_ns = kNow - age_days * kDay;
  return a;
}

bool Match(std::string_view text, std::string_view path, const catalog::Attrs& attrs, Subject s = {}) {
  auto c = Condition::Parse(text);
  EXPECT_TRUE(c.ok()) << c.status().message();
  s.path = path;
  s.attrs = &attrs;
  return c.ok() && c->Matches(s, kNow);
}

TEST(ConditionMatchTest, SizesAgesAndTypes) {
  const catalog::Attrs big = File(int64_t{2} << 30, 1000, 40), small = File(10, 1000, 1);
  EXPECT_TRUE(Match("size > 1GB", "/fs/a", big));
  EXPECT_FALSE(Match("size > 1GB", "/fs/a", small));
  EXPECT_TRUE(Match("size == 10", "/fs/a", small));
  EXPECT_TRUE(Match("blocks == 512", "/fs/a", small));  // one 512-byte block, in bytes
  EXPECT_TRUE(Match("last_mod > 30d and last_access >= 40d", "/fs/a", big));
  EXPECT_FALSE(Match("last_mod > 40d", "/fs/a", big));  // exactly 40 days old
  EXPECT_TRUE(Match("last_mod < 2d", "/fs/a", small));
  EXPECT_TRUE(Match("type == file and not type == dir", "/fs/a", small));
  catalog::Attrs dir = small;
  dir.mode = S_IFDIR | 0755;
  EXPECT_TRUE(Match("type == directory", "/fs/d", dir));
  Subject counted;
  counted.dircount = 3;
  EXPECT_TRUE(Match("dircount >= 3", "/fs/d", dir, counted));
  EXPECT_FALSE(Match("dircount >= 3", "/fs/a", small, counted));  // not a directory
  EXPECT_FALSE(Match("dircount >= 0 or depth >= 0 or creation > 0 or rm_time > 0", "/fs/d", dir));  // unknown
}

// mode as GNU find's -perm: exactly, all of the bits (-), any of them (/).
TEST(ConditionMatchTest, ModesExactlyAllOfOrAnyOfTheirBits) {
  catalog::Attrs f = File(1);
  f.mode = S_IFREG | 04754;
  EXPECT_TRUE(Match("mode == 4754", "/fs/a", f));
  EXPECT_FALSE(Match("mode == 0754", "/fs/a", f));
  EXPECT_TRUE(Match("mode != 0754", "/fs/a", f));
  EXPECT_TRUE(Match("mode == -0750", "/fs/a", f));
  EXPECT_FALSE(Match("mode == -0752", "/fs/a", f));
  EXPECT_TRUE(Match("mode == /0002 or mode == /4000", "/fs/a", f));
  EXPECT_FALSE(Match("mode == /0003", "/fs/a", f));
  EXPECT_TRUE(Match("mode == /0000", "/fs/a", f));  // as GNU find: no bit asked, every entry
  auto bad = Condition::Parse("mode == /o+w");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "condition: line 1, column 9: found '/o+w', expected permission bits in octal for mode: 0644 (exactly), "
            "-0750 (all of them) or /0022 (any of them)");
  auto ordered = Condition::Parse("mode > 0644");
  ASSERT_FALSE(ordered.ok());
  EXPECT_NE(ordered.status().message().find("== or != (mode is compared by equality)"), std::string::npos);
  EXPECT_EQ(Condition::Parse("mode == -0750")->ToString(), "mode == '-0750'");
}

TEST(ConditionMatchTest, PathsNamesAndTrees) {
  const catalog::Attrs a = File(1);
  EXPECT_TRUE(Match("path == /fs/*.tar", "/fs/x.tar", a));
  EXPECT_FALSE(Match("path == /fs/*.tar", "/fs/d/x.tar", a));
  EXPECT_TRUE(Match("path == '/fs/**/tmp/**'", "/fs/a/b/tmp/c/d", a));
  EXPECT_TRUE(Match("name == '*.tmp'", "/fs/d/x.tmp", a));
  EXPECT_FALSE(Match("name == '*.TMP'", "/fs/d/x.tmp", a));
  EXPECT_TRUE(Match("iname == '*.TMP'", "/fs/d/x.tmp", a));
  EXPECT_TRUE(Match("tree == /scratch/keep", "/scratch/keep", a));
  EXPECT_TRUE(Match("tree == /scratch/keep", "/scratch/keep/a/b", a));
  EXPECT_FALSE(Match("tree == /scratch/keep", "/scratch/keeper", a));
  EXPECT_TRUE(Match("tree != /scratch/keep", "/scratch/other", a));
  EXPECT_TRUE(Match("tree == '/home/*/.cache'", "/home/ann/.cache/x", a));
}

TEST(ConditionMatchTest, OwnersGroupsAndNames) {
  const catalog::Attrs root = File(1, 0), other = File(1, 4242);
  EXPECT_TRUE(Match("owner == root", "/f", root));  // looked up in the account database
  EXPECT_FALSE(Match("owner == root", "/f", other));
  EXPECT_TRUE(Match("owner == 4242", "/f", other));
  EXPECT_TRUE(Match("owner != root", "/f", other));
  EXPECT_FALSE(Match("owner == no-such-user-here", "/f", other));
  EXPECT_TRUE(Match("owner != no-such-user-here", "/f", other));
  Subject named;
  named.user_name = [](uint32_t uid) -> std::optional<std::string> {
    return uid == 4242 ? std::optional<std::string>("adm-ann") : std::nullopt;
  };
  EXPECT_TRUE(Match("owner == 'adm-*'", "/f", other, named));
  EXPECT_FALSE(Match("owner == 'adm-*'", "/f", root, named));
  EXPECT_TRUE(Match("group == 100", "/f", root));
}

TEST(ConditionMatchTest, LustreClassesAndExtendedAttributes) {
  catalog::Attrs striped = File(1);
  striped.lustre = catalog::LustreInfo{"[0x200000400:0x1:0x0]", 1, 2, 1048576, "fast", {3, 7}};
  const catalog::Attrs plain = File(1);
  EXPECT_TRUE(Match("ost_index == 7 and ost_pool == 'fa*' and mdt_index == 1", "/f", striped));
  EXPECT_TRUE(Match("ost_index != 4", "/f", striped));
  EXPECT_FALSE(Match("ost_index == 7 or ost_pool == '*' or mdt_index >= 0", "/f", plain));
  Subject s;
  s.in_class = [](std::string_view c) { return c == "big"; };
  s.xattr = [](std::string_view name) -> std::optional<std::string> {
    return name == "user.project" ? std::optional<std::string>("p-17") : std::nullopt;
  };
  EXPECT_TRUE(Match("fileclass == big and xattr.user.project == 'p-1*'", "/f", plain, s));
  EXPECT_TRUE(Match("fileclass != small and xattr.user.other != x", "/f", plain, s));
}

TEST(ConditionMatchTest, NarrowGivesTheTopLevelConjunctionsIndexedBounds) {
  auto c = Condition::Parse("owner == root and size >= 1M and size < 1G and last_mod > 30d and type == file "
                            "and name == '*.h5' and (group == 100 or nlink > 1)");
  ASSERT_TRUE(c.ok()) << c.status().message();
  catalog::Selection sel;
  c->Narrow(sel, kNow);
  EXPECT_EQ(sel.uid, 0u);
  EXPECT_EQ(sel.gid, std::nullopt);  // inside an or
  EXPECT_EQ(sel.min_size, 1048576);
  EXPECT_EQ(sel.max_size, (int64_t{1} << 30) - 1);
  EXPECT_EQ(sel.min_mtime_ns, std::nullopt);
  EXPECT_EQ(sel.max_mtime_ns, kNow - 30 * kDay - 1);
  EXPECT_EQ(sel.type, static_cast<uint32_t>(S_IFREG));
  ASSERT_EQ(sel.name_tests.size(), 1u);
  EXPECT_TRUE(sel.name_tests[0]("run.h5"));
  EXPECT_FALSE(sel.name_tests[0]("run.h5.bak"));
  catalog::Selection none;
  ASSERT_TRUE(Condition::Parse("not size > 1 or last_mod < 1d").ok());
  Condition::Parse("not size > 1 or last_mod < 1d")->Narrow(none, kNow);
  EXPECT_FALSE(none.min_size || none.max_size || none.min_mtime_ns || none.max_mtime_ns);
  catalog::Selection recent;
  Condition::Parse("last_mod <= 7d")->Narrow(recent, kNow);
  EXPECT_EQ(recent.min_mtime_ns, kNow - 7 * kDay);
}

TEST(ConditionMatchTest, ClassesAndAttributesNamedAreListedOnce) {
  auto c = Condition::Parse("fileclass == a or (fileclass == b and not fileclass == a) or xattr.user.x == 1");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->Fileclasses(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(c->Xattrs(), std::vector<std::string>{"user.x"});
}

}  // namespace
}  // namespace fathom::condition

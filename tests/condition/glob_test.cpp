// The condition language's globs: against glibc's fnmatch(3) on generated patterns and texts
// (names without flags, paths with FNM_PATHNAME), and `**` across directories by hand.
#include "condition/glob.h"

#include <fnmatch.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace fathom::condition {
namespace {

std::string RandomPattern(std::mt19937& rng, bool path) {
  static const std::vector<std::string> kPieces = {"a", "b", ".", "*", "?", "[ab]", "[!a]", "[a-c]", "\\*", "/"};
  std::string p;
  const int n = std::uniform_int_distribution<int>(0, 7)(rng);
  for (int i = 0; i < n; ++i) {
    std::string piece = kPieces[std::uniform_int_distribution<size_t>(0, kPieces.size() - 1)(rng)];
    if (!path && piece == "/") continue;
    if (piece == "*" && !p.empty() && p.back() == '*' && !p.ends_with("\\*")) continue;  // no "**"
    p += piece;
  }
  return p;
}

std::string RandomText(std::mt19937& rng, bool path) {
  static const std::string kChars = "ab./*c";
  std::string t;
  const int n = std::uniform_int_distribution<int>(0, 8)(rng);
  for (int i = 0; i < n; ++i) {
    char c = kChars[std::uniform_int_distribution<size_t>(0, kChars.size() - 1)(rng)];
    if (!path && c == '/') c = 'a';
    t.push_back(c);
  }
  return t;
}

TEST(GlobTest, NamesAndPathsMatchWhatFnmatchMatches) {
  std::mt19937 rng(20261124);
  int matched = 0;
  for (int round = 0; round < 40000; ++round) {
    const bool path = round % 2 == 1;
    const std::string pattern = RandomPattern(rng, path);
    const std::string text = RandomText(rng, path);
    const bool expected = fnmatch(pattern.c_str(), text.c_str(), path ? FNM_PATHNAME : 0) == 0;
    const Glob glob = Glob::Compile(pattern, path ? Glob::Mode::kPath : Glob::Mode::kName);
    ASSERT_EQ(glob.Matches(text), expected) << "pattern '" << pattern << "' text '" << text << "'";
    matched += expected ? 1 : 0;
  }
  EXPECT_GT(matched, 2000);  // the generator reaches both answers
}

TEST(GlobTest, TwoStarsCrossDirectoriesAndMayStandForNone) {
  const Glob g = Glob::Compile("/fs/**/tmp/*.o", Glob::Mode::kPath);
  EXPECT_TRUE(g.Matches("/fs/tmp/a.o"));
  EXPECT_TRUE(g.Matches("/fs/x/tmp/a.o"));
  EXPECT_TRUE(g.Matches("/fs/x/y/z/tmp/a.o"));
  EXPECT_FALSE(g.Matches("/fs/tmp/x/a.o"));
  EXPECT_FALSE(g.Matches("/fsx/tmp/a.o"));
  const Glob tail = Glob::Compile("/fs/**", Glob::Mode::kPath);
  EXPECT_TRUE(tail.Matches("/fs/a/b/c"));
  EXPECT_TRUE(tail.Matches("/fs/"));
  EXPECT_FALSE(tail.Matches("/fs"));
  const Glob lead = Glob::Compile("**/core", Glob::Mode::kPath);
  EXPECT_TRUE(lead.Matches("core"));
  EXPECT_TRUE(lead.Matches("/a/b/core"));
  EXPECT_FALSE(lead.Matches("/a/b/core.1"));
  const Glob inside = Glob::Compile("/a/x**y", Glob::Mode::kPath);  // not a whole component
  EXPECT_TRUE(inside.Matches("/a/x/b/y"));
  EXPECT_FALSE(inside.Matches("/a/"));
  const Glob one = Glob::Compile("/fs/*.tar", Glob::Mode::kPath);
  EXPECT_TRUE(one.Matches("/fs/a.tar"));
  EXPECT_FALSE(one.Matches("/fs/d/a.tar"));
}

TEST(GlobTest, ClassesCaseAndLiterals) {
  EXPECT_TRUE(Glob::Compile("*.H5", Glob::Mode::kName, true).Matches("run.h5"));
  EXPECT_FALSE(Glob::Compile("*.H5", Glob::Mode::kName).Matches("run.h5"));
  EXPECT_TRUE(Glob::Compile("[A-C]x", Glob::Mode::kName, true).Matches("bx"));
  EXPECT_TRUE(Glob::Compile("[]]", Glob::Mode::kName).Matches("]"));
  EXPECT_TRUE(Glob::Compile("[ab", Glob::Mode::kName).Matches("[ab"));  // unclosed: literal
  EXPECT_TRUE(Glob::Compile("a\\*", Glob::Mode::kName).literal());
  EXPECT_FALSE(Glob::Compile("a*", Glob::Mode::kName).literal());
  EXPECT_FALSE(Glob::Compile("/a/[/]", Glob::Mode::kPath).Matches("/a//"));
}

TEST(GlobTest, ManyStarsOnALongTextStayLinear) {
  const Glob g = Glob::Compile(std::string(200, '*').insert(100, "?") + "b", Glob::Mode::kName);
  EXPECT_FALSE(g.Matches(std::string(20000, 'a')));
  EXPECT_TRUE(g.Matches(std::string(20000, 'a') + "b"));
}

}  // namespace
}  // namespace fathom::condition

// RuleIndex against the plain answer (every rule's kinds, globs and ignore globs tried one by
// one) on generated rules and events, and its explanations; the literal directories of globs;
// conditions with and without attributes.
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "condition/glob.h"
#include "fathom/rules.h"
#include "rules/trigger_condition.h"

namespace fathom::rules {
namespace {

using condition::Glob;

Event At(std::string path, uint32_t mask) {
  Event e;
  e.path = std::move(path);
  e.mask = mask;
  e.root = "/";
  return e;
}

// The answer without an index.
std::vector<size_t> Plain(const std::vector<Trigger>& triggers, const Event& e) {
  std::vector<size_t> out;
  for (size_t i = 0; i < triggers.size(); ++i) {
    const Trigger& t = triggers[i];
    if ((t.kinds & e.mask & kind::kAll) == 0) continue;
    auto any = [&](const std::vector<std::string>& globs) {
      for (const std::string& g : globs) {
        if (Glob::Compile(g, Glob::Mode::kPath).Matches(e.path)) return true;
      }
      return false;
    };
    if (!t.paths.empty() && !any(t.paths)) continue;
    if (any(t.ignore)) continue;
    out.push_back(i);
  }
  return out;
}

std::vector<const Trigger*> Pointers(const std::vector<Trigger>& triggers) {
  std::vector<const Trigger*> out;
  for (const Trigger& t : triggers) out.push_back(&t);
  return out;
}

TEST(LiteralDirectoryTest, IsTheDirectoryBeforeTheFirstWildcard) {
  EXPECT_EQ(LiteralDirectory("/lab/raw/**.h5"), "/lab/raw");
  EXPECT_EQ(LiteralDirectory("/lab/r*/x"), "/lab");
  EXPECT_EQ(LiteralDirectory("/lab/raw/run?.h5"), "/lab/raw");
  EXPECT_EQ(LiteralDirectory("/lab/[ab]/x"), "/lab");
  EXPECT_EQ(LiteralDirectory("/*.h5"), "/");
  EXPECT_EQ(LiteralDirectory("**/*.h5"), "");
  EXPECT_EQ(LiteralDirectory("/lab/raw/file.h5"), "/lab/raw/file.h5");
  EXPECT_EQ(LiteralDirectory("/lab/raw/"), "/lab/raw");
  EXPECT_EQ(LiteralDirectory("/lab/a\\*b/*"), "/lab/a*b");
}

TEST(CheckPathGlobTest, RelativeGlobsAreRefusedWithTheFix) {
  EXPECT_TRUE(CheckPathGlob("/lab/**").ok());
  EXPECT_TRUE(CheckPathGlob("**/*.h5").ok());
  EXPECT_EQ(CheckPathGlob("*.h5").message(),
            "path glob '*.h5' is relative: events carry absolute paths; write /DIR/*.h5 or **/*.h5");
  EXPECT_EQ(CheckPathGlob("").message(), "an empty path glob: give an absolute glob, e.g. /lab/raw/**.h5");
}

TEST(RuleIndexTest, TakesWhatEachRuleSaysOnTheIssuesExamples) {
  std::vector<Trigger> t(3);
  t[0].kinds = kind::kCloseWrite | kind::kMovedTo;
  t[0].paths = {"/lab/raw/**.h5"};
  t[1].kinds = kind::kCreate;
  t[1].paths = {"/lab/raw/**"};
  t[1].ignore = {"**/*.tmp"};
  t[2].kinds = kind::kDelete;  // every path
  RuleIndex index(Pointers(t));
  auto take = [&](const std::string& path, uint32_t mask) {
    std::vector<size_t> out;
    index.Candidates(At(path, mask), out);
    return out;
  };
  EXPECT_EQ(take("/lab/raw/run1/a.h5", kind::kCloseWrite), std::vector<size_t>{0});
  EXPECT_EQ(take("/lab/raw/a.h5", kind::kMovedTo), std::vector<size_t>{0});
  EXPECT_EQ(take("/lab/raw/a.h5", kind::kCreate), std::vector<size_t>{1});
  EXPECT_EQ(take("/lab/raw/a.tmp", kind::kCreate), std::vector<size_t>{});
  EXPECT_EQ(take("/lab/raw/d", kind::kCreate | kind::kIsDir), std::vector<size_t>{1});
  EXPECT_EQ(take("/lab/other/a.h5", kind::kCloseWrite), std::vector<size_t>{});
  EXPECT_EQ(take("/anywhere/x", kind::kDelete), std::vector<size_t>{2});
  EXPECT_EQ(index.Explain(0, At("/lab/raw/a.h5", kind::kCreate)), "kinds CREATE not in CLOSE_WRITE,MOVED_TO");
  EXPECT_EQ(index.Explain(0, At("/lab/x/a.h5", kind::kCloseWrite)), "path /lab/x/a.h5 matches no glob of /lab/raw/**.h5");
  EXPECT_EQ(index.Explain(1, At("/lab/raw/a.tmp", kind::kCreate)), "ignored by glob **/*.tmp");
  EXPECT_EQ(index.Explain(0, At("/lab/raw/a.h5", kind::kCloseWrite)), "");
}

// Generated rules and events: the index takes exactly what trying every rule takes.
class RuleIndexDifferential : public ::testing::TestWithParam<uint32_t> {};

TEST_P(RuleIndexDifferential, TakesExactlyWhatTryingEveryRuleTakes) {
  std::mt19937 rng(GetParam());
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  const std::vector<std::string> names = {"a", "b", "lab", "raw", "x.h5", "y.tmp", "run1", "z.done"};
  const std::vector<std::string> parts = {"a", "b", "lab", "raw", "*", "**", "*.h5", "?", "[ab]", "x.h5", "run*", "**.h5"};
  const uint32_t kinds[] = {kind::kCreate, kind::kCloseWrite, kind::kMovedTo, kind::kDelete, kind::kModify,
                            kind::kAttrib};
  auto glob = [&] {
    std::string g = pick(5) == 0 ? "**" : "";
    const size_t depth = 1 + pick(4);
    for (size_t i = 0; i < depth; ++i) g += "/" + parts[pick(parts.size())];
    return g;
  };
  std::vector<Trigger> triggers(200);
  for (Trigger& t : triggers) {
    t.kinds = 0;
    for (int k = 0; k < 2; ++k) t.kinds |= kinds[pick(6)];
    const size_t n = pick(4);  // 0: every path
    for (size_t i = 0; i < n; ++i) t.paths.push_back(glob());
    if (pick(4) == 0) t.ignore.push_back(glob());
  }
  RuleIndex index(Pointers(triggers));
  size_t taken = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string path;
    const size_t depth = 1 + pick(5);
    for (size_t d = 0; d < depth; ++d) path += "/" + names[pick(names.size())];
    const Event e = At(path, kinds[pick(6)] | (pick(3) == 0 ? kind::kIsDir : 0u));
    std::vector<size_t> got;
    index.Candidates(e, got);
    const std::vector<size_t> want = Plain(triggers, e);
    ASSERT_EQ(got, want) << path << " " << KindNames(e.mask);
    for (size_t r = 0; r < triggers.size(); ++r) {
      const bool takes = std::binary_search(want.begin(), want.end(), r);
      ASSERT_EQ(index.Explain(r, e).empty(), takes) << r << " " << path << ": " << index.Explain(r, e);
    }
    taken += got.size();
  }
  EXPECT_GT(taken, 1000u) << "the generated rules take events";
}

INSTANTIATE_TEST_SUITE_P(Seeds, RuleIndexDifferential, ::testing::Values(1u, 2u, 3u, 4u, 5u));

TEST(MatchesConditionTest, AttributesAreReadOnlyWhenTheConditionNeedsThem) {
  NameCache names;
  const int64_t now = NowNs();
  Trigger on_path;
  on_path.condition = condition::Condition::Parse("name == '*.h5' and not path == /lab/raw/skip/**").value();
  std::string why;
  EXPECT_TRUE(MatchesCondition(on_path, At("/lab/raw/a.h5", kind::kDelete), nullptr, names, now, &why));
  EXPECT_FALSE(MatchesCondition(on_path, At("/lab/raw/skip/a.h5", kind::kDelete), nullptr, names, now, &why));
  EXPECT_EQ(why, "condition " + on_path.condition->ToString() + " does not hold");

  Trigger on_size;
  on_size.condition = condition::Condition::Parse("size > 1K and owner == 0").value();
  on_size.attributes = AttributeSource::kLive;
  catalog::Attrs big;
  big.mode = 0100644;
  big.size = 4096;
  big.uid = 0;
  EXPECT_TRUE(MatchesCondition(on_size, At("/x", kind::kCloseWrite), &big, names, now, &why));
  big.size = 10;
  EXPECT_FALSE(MatchesCondition(on_size, At("/x", kind::kCloseWrite), &big, names, now, &why));
  EXPECT_FALSE(MatchesCondition(on_size, At("/x", kind::kCloseWrite), nullptr, names, now, &why));
  EXPECT_EQ(why, "the entry's attributes could not be read (live): it is gone");
  on_size.attributes = AttributeSource::kNone;
  EXPECT_FALSE(MatchesCondition(on_size, At("/x", kind::kCloseWrite), nullptr, names, now, &why));
  EXPECT_EQ(why, "the condition needs the entry's attributes and the rule reads none");
  EXPECT_TRUE(MatchesCondition(Trigger{}, At("/x", kind::kCloseWrite), nullptr, names, now, &why));
}

}  // namespace
}  // namespace fathom::rules

// The --include/--exclude glob rules (src/filter/path_glob.h), as a table of patterns × paths.
#include "filter/path_glob.h"

#include <gtest/gtest.h>

namespace fathom::filter_internal {
namespace {

struct Case {
  const char* pattern;
  const char* relative;
  bool is_dir;
  bool matches;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << "'" << c.pattern << "' vs '" << c.relative << "'" << (c.is_dir ? " (dir)" : "");
}

class PathGlobTable : public ::testing::TestWithParam<Case> {};

TEST_P(PathGlobTable, MatchesTheRootRelativePathAsDocumented) {
  const Case& c = GetParam();
  EXPECT_EQ(PathGlob(c.pattern).Matches(c.relative, c.is_dir), c.matches);
}

INSTANTIATE_TEST_SUITE_P(
    Rules, PathGlobTable,
    ::testing::Values(
        // Without '/': the name of any component, at any depth.
        Case{"*.tmp", "a.tmp", false, true}, Case{"*.tmp", "sub/deep/b.tmp", false, true},
        Case{"*.tmp", "a.tmp.keep", false, false}, Case{"*.tmp", "x.tmp/inner", false, true},
        Case{"build", "build", true, true}, Case{"build", "src/build/out.o", false, true},
        Case{"build", "rebuild", false, false}, Case{"b?ild", "x/build", true, true},
        Case{"[ab].c", "dir/b.c", false, true}, Case{"[!ab].c", "dir/b.c", false, false},
        Case{"[a-c]x", "bx", false, true}, Case{"[a-c]x", "dx", false, false},
        // With '/': anchored at the root, against the root-relative path.
        Case{"sub/*", "sub/a", false, true}, Case{"sub/*", "sub/a/b", false, true},
        Case{"sub/*", "sub", true, false}, Case{"sub/*", "x/sub/a", false, false},
        Case{"/top.txt", "top.txt", false, true}, Case{"/top.txt", "d/top.txt", false, false},
        Case{"sub/*.c", "sub/x/y.c", false, false}, Case{"a/b", "a/b/c/d", false, true},
        Case{"a/b", "a/bc", false, false},
        // '**' crosses directories; '**/' may stand for none.
        Case{"src/**/*.c", "src/x.c", false, true}, Case{"src/**/*.c", "src/a/b/x.c", false, true},
        Case{"src/**/*.c", "lib/x.c", false, false}, Case{"**/cache", "a/b/cache", true, true},
        Case{"**/cache", "cache", true, true}, Case{"src/**", "src/a/b", false, true},
        Case{"x/a**z", "x/a/b/z", false, true}, Case{"a**z", "a/b/z", false, false},
        // A trailing '/': directories only (ancestors always are).
        Case{"cache/", "cache", true, true}, Case{"cache/", "cache", false, false},
        Case{"cache/", "x/cache/f", false, true}, Case{"sub/cache/", "sub/cache", false, false},
        Case{"sub/cache/", "sub/cache/f", false, true},
        // Quoting.
        Case{"\\*", "*", false, true}, Case{"\\*", "a", false, false},
        // The root itself matches nothing.
        Case{"*", "", true, false}));

}  // namespace
}  // namespace fathom::filter_internal

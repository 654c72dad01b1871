// find's command line: what is accepted, and the exact message for what is not (each names
// the option, the cause and the fix, in GNU find's spirit).
#include <sys/stat.h>

#include <sstream>

#include <gtest/gtest.h>

#include "catalog/find/find.h"
#include "catalog/find/scanned_catalog.h"
#include "catalog/find/mode.h"
#include "catalog/find/parser.h"
#include "support/temp_dir.h"

namespace fathom::catalog::find_testing {
namespace {

struct Outcome {
  int exit_code;
  std::string out;
  std::string err;
};

Outcome RunFindIn(const std::vector<std::string>& args) {
  testing::TempDir dir;
  ScannedCatalog catalog(dir.path());
  std::ostringstream out, err;
  find::RunOptions options;
  options.cwd = dir.path();
  int rc = find::RunFind(args, catalog, out, err, options);
  return {rc, out.str(), err.str()};
}

struct BadCase {
  std::vector<std::string> args;
  std::string message;
};

class RejectedCommandLine : public ::testing::TestWithParam<BadCase> {};

TEST_P(RejectedCommandLine, FailsBeforeRunningWithAMessageNamingCauseAndFix) {
  Outcome o = RunFindIn(GetParam().args);
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(o.err, "fathom find: " + GetParam().message + "\n");
}

INSTANTIATE_TEST_SUITE_P(
    Messages, RejectedCommandLine,
    ::testing::Values(
        BadCase{{".", "-size", "12Q"}, "-size: \"12Q\" is not a size (use N[cwbkMG])"},
        BadCase{{".", "-size", "+"}, "-size: \"+\" is not a size (use N[cwbkMG])"},
        BadCase{{".", "-size"}, "missing argument to -size"},
        BadCase{{".", "-frobnicate"}, "unknown predicate \"-frobnicate\" (a starting point that begins with - must be written ./-frobnicate)"},
        BadCase{{".", "--name", "x"}, "unknown predicate \"--name\" (GNU find's tests and actions take one dash, e.g. -name)"},
        BadCase{{".", "(", "-name", "x"}, "unbalanced parentheses: \"(\" without a matching \")\""},
        BadCase{{".", "-name", "x", ")"}, "unbalanced parentheses: \")\" without a matching \"(\""},
        BadCase{{".", "(", ")"}, "empty parentheses: \"( )\" holds no expression"},
        BadCase{{".", "-name", "x", "-o"}, "expected an expression after -o"},
        BadCase{{".", "-a", "-name", "x"}, "expected an expression before -a"},
        BadCase{{".", "!"}, "expected an expression after !"},
        BadCase{{".", "-name", "x", "y"}, "paths must precede the expression: \"y\" (write the starting points first)"},
        BadCase{{".", "-perm", "u=q"}, "-perm: invalid mode \"u=q\" (use octal like 644, or symbolic like u=rwx,g+w,o-x; prefix - for all of these bits, / for any of them)"},
        BadCase{{".", "-perm", "8"}, "-perm: invalid mode \"8\" (use octal like 644, or symbolic like u=rwx,g+w,o-x; prefix - for all of these bits, / for any of them)"},
        BadCase{{".", "-perm", "+222"}, "-perm: invalid mode \"+222\" (use octal like 644, or symbolic like u=rwx,g+w,o-x; prefix - for all of these bits, / for any of them)"},
        BadCase{{".", "-regex", "a\\(b"}, "-regex: invalid regular expression \"a\\(b\": Unmatched ( or \\("},
        BadCase{{".", "-regex", "(a*){3000}"}, "-regex: \"(a*){3000}\" expands to more than 2048 positions once its repetitions are copied out (glibc's regex compiler needs memory growing with the square of them); use smaller repetition counts"},
        BadCase{{".", "-regex", "(e|]+++++)"}, "-regex: \"(e|]+++++)\" has more than 4 repetition operators in a row (glibc's regex compiler would need time exponential in them; write one)"},
        BadCase{{".", "-regex", "a?+?+?+?+?+?+?+?+"}, "-regex: \"a?+?+?+?+?+?+?+?+\" has more than 4 repetition operators in a row (glibc's regex compiler would need time exponential in them; write one)"},
        // An unclosed '{' is a literal: the run after it still counts.
        BadCase{{".", "-regex", ".{/.+++++"}, "-regex: \".{/.+++++\" has more than 4 repetition operators in a row (glibc's regex compiler would need time exponential in them; write one)"},
        BadCase{{".", "-regex", "(a{50}){50}"}, "-regex: \"(a{50}){50}\" expands to more than 2048 positions once its repetitions are copied out (glibc's regex compiler needs memory growing with the square of them); use smaller repetition counts"},
        BadCase{{".", "-regextype", "posix-basic", "-regex", "\\(.\\{50\\}\\)\\{50\\}"}, "-regex: \"\\(.\\{50\\}\\)\\{50\\}\" expands to more than 2048 positions once its repetitions are copied out (glibc's regex compiler needs memory growing with the square of them); use smaller repetition counts"},
        BadCase{{".", "-regex", std::string(257, '(') + "a" + std::string(257, ')')}, "-regex: \"" + std::string(257, '(') + "a" + std::string(257, ')') + "\" nests groups more than 256 deep (glibc's regex compiler would overflow its stack)"},
        BadCase{{".", "-regextype", "perl"}, "-regextype: unknown regular expression type \"perl\" (use findutils-default, emacs, posix-basic, posix-extended, posix-egrep, egrep, posix-awk, awk, gnu-awk, grep, sed, ed or posix-minimal-basic)"},
        BadCase{{".", "-user", "no-such-user-xyz"}, "-user: \"no-such-user-xyz\" is not the name of a known user (use a name from /etc/passwd or a numeric id)"},
        BadCase{{".", "-group", "no-such-group-xyz"}, "-group: \"no-such-group-xyz\" is not the name of a known group (use a name from /etc/group or a numeric id)"},
        BadCase{{".", "-type", "q"}, "-type: \"q\" is not a type (use b, c, d, p, f, l, s or D, or a comma-separated list of them like f,d)"},
        BadCase{{".", "-type", "f,"}, "-type: \"f,\" is not a type (use b, c, d, p, f, l, s or D, or a comma-separated list of them like f,d)"},
        BadCase{{".", "-type", "fd"}, "-type: \"fd\" is not a type (use b, c, d, p, f, l, s or D, or a comma-separated list of them like f,d)"},
        BadCase{{".", "-type", "f,f"}, "-type: type \"f\" is given twice in \"f,f\""},
        BadCase{{".", "-mtime", "1x"}, "-mtime: \"1x\" is not a number of days (use N, +N or -N)"},
        BadCase{{".", "-mmin", ""}, "-mmin: \"\" is not a number of minutes (use N, +N or -N)"},
        BadCase{{".", "-uid", "root"}, "-uid: \"root\" is not a number (use N, +N or -N)"},
        BadCase{{".", "-maxdepth", "-1"}, "-maxdepth: \"-1\" is not a non-negative whole number"},
        BadCase{{".", "-newerBt", "2024-01-01"}, "-newerBt: birth times are not kept in the catalog (use a, c or m)"},
        BadCase{{".", "-newerxt", "2024-01-01"}, "unknown predicate \"-newerxt\" (use -newerXY with X in a, c, m and Y in a, c, m, t)"},
        BadCase{{".", "-newermt", "yesterday"}, "-newermt: cannot read the date \"yesterday\" (use YYYY-MM-DD, YYYY-MM-DD HH:MM[:SS[.N]] with an optional Z or +HH:MM, or @SECONDS)"},
        BadCase{{".", "-newermt", "2024-02-30"}, "-newermt: cannot read the date \"2024-02-30\" (use YYYY-MM-DD, YYYY-MM-DD HH:MM[:SS[.N]] with an optional Z or +HH:MM, or @SECONDS)"},
        BadCase{{".", "-newermt", "9999-12-31"}, "-newermt: the date \"9999-12-31\" is out of range (times are kept in nanoseconds: years 1678 to 2261)"},
        BadCase{{".", "-newer", "no-such-file"}, "-newer: 'no-such-file': not in the catalog nor on the file system (No such file or directory)"},
        BadCase{{".", "-exec", "echo", "{}"}, "-exec: missing \";\" or \"+\" at the end of the command (write \\; in a shell)"},
        BadCase{{".", "-exec", ";"}, "-exec: missing command"},
        BadCase{{".", "-ok", "echo", "{}", "+"}, "-ok: the \"{} +\" form is not allowed (use \\; to ask once per file)"},
        BadCase{{".", "-exec", "echo", "{}", "{}", "+"}, "-exec: only one \"{}\" is allowed with \"+\", right before it"},
        BadCase{{".", "-printf", "100%"}, "-printf: \"%\" at the end of the format (write %% for a percent sign)"},
        BadCase{{".", "-printf", "%99999s"}, "-printf: the field width or precision \"99999\" is too large (at most 4096)"},
        BadCase{{".", "-printf", "%1.5000p"}, "-printf: the field width or precision \"5000\" is too large (at most 4096)"},
        BadCase{{".", "-printf", "%F"}, "-printf: %F (file-system type) is not kept in the catalog"},
        BadCase{{".", "-printf", "%T"}, "-printf: %T needs a time letter after it (e.g. %T@ or %TY)"},
        BadCase{{".", "-follow"}, "-follow: following symbolic links is not supported by the catalog (drop -follow)"},
        BadCase{{".", "-prune", "-delete"}, "-delete turns on -depth, and -prune does nothing with -depth (give -depth explicitly to go on anyway, or drop -prune)"},
        BadCase{{".", "-sort", "colour"}, "-sort: unknown field \"colour\" (use name, path, size, mtime, atime, ctime, uid or gid)"},
        BadCase{{".", "-sort", "size", "-quit"}, "-sort and -rsort cannot be combined with -prune or -quit (they need the walk's order); drop one of them"},
        BadCase{{".", "-fprint", "/no-such-dir/out"}, "-fprint: cannot open \"/no-such-dir/out\" for writing: No such file or directory"}));

TEST(FindParser, UnknownPrintfDirectivesAndEscapesWarnAsGnuAndPrintAsWritten) {
  Outcome o = RunFindIn({".", "-maxdepth", "0", "-printf", "%Q|\\q|%%\\n"});
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_EQ(o.out, "%Q|\\q|%\n");
  EXPECT_EQ(o.err,
            "fathom find: warning: unrecognized format directive `%Q'\n"
            "fathom find: warning: unrecognized escape `\\q'\n");
}

TEST(FindParser, RegularExpressionsWithinTheLimitsCompile) {
  NameCache names;
  find::ParseEnvironment env;
  env.names = &names;
  std::vector<std::string> warnings;
  for (const std::string& pattern :
       {std::string(".*/[0-9]{8}/.*\\.h5"), std::string("(a*){600}"), std::string(".++++t?++"),
        std::string("[[:alpha:]]{2000}"), std::string(256, '(') + "a" + std::string(256, ')')}) {
    auto expr = find::Parse({".", "-regextype", "posix-extended", "-regex", pattern}, env, &warnings);
    EXPECT_TRUE(expr.ok()) << pattern << ": " << expr.status().message();
  }
}

TEST(FindParser, StartingPointsEndAtTheFirstExpressionToken) {
  NameCache names;
  find::ParseEnvironment env;
  env.names = &names;
  std::vector<std::string> warnings;
  auto expr = find::Parse({"a", "b c", "!", "-name", "x"}, env, &warnings);
  ASSERT_TRUE(expr.ok()) << expr.status().message();
  EXPECT_EQ(expr->starts, (std::vector<std::string>{"a", "b c"}));
  auto none = find::Parse({"-name", "x"}, env, &warnings);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->starts, (std::vector<std::string>{"."}));
  auto paren = find::Parse({"(", "-true", ")"}, env, &warnings);
  ASSERT_TRUE(paren.ok());
  EXPECT_EQ(paren->starts, (std::vector<std::string>{"."}));
}

TEST(FindParser, GlobalOptionsAndExtrasAreRecorded) {
  NameCache names;
  find::ParseEnvironment env;
  env.names = &names;
  std::vector<std::string> warnings;
  auto expr = find::Parse({".", "-maxdepth", "3", "-mindepth", "1", "-xdev", "-count", "-rsort", "mtime", "-limit", "5"},
                          env, &warnings);
  ASSERT_TRUE(expr.ok()) << expr.status().message();
  EXPECT_EQ(expr->options.max_depth, 3);
  EXPECT_EQ(expr->options.min_depth, 1);
  EXPECT_TRUE(expr->options.xdev);
  EXPECT_TRUE(expr->options.count);
  EXPECT_EQ(expr->options.sort, find::SortField::kMtime);
  EXPECT_TRUE(expr->options.reverse);
  EXPECT_EQ(expr->options.limit, 5u);
  EXPECT_FALSE(expr->options.depth_first);
  auto del = find::Parse({".", "-name", "x", "-delete"}, env, &warnings);
  ASSERT_TRUE(del.ok());
  EXPECT_TRUE(del->options.depth_first) << "-delete implies -depth";
}

struct PermCase {
  const char* arg;
  find::PermSpec::Kind kind;
  uint32_t file_bits;
  uint32_t dir_bits;
};

class PermForms : public ::testing::TestWithParam<PermCase> {};

TEST_P(PermForms, ParseToGnuFindsBits) {
  auto spec = find::ParsePerm(GetParam().arg);
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(spec->kind, GetParam().kind);
  EXPECT_EQ(spec->file_bits, GetParam().file_bits) << std::oct << spec->file_bits;
  EXPECT_EQ(spec->dir_bits, GetParam().dir_bits) << std::oct << spec->dir_bits;
}

using K = find::PermSpec::Kind;
INSTANTIATE_TEST_SUITE_P(
    Table, PermForms,
    ::testing::Values(PermCase{"644", K::kExact, 0644, 0644}, PermCase{"-4000", K::kAll, 04000, 04000},
                      PermCase{"/0", K::kAny, 0, 0}, PermCase{"u=rwx,g+w", K::kExact, 0720, 0720},
                      PermCase{"-go+r", K::kAll, 0044, 0044}, PermCase{"a=r", K::kExact, 0444, 0444},
                      PermCase{"=w", K::kExact, 0222, 0222}, PermCase{"/u+s,g+s", K::kAny, 06000, 06000},
                      PermCase{"+t", K::kExact, 01000, 01000}, PermCase{"u+t", K::kExact, 0, 0},
                      PermCase{"a+X", K::kExact, 0, 0111}, PermCase{"u=x,a+X", K::kExact, 0111, 0111},
                      PermCase{"u=rw,go=u", K::kExact, 0666, 0666}, PermCase{"u=rwx,go=u-w", K::kExact, 0755, 0755},
                      PermCase{"u=rwx,u-x", K::kExact, 0600, 0600}, PermCase{"o=s", K::kExact, 0, 0}));

TEST(FindParser, ModeStringsAreLsStrings) {
  EXPECT_EQ(find::ModeString(S_IFREG | 0644), "-rw-r--r--");
  EXPECT_EQ(find::ModeString(S_IFDIR | 01777), "drwxrwxrwt");
  EXPECT_EQ(find::ModeString(S_IFDIR | 01770), "drwxrwx--T");
  EXPECT_EQ(find::ModeString(S_IFREG | 06755), "-rwsr-sr-x");
  EXPECT_EQ(find::ModeString(S_IFREG | 06644), "-rwSr-Sr--");
  EXPECT_EQ(find::ModeString(S_IFLNK | 0777), "lrwxrwxrwx");
  EXPECT_EQ(find::ModeString(S_IFIFO | 0600), "prw-------");
  EXPECT_EQ(find::ModeString(S_IFSOCK | 0755), "srwxr-xr-x");
}

}  // namespace
}  // namespace fathom::catalog::find_testing

// The command line is the same everywhere: one name per meaning, the same limits refused the
// same way, the store written the same way, fathom's own options anywhere, every program with
// --version. Each case runs the real binary and checks its exit code and message.
#include <gtest/gtest.h>


#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom {
namespace {

using testing::FathomBinary;
testing::RunResult Exec(std::vector<std::string> argv,
                        std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
  return testing::Run(std::move(argv), timeout);
}

struct Refusal {
  std::vector<std::string> args;  // after `fathom`
  std::string message;            // part of stderr
};

class Refused : public ::testing::TestWithParam<Refusal> {};

TEST_P(Refused, ExitsTwoNamingTheProblem) {
  std::vector<std::string> argv{FathomBinary()};
  argv.insert(argv.end(), GetParam().args.begin(), GetParam().args.end());
  auto r = Exec(argv, std::chrono::seconds(20));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(GetParam().message), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    CommandLine, Refused,
    ::testing::Values(
        Refusal{{"watch", "/tmp", "-n", "-1"}, "--max-count: '-1' is not a whole number >= 0"},
        Refusal{{"watch", "/tmp", "-t", "-5"}, "--timeout: '-5' is not a number of seconds >= 0"},
        Refusal{{"watch", "/tmp", "--store", "x.db", "--max-events", "-3"},
                "--max-events: '-3' is not a whole number"},
        Refusal{{"watch", "/tmp", "--store", "x.db", "--max-age", "-1d"}, "bad duration '-1d'"},
        Refusal{{"watch", "/tmp", "-q"}, "without --store nothing would be kept"},
        Refusal{{"watch", "/tmp", "--store", "postgres://db/x"},
                "stores are SQLite files (sqlite:FILE or FILE)"},
        Refusal{{"subscribe", "--from", "tcp://127.0.0.1:1", "--insecure", "-n", "-1"},
                "--max-count: '-1' is not a whole number >= 0"},
        Refusal{{"collect", "/tmp", "--to", "tcp://127.0.0.1:1", "--insecure", "-t", "-2"},
                "--timeout: '-2' is not a number of seconds >= 0"},
        Refusal{{"collect", "/tmp", "--bus", "nats://127.0.0.1:1", "--max-bytes", "-1"},
                "--max-bytes: '-1' is not a whole number >= 0"},
        Refusal{{"collect", "/tmp", "--bus", "nats://127.0.0.1:1", "--replicas", "0"},
                "--replicas"},
        Refusal{{"aggregate", "--listen", "tcp://127.0.0.1:1", "--insecure", "--store",
                 "postgres://db/x"},
                "stores are SQLite files (sqlite:FILE or FILE)"},
        Refusal{{"events", "--store", "x.db", "-n", "-1"},
                "--max-count: '-1' is not a whole number >= 0"},
        Refusal{{"nosuch"}, "unknown command 'nosuch'; the commands are: watch, events, "},
        Refusal{{"-v", "wacth", "/tmp"}, "unknown command 'wacth'"},
        Refusal{{"watch", "/tmp", "--log-level", "loud"}, "--log-level: loud not in"}));

TEST(CommandLine, FathomsOwnOptionsWorkAfterTheSubcommand) {
  testing::TempDir dir;
  auto quiet = Exec({FathomBinary(), "watch", dir.path(), "-t", "0.2", "--log-level", "warn"});
  EXPECT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.err.find("watches established"), std::string::npos) << quiet.err;
  auto chatty = Exec({FathomBinary(), "watch", dir.path(), "-t", "0.2", "-v"});
  EXPECT_EQ(chatty.exit_code, 0) << chatty.err;
  EXPECT_NE(chatty.err.find("watches established"), std::string::npos) << chatty.err;
}

TEST(CommandLine, TheStoreIsWrittenTheSameWayEverywhere) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  auto watch =
      Exec({FathomBinary(), "watch", dir.path(), "--store", "sqlite:" + db, "-q", "-t", "0.2"});
  ASSERT_EQ(watch.exit_code, 0) << watch.err;
  for (const std::string& spec : {db, "sqlite:" + db}) {
    auto events = Exec({FathomBinary(), "events", "--store", spec});
    EXPECT_EQ(events.exit_code, 0) << spec << ": " << events.err;
    auto verify = Exec({FathomBinary(), "store", "verify", spec});
    EXPECT_EQ(verify.exit_code, 0) << spec << ": " << verify.err;
  }
}

TEST(CommandLine, EveryProgramSaysItsVersion) {
  const std::string build = FATHOM_BUILD_DIR;
  for (const std::string& prog :
       {build + "/fathom", build + "/fathomd", build + "/fathom-lustre-sim", build + "/lustre/lfs",
        build + "/lustre/lctl"}) {
    auto r = Exec({prog, "--version"});
    EXPECT_EQ(r.exit_code, 0) << prog << ": " << r.err;
    EXPECT_TRUE(testing::HasVersionNumber(r.out))
        << prog << ": " << r.out;
  }
}

}  // namespace
}  // namespace fathom

// fathomd's configuration: YAML into the command lines of fathom's roles, and its errors.
#include <gtest/gtest.h>

#include <algorithm>

#include "daemon/daemon_config.h"
#include "support/subprocess.h"

namespace fathom::daemon {
namespace {

using Args = std::vector<std::string>;

Result<DaemonConfig> Parse(const std::string& yaml) { return ParseDaemonConfig(yaml, "site.yaml", "/etc/fathom"); }

TEST(DaemonConfig, RolesBecomeCommandLinesWithTheAggregatorFirst) {
  auto config = Parse(R"(
collect:
  - source: lustre:scratch-MDT0000
    mount: /lustre/scratch
    to: tcp://agg:7400
subscribe:
  - from: tcp://agg:7400
    event: [CLOSE_WRITE, MOVED_TO]
    recursive: true
    insecure: false
    output: archive.jsonl
aggregate:
  listen: tcp://*:7400
  store: sqlite:events.db
)");
  ASSERT_TRUE(config.ok()) << config.status().message();
  const auto& roles = config.value().roles;
  ASSERT_EQ(roles.size(), 3u);
  EXPECT_EQ(roles[0].label, "aggregate");
  EXPECT_EQ(roles[0].args, (Args{"aggregate", "--listen", "tcp://*:7400", "--store", "sqlite:events.db"}));
  EXPECT_EQ(roles[1].label, "collect[0]");
  EXPECT_EQ(roles[1].args, (Args{"collect", "--source", "lustre:scratch-MDT0000", "--mount", "/lustre/scratch",
                                 "--to", "tcp://agg:7400"}));
  EXPECT_EQ(roles[2].args, (Args{"subscribe", "--from", "tcp://agg:7400", "--event", "CLOSE_WRITE", "--event",
                                 "MOVED_TO", "--recursive"}));
  EXPECT_EQ(roles[2].output, "archive.jsonl");
  EXPECT_EQ(config.value().directory, "/etc/fathom");
}

TEST(DaemonConfig, CollectorPathsComeLastAfterTheEndOfOptions) {
  auto config = Parse("collect:\n  - paths: [/home/a, /home/b]\n    recursive: true\n    to: tcp://h:1\n");
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(config.value().roles[0].args,
            (Args{"collect", "--recursive", "--to", "tcp://h:1", "--", "/home/a", "/home/b"}));
}

TEST(DaemonConfig, UnknownOptionIsNamedWithItsLineAndTheKnownOnes) {
  auto config = Parse("aggregate:\n  listen: tcp://*:1\n  stroe: sqlite:x.db\n");
  ASSERT_FALSE(config.ok());
  const std::string& m = config.status().message();
  EXPECT_NE(m.find("site.yaml:3"), std::string::npos) << m;
  EXPECT_NE(m.find("unknown option 'stroe' for aggregate"), std::string::npos) << m;
  EXPECT_NE(m.find("store"), std::string::npos) << m;
}

TEST(DaemonConfig, StructuralMistakesAreExplained) {
  EXPECT_NE(Parse("collect:\n  source: /x\n").status().message().find("'collect' must be a list"), std::string::npos);
  EXPECT_NE(Parse("watch:\n  - x: 1\n").status().message().find("unknown section 'watch'"), std::string::npos);
  EXPECT_NE(Parse("aggregate: [1, 2]\n").status().message().find("must be a mapping"), std::string::npos);
  EXPECT_NE(Parse("{}\n").status().message().find("no roles configured"), std::string::npos);
  EXPECT_NE(Parse("aggregate:\n  listen: [a\n").status().message().find("not valid YAML"), std::string::npos);
  EXPECT_NE(Parse("subscribe:\n  - from: {a: 1}\n").status().message().find("must be a value"), std::string::npos);
}

// Every key the configuration accepts is an option of that fathom command.
TEST(DaemonConfig, EveryKeyIsAnOptionOfItsCommand) {
  for (const std::string role : {"aggregate", "collect", "subscribe"}) {
    auto help = testing::Run({testing::FathomBinary(), role, "--help"});
    ASSERT_EQ(help.exit_code, 0) << help.err;
    for (const auto& key : RoleKeys(role)) {
      if (key == "paths" || key == "output") continue;  // PATH arguments, fathomd's redirection
      EXPECT_NE(help.out.find("--" + key), std::string::npos) << role << " has no --" << key;
    }
  }
}

}  // namespace
}  // namespace fathom::daemon

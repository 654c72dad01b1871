// Commands run for real: hostile file names reach argv as exact bytes and nothing in them
// executes; exit 0 / 75 / 3, a time-out and a signal mean what action.h says, with its
// messages (and with permanent_exit_codes, every other failure is retried); the payload
// arrives on stdin; the environment is exactly the documented one; and,
// when the tests run as root, a command runs as another user and uid 0 needs allow_root.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <set>

#include <gtest/gtest.h>

#include "rules/actions/action.h"
#include "rules/actions/action_test_util.h"
#include "support/temp_dir.h"

namespace fathom::rules {
namespace {

using testing::CaptureStderr;
using testing::Delivery;
using testing::ReadAll;

class CommandActionTest : public ::testing::Test {
 protected:
  ActionOutcome Run(std::vector<std::string> argv, int64_t timeout_ns = 10'000'000'000) {
    CommandAction a;
    a.argv = std::move(argv);
    a.timeout_ns = timeout_ns;
    return RunCommandAction(a, Delivery({"/data/a.txt"}));
  }
  fathom::testing::TempDir dir_;
};

TEST_F(CommandActionTest, HostileFileNamesReachArgvUnchangedAndNothingExecutes) {
  std::vector<std::string> paths;
  for (std::string name : testing::HostileNames()) {
    for (size_t at = name.find("PWNED"); at != std::string::npos; at = name.find("PWNED", at + 1)) {
      name.replace(at, 5, dir_ / "pwned");
    }
    paths.push_back(dir_ / name);
  }
  const DeliveryContext c = Delivery(paths, dir_.path());
  CommandAction a;
  // printf's output goes to the runner's stderr, captured here.
  a.argv = {"/usr/bin/printf", "%s\\0", "{path}", "--name={name}", "{paths}"};
  ActionOutcome out;
  const std::string printed = CaptureStderr(dir_ / "stderr", [&] { out = RunCommandAction(a, c); });
  ASSERT_EQ(out.kind, ActionOutcome::kSuccess) << out.message;
  std::string expected = paths.back() + '\0' + "--name={path}" + '\0';
  for (const std::string& p : paths) expected += p + '\0';
  EXPECT_EQ(printed, expected);
  // The same names through a shell's positional parameters: still data, never code.
  a.argv = {"/bin/sh", "-c", "printf '%s\\0' \"$@\" > \"$0\"", dir_ / "out", "{paths}"};
  out = RunCommandAction(a, c);
  ASSERT_EQ(out.kind, ActionOutcome::kSuccess) << out.message;
  std::string all;
  for (const std::string& p : paths) all += p + '\0';
  EXPECT_EQ(ReadAll(dir_ / "out"), all);
  struct stat st {};
  EXPECT_NE(stat((dir_ / "pwned").c_str(), &st), 0);
}

TEST_F(CommandActionTest, ExitCodesTimeOutAndSignalsAreClassifiedWithTheirMessages) {
  ActionOutcome ok = Run({"/bin/sh", "-c", "exit 0"});
  EXPECT_EQ(ok.kind, ActionOutcome::kSuccess);
  EXPECT_EQ(ok.message, "exit 0");
  ActionOutcome tempfail = Run({"/bin/sh", "-c", "exit 75"});
  EXPECT_EQ(tempfail.kind, ActionOutcome::kRetry);
  EXPECT_EQ(tempfail.message, "exit 75");
  EXPECT_EQ(tempfail.retry_after_ns, std::nullopt);
  ActionOutcome failed = Run({"/bin/sh", "-c", "exit 3"});
  EXPECT_EQ(failed.kind, ActionOutcome::kPermanent);
  EXPECT_EQ(failed.message, "exit 3");
  ActionOutcome killed = Run({"/bin/sh", "-c", "kill -9 $$"});
  EXPECT_EQ(killed.kind, ActionOutcome::kPermanent);
  EXPECT_EQ(killed.message, "killed by signal 9");
  // The time limit kills the whole process group: the shell's sleep does not outlive it.
  const auto start = std::chrono::steady_clock::now();
  ActionOutcome late = Run({"/bin/sh", "-c", "sleep 30; exit 0"}, 1'000'000'000);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(late.kind, ActionOutcome::kRetry);
  EXPECT_EQ(late.message, "timed out after 1 s");
  ActionOutcome missing = Run({"no-such-command-of-fathom", "{path}"});
  EXPECT_EQ(missing.kind, ActionOutcome::kPermanent);
  EXPECT_EQ(missing.message, "cannot run no-such-command-of-fathom: No such file or directory");
  // A command found in the minimal PATH; a configured retry code.
  CommandAction a;
  a.argv = {"true"};
  EXPECT_EQ(RunCommandAction(a, Delivery({"/x"})).kind, ActionOutcome::kSuccess);
  a.argv = {"sh", "-c", "exit 3"};
  a.retry_exit_codes = {3};
  EXPECT_EQ(RunCommandAction(a, Delivery({"/x"})).kind, ActionOutcome::kRetry);
  a.argv = {"/bin/echo", "{size}"};
  EXPECT_EQ(RunCommandAction(a, Delivery({"/x"})).kind, ActionOutcome::kPermanent);
}

TEST_F(CommandActionTest, PermanentExitCodesMakeEveryOtherFailureARetry) {
  CommandAction a;
  a.permanent_exit_codes = {3, 64};
  auto exit_with = [&](int code) {
    a.argv = {"/bin/sh", "-c", "exit " + std::to_string(code)};
    return RunCommandAction(a, Delivery({"/x"}));
  };
  ActionOutcome three = exit_with(3);
  EXPECT_EQ(three.kind, ActionOutcome::kPermanent);
  EXPECT_EQ(three.message, "exit 3");
  EXPECT_EQ(exit_with(64).kind, ActionOutcome::kPermanent);
  ActionOutcome four = exit_with(4);
  EXPECT_EQ(four.kind, ActionOutcome::kRetry);
  EXPECT_EQ(four.message, "exit 4");
  EXPECT_EQ(exit_with(75).kind, ActionOutcome::kRetry);
  EXPECT_EQ(exit_with(0).kind, ActionOutcome::kSuccess);
  a.argv = {"/bin/sh", "-c", "kill -9 $$"};
  EXPECT_EQ(RunCommandAction(a, Delivery({"/x"})).kind, ActionOutcome::kPermanent) << "a signal stays permanent";
  // Without the list, the default: only retry_exit_codes are retried.
  a.permanent_exit_codes.clear();
  EXPECT_EQ(exit_with(4).kind, ActionOutcome::kPermanent);
}

TEST_F(CommandActionTest, ThePayloadArrivesOnStdinAndACommandThatIgnoresItStillEnds) {
  const DeliveryContext c = Delivery({"/data/a", "/data/b c"});
  CommandAction a;
  a.argv = {"/bin/sh", "-c", "cat > \"$0\"", dir_ / "stdin"};
  ASSERT_EQ(RunCommandAction(a, c).kind, ActionOutcome::kSuccess);
  EXPECT_EQ(ReadAll(dir_ / "stdin"), c.payload_json);
  // A payload far larger than a pipe, to a command that never reads it.
  DeliveryContext big = c;
  big.payload_json.assign(4 << 20, 'x');
  a.argv = {"/bin/sh", "-c", "exit 0"};
  EXPECT_EQ(RunCommandAction(a, big).kind, ActionOutcome::kSuccess);
  a.argv = {"/bin/sleep", "30"};
  a.timeout_ns = 500'000'000;
  EXPECT_EQ(RunCommandAction(a, big).message, "timed out after 500 ms");
}

TEST_F(CommandActionTest, TheEnvironmentIsExactlyTheDocumentedOne) {
  setenv("FATHOM_SECRET_OF_THE_RUNNER", "leak", 1);
  DeliveryContext c = Delivery({"/data/a"});
  c.attempt = 4;
  CommandAction a;
  a.argv = {"/usr/bin/env"};
  ActionOutcome out;
  const std::string env = CaptureStderr(dir_ / "stderr", [&] { out = RunCommandAction(a, c); });
  ASSERT_EQ(out.kind, ActionOutcome::kSuccess) << out.message;
  std::set<std::string> lines;
  std::istringstream in(env);
  for (std::string line; std::getline(in, line);) lines.insert(line);
  const char* home = geteuid() == 0 ? "HOME=/root" : nullptr;
  std::set<std::string> expected = {"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "FATHOM_DELIVERY_ID=dlv_01J9Z3",
                                    "FATHOM_ATTEMPT=4", "FATHOM_RULE=thumbnails"};
  if (home != nullptr) {
    expected.insert(home);
  } else {
    for (const std::string& l : lines) {
      if (l.starts_with("HOME=")) expected.insert(l);
    }
  }
  EXPECT_EQ(lines, expected) << env;
}

TEST_F(CommandActionTest, RunsAsAnotherUserAndRefusesRootUnlessAllowed) {
  if (geteuid() != 0) GTEST_SKIP() << "changing user needs root";
  ASSERT_EQ(chmod(dir_.path().c_str(), 0777), 0);
  CommandAction a;
  a.argv = {"/bin/sh", "-c", "{ id -u; id -g; echo \"$HOME\"; } > \"$0\"", dir_ / "id"};
  a.run_as_uid = 65534;
  ActionOutcome out = RunCommandAction(a, Delivery({"/data/a"}));
  ASSERT_EQ(out.kind, ActionOutcome::kSuccess) << out.message;
  EXPECT_EQ(ReadAll(dir_ / "id"), "65534\n65534\n/nonexistent\n");
  a.run_as_uid = 0;
  out = RunCommandAction(a, Delivery({"/data/a"}));
  EXPECT_EQ(out.kind, ActionOutcome::kPermanent);
  EXPECT_EQ(out.message, "refused to run the command as uid 0 (root): allow_root permits it");
  a.allow_root = true;
  ASSERT_EQ(RunCommandAction(a, Delivery({"/data/a"})).kind, ActionOutcome::kSuccess);
  EXPECT_EQ(ReadAll(dir_ / "id"), "0\n0\n/root\n");
  // A user that cannot run the program: the failure to start names it.
  a.allow_root = false;
  a.run_as_uid = 65534;
  a.argv = {dir_ / "private.sh"};
  {
    std::ofstream(dir_ / "private.sh") << "#!/bin/sh\nexit 0\n";
  }
  ASSERT_EQ(chmod((dir_ / "private.sh").c_str(), 0700), 0);
  out = RunCommandAction(a, Delivery({"/data/a"}));
  EXPECT_EQ(out.kind, ActionOutcome::kPermanent);
  EXPECT_EQ(out.message, "cannot run " + (dir_ / "private.sh") + " as uid 65534: Permission denied");
}

}  // namespace
}  // namespace fathom::rules

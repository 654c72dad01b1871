// The mail action through the sendmail interface. No mail transfer agent can run here: a
// script implementing `sendmail -t -oi` (the message on its stdin) stands for one, keeps the
// message and its arguments, and exits with the status the test sets, so that what reaches a
// real sendmail and how each of its exit statuses is read are checked for real.
#include <sys/stat.h>

#include <fstream>

#include <gtest/gtest.h>

#include "rules/actions/action.h"
#include "rules/actions/action_test_util.h"
#include "support/temp_dir.h"

namespace fathom::rules {
namespace {

using testing::Delivery;
using testing::ReadAll;

class MailActionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sendmail_ = dir_ / "sendmail";
    std::ofstream(sendmail_) << "#!/bin/sh\n"
                                "printf '%s\\n' \"$@\" > " << dir_ / "args" << "\n"
                                "cat > " << dir_ / "message" << "\n"
                                "exit $(cat " << dir_ / "status" << ")\n";
    ASSERT_EQ(chmod(sendmail_.c_str(), 0755), 0);
    ExitWith(0);
    action_.to = {"ops@example.org", "root"};
    action_.subject = "raw data arrived";
    action_.sendmail = sendmail_;
  }
  void ExitWith(int status) { std::ofstream(dir_ / "status") << status << "\n"; }

  fathom::testing::TempDir dir_;
  std::string sendmail_;
  MailAction action_;
};

TEST_F(MailActionTest, TheMessageListsTheEventsWithTheDeliveryIdInAHeader) {
  const DeliveryContext c = Delivery({"/lab/raw/a.h5", "/lab/raw/new\nline \xff.h5"});
  ActionOutcome out = RunMailAction(action_, c);
  EXPECT_EQ(out.kind, ActionOutcome::kSuccess) << out.message;
  EXPECT_EQ(out.message, "sendmail exit 0");
  EXPECT_EQ(ReadAll(dir_ / "args"), "-t\n-oi\n");
  EXPECT_EQ(ReadAll(dir_ / "message"),
            "To: ops@example.org, root\n"
            "From: fathom\n"
            "Subject: raw data arrived\n"
            "X-Fathom-Delivery: dlv_01J9Z3\n"
            "X-Fathom-Rule: thumbnails\n"
            "X-Fathom-Attempt: 1\n"
            "Content-Type: text/plain; charset=utf-8\n"
            "\n"
            "Rule thumbnails, delivery dlv_01J9Z3, attempt 1, 2 events:\n"
            "\n"
            "CLOSE_WRITE \"/lab/raw/a.h5\" (event 41)\n"
            "CLOSE_WRITE \"/lab/raw/new\\nline \xef\xbf\xbd.h5\" (event 42)\n");
}

TEST_F(MailActionTest, WithoutASubjectItNamesTheRuleAndTheCount) {
  action_.subject.clear();
  ASSERT_EQ(RunMailAction(action_, Delivery({"/lab/raw/a.h5"})).kind, ActionOutcome::kSuccess);
  const std::string message = ReadAll(dir_ / "message");
  EXPECT_NE(message.find("\nSubject: fathom: rule thumbnails: 1 event\n"), std::string::npos) << message;
}

TEST_F(MailActionTest, SendmailsExitStatusDecidesTheOutcome) {
  ExitWith(75);
  ActionOutcome later = RunMailAction(action_, Delivery({"/lab/raw/a.h5"}));
  EXPECT_EQ(later.kind, ActionOutcome::kRetry);
  EXPECT_EQ(later.message, "sendmail exit 75");
  ExitWith(67);  // EX_NOUSER
  ActionOutcome refused = RunMailAction(action_, Delivery({"/lab/raw/a.h5"}));
  EXPECT_EQ(refused.kind, ActionOutcome::kPermanent);
  EXPECT_EQ(refused.message, "sendmail exit 67");
  action_.sendmail = dir_ / "no-sendmail";
  ActionOutcome missing = RunMailAction(action_, Delivery({"/lab/raw/a.h5"}));
  EXPECT_EQ(missing.kind, ActionOutcome::kPermanent);
  EXPECT_EQ(missing.message, "cannot run " + dir_ / "no-sendmail" + ": No such file or directory");
}

TEST_F(MailActionTest, ASendmailThatHangsIsKilledAndRetried) {
  std::ofstream(sendmail_) << "#!/bin/sh\nexec sleep 30\n";
  action_.timeout_ns = 500'000'000;
  ActionOutcome out = RunMailAction(action_, Delivery({"/lab/raw/a.h5"}));
  EXPECT_EQ(out.kind, ActionOutcome::kRetry);
  EXPECT_EQ(out.message, "sendmail timed out after 500 ms");
}

}  // namespace
}  // namespace fathom::rules

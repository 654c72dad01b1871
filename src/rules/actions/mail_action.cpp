// mail_action.cpp — RunMailAction: the message (core/mail_message.h) with the delivery's
// headers and its events listed, given to `sendmail -t -oi` by RunChild; its exit read as a
// command's (CommandOutcome).
#include <cstring>

#include "core/child_process.h"
#include "core/mail_message.h"
#include "fathom/format.h"
#include "rules/actions/action.h"
#include "rules/actions/outcome.h"

namespace fathom::rules {
namespace {

constexpr int kTempFail = 75;  // EX_TEMPFAIL: sendmail could not take it now

// One line per event: its kinds, its path as a JSON string (quoted, escaped, valid UTF-8:
// a file name can neither break a line nor carry bytes a mail reader would misread), its id.
std::string Listing(const DeliveryContext& c) {
  std::string out = "Rule " + c.rule + ", delivery " + c.delivery_id + ", attempt " + std::to_string(c.attempt) +
                    ", " + std::to_string(c.events.size()) + (c.events.size() == 1 ? " event" : " events") + ":\n\n";
  for (const Event& e : c.events) {
    out += KindNames(e.mask) + " ";
    AppendJsonString(e.path, out);
    out += " (event " + std::to_string(e.id) + ")\n";
  }
  return out;
}

}  // namespace

ActionOutcome RunMailAction(const MailAction& action, const DeliveryContext& context) {
  MailMessage message;
  message.to = action.to;
  message.from = action.from;
  message.subject = !action.subject.empty()
                        ? action.subject
                        : "fathom: rule " + context.rule + ": " + std::to_string(context.events.size()) +
                              (context.events.size() == 1 ? " event" : " events");
  message.headers = {"X-Fathom-Delivery: " + context.delivery_id, "X-Fathom-Rule: " + context.rule,
                     "X-Fathom-Attempt: " + std::to_string(context.attempt)};
  message.body = Listing(context);
  const std::string text = MailText(message);
  ChildSpec spec;
  spec.argv = SendmailArgv(action.sendmail);
  spec.timeout_ns = action.timeout_ns;
  spec.input = text;
  Result<ChildExit> exit = RunChild(spec);
  if (!exit.ok()) return {ActionOutcome::kRetry, exit.status().message(), std::nullopt};
  if (!exit->started) {
    return {ActionOutcome::kPermanent, "cannot run " + action.sendmail + ": " + std::strerror(exit->start_errno),
            std::nullopt};
  }
  ActionOutcome out = CommandOutcome(*exit, {kTempFail}, action.timeout_ns);
  out.message = "sendmail " + out.message;
  return out;
}

}  // namespace fathom::rules

// run_action.cpp — RunAction: the action a rule has, run.
#include "rules/actions/action.h"

namespace fathom::rules {

ActionOutcome RunAction(const Action& action, const DeliveryContext& context) {
  struct Runner {
    const DeliveryContext& context;
    ActionOutcome operator()(const CommandAction& a) const { return RunCommandAction(a, context); }
    ActionOutcome operator()(const WebhookAction& a) const { return RunWebhookAction(a, context); }
    ActionOutcome operator()(const CopyAction& a) const { return RunCopyAction(a, context); }
    ActionOutcome operator()(const MailAction& a) const { return RunMailAction(a, context); }
  };
  return std::visit(Runner{context}, action);
}

}  // namespace fathom::rules

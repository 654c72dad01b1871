// trigger_condition.cpp — MatchesCondition.
#include "rules/trigger_condition.h"

#include "policy/candidates.h"

namespace fathom::rules {

bool MatchesCondition(const Trigger& trigger, const Event& event, const catalog::Attrs* attrs, NameCache& names,
                      int64_t now_ns, std::string* why) {
  if (!trigger.condition) return true;
  const condition::Condition& c = *trigger.condition;
  if (attrs == nullptr && c.NeedsAttributes()) {
    if (why != nullptr) {
      *why = trigger.attributes == AttributeSource::kNone
                 ? "the condition needs the entry's attributes and the rule reads none"
                 : "the entry's attributes could not be read (" + std::string(AttributeSourceName(trigger.attributes)) +
                       "): it is gone";
    }
    return false;
  }
  // A condition on the path alone reads no attribute: any value stands in for them.
  static const catalog::Attrs kNoAttributes;
  const condition::Subject subject = policy::SubjectOf(event.path, attrs != nullptr ? *attrs : kNoAttributes, names);
  if (c.Matches(subject, now_ns)) return true;
  if (why != nullptr) *why = "condition " + c.ToString() + " does not hold";
  return false;
}

}  // namespace fathom::rules

// trigger_condition.h — whether a trigger's condition holds for an event, given the entry's
// attributes from the trigger's source (AttributeSource), and why not.
//
// Threading: any thread, each with its own NameCache.
#pragma once

#include <cstdint>
#include <string>

#include "core/account_names.h"
#include "fathom/rules.h"

namespace fathom::rules {

// True without a condition. `attrs` is null when the attributes could not be read (the entry
// is gone, or the trigger reads none): a condition that needs them is then false. `why`, when
// given, receives the reason of a false answer.
bool MatchesCondition(const Trigger& trigger, const Event& event, const catalog::Attrs* attrs, NameCache& names,
                      int64_t now_ns, std::string* why = nullptr);

}  // namespace fathom::rules

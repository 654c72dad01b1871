// matcher.h — which rules of a rule set take an event: RuleIndex for kinds and paths, then each
// candidate's condition with the attributes its rule reads (EntryAttributes).
//
// Ownership: keeps references to the rule set and the catalog (may be null), which must
// outlive it. Threading: one thread (it caches account names).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/account_names.h"
#include "fathom/rules.h"
#include "rules/rule_set.h"

namespace fathom::rules {

class Matcher {
 public:
  Matcher(const RuleSet& set, catalog::Catalog* catalog);

  // Appends the rules that take `event` to `out` (ascending); ages are taken at `now_ns`.
  void Match(const Event& event, int64_t now_ns, std::vector<size_t>& out);
  // Why rule `rule` does or does not take `event`: "" when it takes it.
  std::string Explain(const Event& event, size_t rule, int64_t now_ns);
  // One line per rule, as `--explain` prints them: "event 7 CREATE /x: rule r takes it" or
  // "...: rule r: why not".
  void ExplainAll(const Event& event, int64_t now_ns, const std::function<void(const std::string&)>& line);

 private:
  const RuleSet& set_;
  catalog::Catalog* catalog_;
  RuleIndex index_;
  NameCache names_;
  std::vector<size_t> candidates_;
};

}  // namespace fathom::rules

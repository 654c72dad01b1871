// candidates.h — the entries of a policy that the catalog holds: selected through the
// catalog's indexes, each name decided (Decide), and the subject a condition is evaluated
// against, for an entry of the catalog or of the live file system.
//
// Threading: one thread at a time (the name cache is not shared).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/account_names.h"
#include "fathom/catalog.h"
#include "fathom/condition.h"
#include "fathom/policy.h"

namespace fathom::policy {

// `path` with `attrs`: owner and group names from `names`, extended attributes read from the
// live file system (lgetxattr: never through a symbolic link) when a condition asks. The
// subject refers to `path`, `attrs` and `names`: it must not outlive them.
condition::Subject SubjectOf(std::string_view path, const catalog::Attrs& attrs, NameCache& names);

// `--target` as a condition: user:U, group:G, ost:N, pool:P, class:C (of `classes`, read
// from `source`), path:P ("" : none).
Result<std::optional<condition::Condition>> TargetCondition(std::string_view target, const FileClasses& classes,
                                                            std::string_view source);

// Calls `fn` with every name of every entry the catalog selects for `policy` within
// `target`, and its decision, until `fn` returns false. The scope and the target narrow the
// selection; with `by_rules`, each rule narrows a selection of its own and the union is
// visited, each name once (every entry a rule may act upon, not every entry in scope).
Status ForEachDecided(const PolicyConfig& config, const Policy& policy, catalog::Catalog& catalog,
                      const std::optional<condition::Condition>& target, int64_t now_ns, bool by_rules,
                      NameCache& names, const std::function<bool(const catalog::Visit&, const Decision&)>& fn);

}  // namespace fathom::policy

// rules.h — event-driven rules: when an event of fathom's stream matches a rule's trigger, the
// rule's action runs (docs/rules.md).
//
// A trigger is event kinds, path globs (the condition language's: `?` and `*` never cross
// '/', `**` crosses directories) and an optional condition in the condition language over the
// event's path and, on request, the entry's attributes (read from the live file system or
// from the catalog). RuleIndex finds the rules an event may match without trying every
// rule: the rules sit in a tree of the literal directories their globs begin with, so an event
// meets only the rules above its path, and a tree node's union of kinds prunes whole branches.
//
// Ownership: a RuleIndex keeps pointers to the triggers it was built from, which must outlive
// it. Threading: Trigger and RuleIndex are immutable once built: Candidates() and Explain()
// may be called from several threads at once. A trigger's condition is tested by the runner
// (src/rules/trigger_condition.h), which reads the attributes it needs.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fathom/condition.h"
#include "fathom/event.h"
#include "fathom/status.h"

namespace fathom::rules {

// Where a trigger's condition finds an entry's attributes (size, owner, times...).
enum class AttributeSource {
  kNone,     // the condition names only the path (tree, path, name, iname, depth)
  kLive,     // lstat of the event's path when the event is matched
  kCatalog,  // the catalog's entry for the path
};
std::string_view AttributeSourceName(AttributeSource source);

struct Trigger {
  uint32_t kinds = kind::kDefault;      // an event matches when it has one of these kinds
  std::vector<std::string> paths;       // globs on the event's absolute path (any of them)
  std::vector<std::string> ignore;      // globs: an event on a path matching one is ignored
  std::optional<condition::Condition> condition;
  AttributeSource attributes = AttributeSource::kNone;
};

// The literal directory a path glob begins with: "/lab/raw" for "/lab/raw/**.h5", "/lab" for
// "/lab/r*/x", the pattern itself when it has no wildcard, "" when it starts with one.
std::string LiteralDirectory(std::string_view glob);

// Checks a trigger's globs: absolute ("/...") or starting with "**"; the error names the glob
// and says why.
Status CheckPathGlob(std::string_view glob);

class RuleIndex {
 public:
  // `triggers[i]` is rule i's trigger.
  explicit RuleIndex(const std::vector<const Trigger*>& triggers);
  ~RuleIndex();
  RuleIndex(RuleIndex&&) noexcept;
  RuleIndex& operator=(RuleIndex&&) noexcept;

  // Appends to `out` (ascending) the rules whose kinds and path globs hold for `event` and
  // no ignore glob does; their conditions are left to the caller (MatchesCondition), which
  // may need the entry's attributes.
  void Candidates(const Event& event, std::vector<size_t>& out) const;

  // Why rule `rule` does or does not take `event` on kinds and paths: "kinds CLOSE_WRITE not
  // in CREATE", "path /x matches no glob of /lab/**", "ignored by glob *.tmp", or "" when it
  // takes it.
  std::string Explain(size_t rule, const Event& event) const;

  size_t size() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fathom::rules

// policy.h — fathom's policy configuration (docs/policies.md): one YAML file whose
// `fileclasses:` name conditions in the condition language (fathom/condition.h), combinable
// as unions, intersections and complements of other classes:
//
//   fileclasses:
//     scratch_tmp: "type == file and name == '*.tmp'"
//     protected:   "tree == /scratch/keep"
//     big:         "size > 1GB"
//     big_tmp:     {inter: [big, scratch_tmp]}
//     unprotected: {not: protected}
//     cleanable:   {union: [scratch_tmp, big_tmp]}
//
// A class may also name another inside its condition (`fileclass == big`). Loading checks
// the whole file before anything uses it: YAML syntax, unknown keys, every condition,
// every class named (it must be defined), and that no class is defined through itself;
// errors name the file, the line and the column.
//
// Ownership: a PolicyConfig owns its classes; FileClasses is immutable once loaded, so its
// methods may be called from several threads at once.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fathom/condition.h"
#include "fathom/status.h"

namespace fathom::policy {

class FileClasses {
 public:
  struct Definition;  // file_classes.cpp

  FileClasses();
  ~FileClasses();
  FileClasses(FileClasses&&) noexcept;
  FileClasses& operator=(FileClasses&&) noexcept;

  bool Has(std::string_view name) const;
  std::vector<std::string> Names() const;  // sorted
  // Whether the subject is in class `name` (false for a class not defined). The subject's
  // own in_class is ignored: classes named inside conditions are answered by these classes.
  bool Contains(std::string_view name, const condition::Subject& subject, int64_t now_ns) const;
  // The catalog index bounds every member of `name` satisfies (nothing for unions and
  // complements).
  void Narrow(std::string_view name, catalog::Selection& selection, int64_t now_ns) const;

 private:
  friend class ConfigLoader;
  std::map<std::string, std::unique_ptr<Definition>, std::less<>> classes_;
};

// What a policy does to an entry it selects. Commands run without a shell: each argument is
// one word, and `{path}`, `{fid}`, `{uid}`, `{gid}`, `{size}`, `{name}` and `{parent}` are
// replaced inside it by the entry's values.
struct Action {
  enum class Kind { kDelete, kRmdir, kMove, kCopy, kCommand, kLog } kind = Kind::kLog;
  std::string destination;                 // kMove, kCopy: a directory
  bool verify = true;                      // kCopy: compare checksums after copying
  std::vector<std::string> argv;           // kCommand
  int64_t timeout_ns = 300'000'000'000;    // kCommand: killed past it
};

// A rule: the entries of its target classes (any entry without one) that satisfy its
// condition get its action (else the policy's default).
struct Rule {
  std::string name;
  std::vector<std::string> target_fileclasses;
  std::optional<condition::Condition> condition;
  std::optional<Action> action;
};

// When a policy runs: on a schedule, or when a usage passes its high mark (then it acts until
// the usage is back under the low mark). Usage thresholds are a percentage of the capacity,
// a volume in bytes, or a count of entries.
struct Threshold {
  enum class Unit { kPercent, kBytes, kEntries } unit = Unit::kPercent;
  double value = 0;
};
struct Trigger {
  enum class On { kPeriodic, kGlobalUsage, kUserUsage, kGroupUsage, kOstUsage, kPoolUsage } on = On::kPeriodic;
  int64_t check_every_ns = 0;
  std::optional<Threshold> high, low;      // usage triggers
  std::vector<std::string> targets;        // users, groups, OST indexes or pools ({} = each)
};

struct Policy {
  std::string name;
  Action default_action;
  std::optional<condition::Condition> scope;         // entries outside it are never considered
  std::vector<condition::Condition> ignore;          // entries matching any are left alone
  std::vector<std::string> ignore_fileclasses;
  std::vector<Rule> rules;                           // the first whose targets hold the entry decides
  enum class Sort { kNone, kLastAccess, kLastMod, kCreation, kSize } sort = Sort::kNone;
  std::optional<uint64_t> max_action_count;
  std::optional<int64_t> max_action_volume;          // bytes
  std::optional<double> max_actions_per_second;
  double suspend_error_pct = 0;                      // 0: never suspend
  std::vector<std::string> pre_run_command, post_run_command;
  std::vector<Trigger> triggers;
};

// What a policy decides for one entry, and why (for `policy check` and dry runs).
struct Decision {
  enum class Outcome { kOutOfScope, kIgnored, kNoRule, kConditionFalse, kAct } outcome = Outcome::kNoRule;
  const Rule* rule = nullptr;      // the rule whose targets hold the entry
  const Action* action = nullptr;  // kAct: the rule's action or the policy's default
  std::string why;                 // "ignored by fileclass protected", "rule old_tmp"...
};
Decision Decide(const Policy& policy, const FileClasses& classes, const condition::Subject& subject,
                int64_t now_ns);

struct PolicyConfig {
  std::string source;  // the file, for messages
  FileClasses fileclasses;
  std::vector<Policy> policies;
  const Policy* Find(std::string_view name) const;
};

// Reads and checks `path`; the error names the file, line and column, and what is wrong.
Result<PolicyConfig> LoadPolicyConfig(const std::string& path);
// The same from text; `source` names it in errors.
Result<PolicyConfig> ParsePolicyConfig(std::string_view yaml, std::string_view source);

}  // namespace fathom::policy

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

#include <map>
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

struct PolicyConfig {
  std::string source;  // the file, for messages
  FileClasses fileclasses;
};

// Reads and checks `path`; the error names the file, line and column, and what is wrong.
Result<PolicyConfig> LoadPolicyConfig(const std::string& path);
// The same from text; `source` names it in errors.
Result<PolicyConfig> ParsePolicyConfig(std::string_view yaml, std::string_view source);

}  // namespace fathom::policy

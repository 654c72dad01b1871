// condition.h — fathom's condition language: Robinhood's, so that existing rules port line by
// line. A condition is `criterion OP value` comparisons joined by `and`, `or`, `not` and
// parentheses (keywords in any case), e.g.
//
//   (size > 1GB or owner == 'foo') and path == /fs/*.tar and last_access > 30d
//
// - OP: == != < <= > >=. Criteria and what they compare (docs/conditions.md):
//   tree path name iname (globs: == and != only); type (file dir symlink chr blk fifo sock);
//   owner group (a name, a glob of names, or a number); projid nlink depth dircount
//   ost_index mdt_index (numbers); size blocks (bytes, units B K/KB M/MB G/GB T/TB P/PB
//   E/EB, powers of 1024, any case); last_access last_mod last_mdchange creation rm_time
//   (ages: now minus the time, units s/sec m/min h/hour d/day w/week y/year, a bare number
//   is seconds); ost_pool fileclass xattr.NAME (globs).
// - Globs: `?` and `*` never cross '/', `**` crosses any number of directories ("/a/**/b"
//   also matches "/a/b"), `[...]` classes, `\` escapes. `tree == /fs/a` holds for /fs/a and
//   everything below it. Values are bare words or quoted ('...' or "...", `\` escapes).
//
// Parse() checks everything it can without the file system (criteria, operators, units,
// types, numbers, glob syntax) and reports the line, the column, what it found and what it
// expected. The compiled form is immutable: Matches() may be called from several threads at
// once. Owner and group names are looked up (getpwnam/getgrnam) once, by Parse(); a name
// with no account matches nothing.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fathom/catalog.h"
#include "fathom/status.h"

namespace fathom::condition {

// What a condition is evaluated against: one name of a catalog object. What a caller cannot
// tell is left empty, and a comparison on it is false whatever its operator (as SQL's NULL).
struct Subject {
  std::string_view path;                   // absolute
  const catalog::Attrs* attrs = nullptr;   // required
  std::optional<int> depth;                // below the root of the file system it lies on
  std::optional<uint64_t> dircount;        // a directory's entries
  std::optional<int64_t> creation_ns;      // when the object was made (or first seen)
  std::optional<int64_t> rm_time_ns;       // when it was removed (removed entries)
  // The value of an extended attribute (nullopt: the object has none of that name).
  std::function<std::optional<std::string>(std::string_view name)> xattr;
  // Whether the object is in the named file class.
  std::function<bool(std::string_view fileclass)> in_class;
  // Owner and group names, for globs on them (nullopt: no such account).
  std::function<std::optional<std::string>(uint32_t uid)> user_name;
  std::function<std::optional<std::string>(uint32_t gid)> group_name;
};

class Condition {
 public:
  // `source` names where the text came from in errors ("policies.yaml, rule old_tmp");
  // `first_line` and `first_column` place the text's first character there.
  static Result<Condition> Parse(std::string_view text, std::string_view source = "condition",
                                 int first_line = 1, int first_column = 1);

  // Whether the subject satisfies the condition, ages taken at `now_ns`.
  bool Matches(const Subject& subject, int64_t now_ns) const;

  // Narrows `selection` with what every match must satisfy on the catalog's indexed
  // attributes (owner, group, size, mtime, type) and names (name, iname): the bounds of the
  // top-level conjunction, ages taken at `now_ns`. Matches() stays the whole test.
  void Narrow(catalog::Selection& selection, int64_t now_ns) const;

  // The file classes and extended attributes it names (so that a caller checks or fetches
  // them once).
  std::vector<std::string> Fileclasses() const;
  std::vector<std::string> Xattrs() const;

  // Whether it names a criterion other than tree, path, name and iname: one that needs the
  // object's attributes (or what the catalog knows of it) and not its path alone.
  bool NeedsAttributes() const;

  // The condition in canonical form: parses back to the same condition.
  std::string ToString() const;

  struct Node;  // the compiled form (condition_tree.h)

 private:
  explicit Condition(std::shared_ptr<const Node> root) : root_(std::move(root)) {}
  std::shared_ptr<const Node> root_;
};

}  // namespace fathom::condition

// expression.h — a parsed `find` expression: a tree of operators over tests and actions,
// evaluated against one catalog entry at a time with GNU find's semantics.
//
// Contract: Parse() (parser.h) builds an Expression; Evaluate() walks it with GNU's
// short-circuit rules (-a, -o, !, ','). Tests never touch the file system: everything they
// need comes from the Entry (the catalog's attributes) and from the EvalContext's callbacks.
// Actions write to the context's output and may run commands or change the file system
// (after checking the live entry still is what the catalog says).
//
// Ownership: an Expression owns its nodes; predicates own their compiled patterns and open
// output files. Threading: one thread at a time (regex buffers and output streams are state).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "fathom/catalog.h"
#include "fathom/status.h"

namespace fathom {
class NameCache;
}  // namespace fathom

namespace fathom::catalog::find {

// One candidate: the catalog's node, its path as printed and as the catalog knows it.
struct Entry {
  const Node& node;
  std::string_view path;        // as printed: the starting point as given, then the rest
  std::string_view abs_path;    // absolute, as in the catalog
  std::string_view start;       // the starting point as given on the command line
  int depth = 0;
};

// Where a symbolic link leads: the final object's attributes, or nothing (dangling, or a
// loop: more than 40 links in a row, as the kernel counts).
struct Followed {
  std::optional<Attrs> attrs;
  bool loop = false;
};

// What evaluation needs from its surroundings.
struct EvalContext {
  NameCache* names = nullptr;
  std::ostream* out = nullptr;
  std::ostream* err = nullptr;
  // Whether a directory has no names in it.
  std::function<Result<bool>(const Node&)> dir_is_empty;
  // What a path leads to, symbolic links followed (-readable/-writable/-executable, %Y).
  std::function<Followed(std::string_view abs_path)> stat_follow;
  // Who asks: the effective uid and every group id (for -readable, -writable, -executable).
  uint32_t uid = 0;
  std::vector<uint32_t> gids;

  // Set by actions.
  bool prune = false;           // -prune matched: do not descend into this directory
  bool quit = false;            // -quit matched: stop after this entry
  int exit_status = 0;          // 1 once an action failed (GNU's exit status)
};

// A test or an action. Evaluate() returns whether it is true for the entry.
class Predicate {
 public:
  virtual ~Predicate() = default;
  virtual bool Evaluate(const Entry& entry, EvalContext& ctx) = 0;
  // Whether it produces output or acts (GNU: suppresses the default -print).
  virtual bool IsAction() const { return false; }
  // Whether evaluating it has effects beyond its value (prune, quit, output, commands).
  virtual bool HasSideEffects() const { return IsAction(); }
  // Narrows `selection` to objects this test can match when it must hold (top-level
  // conjunction); returns false when it cannot be expressed (nothing is changed then).
  virtual bool Narrow(Selection& /*selection*/) const { return false; }
  // Whether the entry's path, name, id and mode are all it reads (-name, -type, -print...): a
  // walk whose predicates all say so reads nothing else of the catalog.
  virtual bool ModeSuffices() const { return false; }
  // Called once after the whole walk (-exec ... {} + runs its last batch, -count prints).
  virtual Status Finish(EvalContext& /*ctx*/) { return Status::Ok(); }
  // The option or test as written ("-name"), for messages.
  virtual std::string_view Name() const = 0;
};

struct ExprNode {
  enum class Kind { kAnd, kOr, kNot, kComma, kPredicate };
  Kind kind = Kind::kPredicate;
  std::unique_ptr<ExprNode> left;   // kNot: the operand
  std::unique_ptr<ExprNode> right;
  std::unique_ptr<Predicate> predicate;
};

bool Evaluate(ExprNode& node, const Entry& entry, EvalContext& ctx);

enum class SortField { kName, kPath, kSize, kMtime, kAtime, kCtime, kUid, kGid };

// Options that apply to the whole run, wherever they appear.
struct GlobalOptions {
  int min_depth = 0;
  int max_depth = -1;           // -1: unlimited
  bool depth_first = false;     // -depth / -delete: a directory after its contents
  bool xdev = false;            // -xdev / -mount: do not descend into other file systems
  // fathom's extras (not GNU find's).
  bool count = false;           // -count: print the number of matches instead of them
  std::optional<SortField> sort;
  bool reverse = false;         // -rsort
  std::optional<uint64_t> limit;  // -limit N: stop after N matches
};

struct Expression {
  std::vector<std::string> starts;  // starting points as given ("." when none)
  GlobalOptions options;
  std::unique_ptr<ExprNode> root;   // never null (-true when nothing was given)
  // Every predicate, in command-line order (for Finish() and analysis).
  std::vector<Predicate*> predicates;
  // Whether the expression contains -prune or -quit (needs the walk's order and structure).
  bool needs_walk = false;
};

// Finishes every predicate (pending -exec + batches, -count totals).
Status FinishAll(Expression& expr, EvalContext& ctx);

}  // namespace fathom::catalog::find

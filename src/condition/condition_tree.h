// condition_tree.h — the compiled form of a condition (fathom/condition.h): a tree of and/or/
// not over comparisons whose values were checked and converted once, and the table of
// criteria. Immutable once built; shared by the parser, the evaluator, Narrow and ToString.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "condition/glob.h"
#include "fathom/condition.h"

namespace fathom::condition {

enum class Criterion {
  kTree, kPath, kName, kIname, kType, kMode, kOwner, kGroup, kProjid, kSize, kBlocks, kDepth,
  kDircount, kNlink, kLastAccess, kLastMod, kLastMdchange, kCreation, kRmTime, kOstPool,
  kOstIndex, kMdtIndex, kFileclass, kXattr
};

// How a criterion's values are written and compared.
enum class ValueKind {
  kGlob,      // == and != only: a glob (tree, path, name, iname, ost_pool, xattr.NAME)
  kType,      // == and !=: file dir symlink chr blk fifo sock
  kAccount,   // == and !=: an owner or group name, a glob of names, or a number
  kCount,     // a non-negative integer
  kSize,      // bytes with a unit
  kAge,       // a duration, compared with now minus the time
  kClass,     // == and !=: a file class's name
  kMember,    // == and !=: an integer one of a list holds (ost_index)
  kMode,      // == and !=: permission bits in octal as GNU find's -perm: 0644 (exactly),
              // -0750 (all of them set), /0022 (any of them set)
};

struct CriterionInfo {
  const char* name;
  Criterion criterion;
  ValueKind kind;
};

// The criterion called `name` ("xattr.NAME" is kXattr); nullptr when none is.
const CriterionInfo* FindCriterion(std::string_view name);
// Every criterion's name, for error messages.
std::string CriterionNames();

enum class Op { kEq, kNe, kLt, kLe, kGt, kGe };
const char* OpText(Op op);

struct Condition::Node {
  enum class Kind { kAnd, kOr, kNot, kCompare } kind = Kind::kCompare;
  std::shared_ptr<const Node> left, right;  // kAnd/kOr: both; kNot: left

  // kCompare:
  const CriterionInfo* criterion = nullptr;
  Op op = Op::kEq;
  std::string value;              // as written (unquoted)
  std::string attribute;          // kXattr: the attribute's name
  int64_t number = 0;             // counts, bytes, ages (ns), S_IFMT bits, uid/gid
  std::optional<Glob> glob;       // globs, and account names with wildcards
  bool no_account = false;        // kAccount: a name with no account (matches nothing)
  char mode_form = '=';           // kMode: '=' exactly, '-' all of the bits, '/' any of them
};

// Whether `value OP reference` holds.
inline bool Compare(int64_t value, Op op, int64_t reference) {
  switch (op) {
    case Op::kEq: return value == reference;
    case Op::kNe: return value != reference;
    case Op::kLt: return value < reference;
    case Op::kLe: return value <= reference;
    case Op::kGt: return value > reference;
    case Op::kGe: return value >= reference;
  }
  return false;
}

}  // namespace fathom::condition

// predicates.h — find's tests, built from parsed arguments: name and path patterns, regular
// expressions, types, owners, sizes, times, permissions, access, identity, Lustre placement.
//
// Contract: every test answers from the Entry's catalog attributes (and the context's
// callbacks for -empty and symbolic-link targets), with GNU find's rules: -size rounds the
// size up to its unit, time tests count the age from a fixed origin with GNU's windows (see
// AgeTest), -newer compares nanoseconds. Tests of indexed attributes narrow a
// Catalog::Selection when they must hold. Predicates are immutable once built, except for
// the compiled regex buffer (one thread at a time).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "catalog/find/expression.h"
#include "catalog/find/mode.h"
#include "fathom/policy.h"

namespace fathom::catalog::find {

// GNU's numeric arguments: "+N" (more than), "-N" (less than), "N" (exactly).
enum class Compare { kLess, kEqual, kGreater };
template <typename T>
struct Number {
  Compare cmp = Compare::kEqual;
  T value{};
  bool Holds(T x) const {
    return cmp == Compare::kLess ? x < value : cmp == Compare::kGreater ? x > value : x == value;
  }
};

// A test given as a function (and, when it constrains indexed attributes, how; and whether
// it reads the path, name, id and mode only: Predicate::ModeSuffices).
std::unique_ptr<Predicate> MakeTest(std::string name,
                                    std::function<bool(const Entry&, EvalContext&)> test,
                                    std::function<void(Selection&)> narrow = nullptr,
                                    bool mode_suffices = false);

// -name/-iname (base name), -path/-ipath/-wholename (whole printed path), -lname/-ilname
// (symbolic-link target): fnmatch(3) without FNM_PERIOD or FNM_PATHNAME, as GNU find.
enum class PatternOn { kBaseName, kPath, kLinkTarget };
std::unique_ptr<Predicate> PatternTest(std::string name, std::string pattern, PatternOn on, bool icase);

// -regex/-iregex: the whole printed path must match; `syntax` is a glibc RE_SYNTAX_* value.
Result<std::unique_ptr<Predicate>> RegexTest(std::string name, const std::string& pattern,
                                             unsigned long syntax, bool icase);

// -type with a set of S_IFMT values (several for "f,d"); -xtype (`follow`): a symbolic
// link's target's type instead, a link that leads nowhere being a link.
std::unique_ptr<Predicate> TypeTest(std::vector<uint32_t> types, bool follow);

// -size: ceil(size / unit) compared with the number.
std::unique_ptr<Predicate> SizeTest(Number<int64_t> n, int64_t unit);

// -mtime/-atime/-ctime (unit: a day) and -mmin/-amin/-cmin (unit: a minute): the age
// (origin - time) against GNU's windows: in days the age is truncated (N matches
// [N, N+1) days), in minutes it is rounded up (N matches (N-1, N] minutes); `which` is
// 'a', 'c' or 'm'.
std::unique_ptr<Predicate> AgeTest(std::string name, char which, Number<double> n, int64_t unit_ns,
                                   int64_t origin_ns);

// -newer/-anewer/-cnewer/-newerXY: the entry's time `which` strictly after `ref_ns`.
std::unique_ptr<Predicate> NewerTest(std::string name, char which, int64_t ref_ns);

// -uid/-gid/-links/-inum with a number, -user/-group with an id.
enum class IdField { kUid, kGid, kLinks, kInode };
std::unique_ptr<Predicate> IdTest(std::string name, IdField field, Number<uint64_t> n);

std::unique_ptr<Predicate> PermTest(PermSpec spec);
std::unique_ptr<Predicate> NoOwnerTest(bool group);           // -nouser / -nogroup
std::unique_ptr<Predicate> EmptyTest();
std::unique_ptr<Predicate> AccessTest(std::string name, int bit);  // R_OK, W_OK, X_OK
std::unique_ptr<Predicate> SameFileTest(uint64_t dev, uint64_t ino);
std::unique_ptr<Predicate> ConstTest(bool value);              // -true / -false

// Lustre: -fid, -ost N, -pool NAME, -mdt N (false where the catalog has no Lustre view).
std::unique_ptr<Predicate> FidTest(std::string fid);
std::unique_ptr<Predicate> OstTest(uint32_t ost);
std::unique_ptr<Predicate> PoolTest(std::string pool);
// -class NAME: membership of a file class of the policy configuration (fathom/policy.h),
// which outlives the predicate; narrows a selection by the class's index bounds.
std::unique_ptr<Predicate> ClassTest(std::string name, const policy::FileClasses& classes, int64_t now_ns);
std::unique_ptr<Predicate> MdtTest(uint32_t mdt);

}  // namespace fathom::catalog::find

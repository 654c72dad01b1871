#include <algorithm>
#include <array>
#include <cctype>

#include "condition/condition_tree.h"

namespace fathom::condition {
namespace {

constexpr std::array<CriterionInfo, 24> kCriteria = {{
    {"tree", Criterion::kTree, ValueKind::kGlob},
    {"path", Criterion::kPath, ValueKind::kGlob},
    {"name", Criterion::kName, ValueKind::kGlob},
    {"iname", Criterion::kIname, ValueKind::kGlob},
    {"type", Criterion::kType, ValueKind::kType},
    {"mode", Criterion::kMode, ValueKind::kMode},
    {"owner", Criterion::kOwner, ValueKind::kAccount},
    {"group", Criterion::kGroup, ValueKind::kAccount},
    {"projid", Criterion::kProjid, ValueKind::kCount},
    {"size", Criterion::kSize, ValueKind::kSize},
    {"blocks", Criterion::kBlocks, ValueKind::kSize},
    {"depth", Criterion::kDepth, ValueKind::kCount},
    {"dircount", Criterion::kDircount, ValueKind::kCount},
    {"nlink", Criterion::kNlink, ValueKind::kCount},
    {"last_access", Criterion::kLastAccess, ValueKind::kAge},
    {"last_mod", Criterion::kLastMod, ValueKind::kAge},
    {"last_mdchange", Criterion::kLastMdchange, ValueKind::kAge},
    {"creation", Criterion::kCreation, ValueKind::kAge},
    {"rm_time", Criterion::kRmTime, ValueKind::kAge},
    {"ost_pool", Criterion::kOstPool, ValueKind::kGlob},
    {"ost_index", Criterion::kOstIndex, ValueKind::kMember},
    {"mdt_index", Criterion::kMdtIndex, ValueKind::kCount},
    {"fileclass", Criterion::kFileclass, ValueKind::kClass},
    {"xattr.NAME", Criterion::kXattr, ValueKind::kGlob},
}};

}  // namespace

const CriterionInfo* FindCriterion(std::string_view name) {
  auto same = [](std::string_view a, std::string_view b) {  // in any case
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
             return std::tolower(static_cast<unsigned char>(x)) == y;
           });
  };
  if (name.size() > 6 && same(name.substr(0, 6), "xattr.")) return &kCriteria.back();
  for (const CriterionInfo& c : kCriteria) {
    if (c.criterion != Criterion::kXattr && same(name, c.name)) return &c;
  }
  return nullptr;
}

std::string CriterionNames() {
  std::string names;
  for (const CriterionInfo& c : kCriteria) {
    if (!names.empty()) names += ' ';
    names += c.name;
  }
  return names;
}

const char* OpText(Op op) {
  switch (op) {
    case Op::kEq: return "==";
    case Op::kNe: return "!=";
    case Op::kLt: return "<";
    case Op::kLe: return "<=";
    case Op::kGt: return ">";
    case Op::kGe: return ">=";
  }
  return "?";
}

}  // namespace fathom::condition

// changelog_record.cpp — record type names and changelog mask expressions.
//
// ApplyMaskExpression follows the kernel's parser (libcfs cfs_str2mask as called by
// mdd_changelog_mask_seq_write), quirks included:
//  - tokens are separated by spaces, tabs, newlines or commas and matched case-insensitively
//    against the type names and the keywords ALL, NONE and DEFAULT;
//  - a '+' or '-' applies to the one token that follows it; the first token without an
//    operator starts from the minimal mask (MARK only), later ones add to the mask;
//  - when the current mask is the minimal one and the expression starts with '+' or '-', the
//    edit applies to the default mask;
//  - "ALL" sets every type ("-ALL": minimal mask), "NONE" the minimal mask ("-NONE" does
//    nothing), "DEFAULT" the default mask ("+DEFAULT" adds it, "-DEFAULT" removes it) —
//    but, as in the kernel, DEFAULT is only recognised as the last word of the expression;
//  - an empty expression leaves the mask as it is.
// Where fathom differs: MARK is always kept (the kernel lets "-MARK" clear its bit, yet
// writes marks regardless).
#include "lustre/changelog_record.h"

#include <array>
#include <cctype>

namespace fathom::lustre {
namespace {

// changelog_type2str, indexed by type.
constexpr std::array<std::string_view, CL_LAST> kTypeNames = {
    "MARK",  "CREAT", "MKDIR", "HLINK", "SLINK",  "MKNOD", "UNLNK", "RMDIR", "RENME",
    "RNMTO", "OPEN",  "CLOSE", "LYOUT", "TRUNC",  "SATTR", "XATTR", "HSM",   "MTIME",
    "CTIME", "ATIME", "MIGRT", "FLRW",  "RESYNC", "GXATR", "NOPEN",
};

bool IsSeparator(char c) { return std::isspace(static_cast<unsigned char>(c)) || c == ','; }

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(a[i])) !=
        std::toupper(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<std::string_view> RecordTypeName(uint32_t type) {
  if (type >= kTypeNames.size()) return std::nullopt;
  return kTypeNames[type];
}

std::optional<uint32_t> ParseRecordTypeName(std::string_view name) {
  for (uint32_t t = 0; t < kTypeNames.size(); ++t) {
    if (kTypeNames[t] == name) return t;
  }
  return std::nullopt;
}

Result<uint64_t> ApplyMaskExpression(uint64_t mask, std::string_view expression) {
  std::string_view s = expression;
  size_t first = 0;
  while (first < s.size() && std::isspace(static_cast<unsigned char>(s[first]))) ++first;
  uint64_t newmask = mask;
  if (mask == CHANGELOG_MINMASK && first < s.size() && (s[first] == '+' || s[first] == '-')) {
    newmask = CHANGELOG_DEFMASK;
  }
  bool found = false;
  size_t pos = 0;
  while (pos < s.size()) {
    while (pos < s.size() && IsSeparator(s[pos])) ++pos;
    if (pos == s.size()) break;
    char op = 0;
    if (s[pos] == '+' || s[pos] == '-') {
      op = s[pos++];
      while (pos < s.size() && std::isspace(static_cast<unsigned char>(s[pos]))) ++pos;
      if (pos == s.size()) {
        return Status::Error("changelog mask '" + std::string(expression) + "' ends with '" +
                             std::string(1, op) + "' and no type name after it");
      }
    } else if (!found) {
      newmask = CHANGELOG_MINMASK;
    }
    size_t len = 0;
    while (pos + len < s.size() && !std::isspace(static_cast<unsigned char>(s[pos + len])) &&
           s[pos + len] != '+' && s[pos + len] != '-' && s[pos + len] != ',') {
      ++len;
    }
    std::string_view token = s.substr(pos, len);
    found = false;
    for (size_t t = 0; t < kTypeNames.size(); ++t) {
      if (EqualsIgnoreCase(token, kTypeNames[t])) {
        if (op == '-') {
          newmask &= ~(uint64_t{1} << t);
        } else {
          newmask |= uint64_t{1} << t;
        }
        found = true;
        break;
      }
    }
    if (!found && EqualsIgnoreCase(token, "ALL")) {
      newmask = op == '-' ? CHANGELOG_MINMASK : CHANGELOG_ALLMASK;
      found = true;
    }
    if (!found && EqualsIgnoreCase(token, "NONE")) {
      if (op != '-') newmask = CHANGELOG_MINMASK;
      found = true;
    }
    if (!found && EqualsIgnoreCase(s.substr(pos), "DEFAULT")) {
      if (op == '-') {
        newmask = (newmask & ~CHANGELOG_DEFMASK) | CHANGELOG_MINMASK;
      } else if (op == '+') {
        newmask |= CHANGELOG_DEFMASK;
      } else {
        newmask = CHANGELOG_DEFMASK;
      }
      found = true;
    }
    if (!found) {
      return Status::Error("unknown changelog mask word '" + std::string(token) + "' in '" +
                           std::string(expression) +
                           "': use [+|-]TYPE (MARK CREAT MKDIR ... NOPEN), ALL, NONE or DEFAULT");
    }
    pos += len;
  }
  return newmask | CHANGELOG_MINMASK;
}

std::string FormatMask(uint64_t mask) {
  std::string out;
  for (size_t t = 0; t < kTypeNames.size(); ++t) {
    if (mask & (uint64_t{1} << t)) {
      out += kTypeNames[t];
      out += ' ';
    }
  }
  return out;
}

}  // namespace fathom::lustre

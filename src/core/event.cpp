#include "fathom/event.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <utility>

namespace fathom {
namespace {

constexpr std::array<std::pair<uint32_t, std::string_view>, 15> kNames = {{
    {kind::kAccess, "ACCESS"},
    {kind::kModify, "MODIFY"},
    {kind::kAttrib, "ATTRIB"},
    {kind::kCloseWrite, "CLOSE_WRITE"},
    {kind::kCloseNowrite, "CLOSE_NOWRITE"},
    {kind::kOpen, "OPEN"},
    {kind::kMovedFrom, "MOVED_FROM"},
    {kind::kMovedTo, "MOVED_TO"},
    {kind::kCreate, "CREATE"},
    {kind::kDelete, "DELETE"},
    {kind::kDeleteSelf, "DELETE_SELF"},
    {kind::kMoveSelf, "MOVE_SELF"},
    {kind::kOverflow, "OVERFLOW"},
    {kind::kParentRemoved, "PARENT_REMOVED"},
    {kind::kIsDir, "ISDIR"},
}};

}  // namespace

std::vector<std::string_view> KindNameList(uint32_t mask) {
  std::vector<std::string_view> out;
  for (const auto& [bit, name] : kNames) {
    if (mask & bit) out.push_back(name);
  }
  return out;
}

void AppendKindNames(uint32_t mask, std::string& out) {
  bool first = true;
  for (const auto& [bit, name] : kNames) {
    if (!(mask & bit)) continue;
    if (!first) out += ',';
    first = false;
    out += name;
  }
}

std::string KindNames(uint32_t mask) {
  std::string out;
  AppendKindNames(mask, out);
  return out;
}

std::optional<uint32_t> ParseKind(std::string_view name) {
  std::string upper(name);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  if (upper == "CLOSE") return kind::kCloseWrite | kind::kCloseNowrite;
  if (upper == "MOVE") return kind::kMovedFrom | kind::kMovedTo;
  for (const auto& [bit, n] : kNames) {
    if (n == upper && bit != kind::kIsDir) return bit;
  }
  return std::nullopt;
}

bool PathUnder(std::string_view path, std::string_view prefix) {
  if (prefix == "/" || prefix.empty()) return true;
  if (!path.starts_with(prefix)) return false;
  return path.size() == prefix.size() || path[prefix.size()] == '/';
}

bool PathSelected(std::string_view path, std::string_view prefix, bool recursive) {
  if (!PathUnder(path, prefix)) return false;
  if (recursive || prefix.empty() || prefix == "/" || path.size() == prefix.size()) return true;
  return path.find('/', prefix.size() + 1) == std::string_view::npos;
}

std::string RelativePath(std::string_view root, std::string_view path) {
  if (root == "/") return std::string(path);
  if (path.size() <= root.size()) return "/";
  return std::string(path.substr(root.size()));
}

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace fathom

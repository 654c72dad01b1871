// access.cpp — Access: grants over paths.
#include "web/access.h"

#include "fathom/event.h"

namespace fathom::web {

bool Access::Everything() const {
  for (const std::string& p : paths) {
    if (p == "/") return true;
  }
  return false;
}

bool Access::Covers(std::string_view path) const {
  for (const std::string& p : paths) {
    if (p == "/" || PathUnder(path, p)) return true;
  }
  return false;
}

std::vector<std::string> Access::ScopesUnder(std::string_view path) const {
  std::string_view top = path == "/" ? std::string_view() : path;
  if (top.empty() ? Everything() : Covers(top)) return {top.empty() ? std::string("/") : std::string(top)};
  std::vector<std::string> scopes;
  for (const std::string& p : paths) {
    if (top.empty() || PathUnder(p, top)) scopes.push_back(p);
  }
  return scopes;
}

std::optional<std::string> CleanPath(std::string_view path) {
  if (path.empty() || path.front() != '/') return std::nullopt;
  if (path == "/") return std::string("/");
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  size_t start = 1;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return std::nullopt;
    start = end + 1;
  }
  if (path.find('\0') != std::string_view::npos) return std::nullopt;
  return std::string(path);
}

}  // namespace fathom::web

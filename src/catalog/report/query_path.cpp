#include "catalog/report/query_path.h"

#include <unistd.h>

#include <cerrno>
#include <vector>

namespace fathom::catalog::report {

std::string CatalogPath(std::string_view arg, std::string_view cwd) {
  std::string joined;
  if (arg.empty() || arg.front() != '/') {
    joined.append(cwd);
    joined.push_back('/');
  }
  joined.append(arg);
  std::vector<std::string_view> parts;
  std::string_view rest = joined;
  while (!rest.empty()) {
    size_t slash = rest.find('/');
    std::string_view part = rest.substr(0, slash);
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  if (parts.empty()) return "/";
  std::string path;
  for (std::string_view part : parts) {
    path.push_back('/');
    path.append(part);
  }
  return path;
}

std::string CurrentDirectory() {
  std::vector<char> buf(4096);
  while (getcwd(buf.data(), buf.size()) == nullptr) {
    if (errno != ERANGE) return "/";
    buf.resize(buf.size() * 2);
  }
  return std::string(buf.data());
}

std::string DisplayPath(std::string_view arg, std::string_view start, std::string_view path) {
  if (path.size() == start.size()) return std::string(arg);
  std::string_view relative = path.substr(start == "/" ? 1 : start.size() + 1);
  std::string out(arg);
  if (!out.empty() && out.back() == '/') out.pop_back();
  out.push_back('/');
  out.append(relative);
  return out;
}

}  // namespace fathom::catalog::report

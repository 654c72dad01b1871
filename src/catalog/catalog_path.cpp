#include "catalog/catalog_path.h"

#include "fathom/catalog.h"

namespace fathom::catalog {

std::string LexicalPath(std::string_view cwd, std::string_view arg) {
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


Status CheckPath(std::string_view path) {
  auto bad = [&](const char* why) {
    return Status::Error("catalog path '" + std::string(path) + "' " + why +
                         ": give an absolute path without '.', '..' or a trailing '/'");
  };
  if (path.empty() || path.front() != '/') return bad("is not absolute");
  if (path == "/") return Status::Ok();
  if (path.back() == '/') return bad("ends in '/'");
  size_t start = 1;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(start, end - start);
    if (part.empty()) return bad("has an empty component");
    if (part == "." || part == "..") return bad("has a '.' or '..' component");
    start = end + 1;
  }
  return Status::Ok();
}

bool PathIsUnder(std::string_view path, std::string_view prefix) {
  if (prefix == "/") return !path.empty() && path.front() == '/';
  if (path.size() < prefix.size() || path.substr(0, prefix.size()) != prefix) return false;
  return path.size() == prefix.size() || path[prefix.size()] == '/';
}

std::vector<std::string_view> NamesBelow(std::string_view path, std::string_view root) {
  std::vector<std::string_view> names;
  size_t start = root == "/" ? 1 : root.size() + 1;
  while (start < path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    names.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return names;
}

std::string JoinPath(std::string_view dir, std::string_view name) {
  std::string path(dir);
  if (path != "/") path.push_back('/');
  path.append(name);
  return path;
}

}  // namespace fathom::catalog

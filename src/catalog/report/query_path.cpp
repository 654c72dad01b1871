#include "catalog/report/query_path.h"

#include <unistd.h>

#include <cerrno>
#include <vector>

namespace fathom::catalog::report {

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

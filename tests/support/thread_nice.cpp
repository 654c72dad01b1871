#include "support/thread_nice.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fathom::testing {

std::optional<int> NiceOfThread(std::string_view name) {
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string line;
    if (!std::getline(comm, line) || line != name) continue;
    std::ifstream stat_file(task.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(stat_file)), std::istreambuf_iterator<char>());
    // Fields after the parenthesised name: state (3) ... priority (18), nice (19).
    std::istringstream fields(stat.substr(stat.rfind(')') + 2));
    std::string field;
    for (int i = 3; i < 19 && fields >> field; ++i) {
    }
    int nice = 0;
    if (fields >> nice) return nice;
  }
  return std::nullopt;
}

}  // namespace fathom::testing

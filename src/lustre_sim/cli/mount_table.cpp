#include "lustre_sim/cli/mount_table.h"

#include <fstream>
#include <sstream>

namespace fathom::lustre_sim {
namespace {

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string Unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      int v = 0;
      bool ok = true;
      for (size_t j = 1; j <= 3; ++j) {
        char c = s[i + j];
        if (c < '0' || c > '7') {
          ok = false;
          break;
        }
        v = v * 8 + (c - '0');
      }
      if (ok) {
        out.push_back(static_cast<char>(v));
        i += 3;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

}  // namespace

std::vector<MountInfo> ReadMountTable() {
  std::vector<MountInfo> out;
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string id, parent, devno, root, mountpoint, options, word;
    if (!(fields >> id >> parent >> devno >> root >> mountpoint >> options)) continue;
    while (fields >> word && word != "-") {
    }
    MountInfo info;
    info.mountpoint = Unescape(mountpoint);
    fields >> info.fstype >> info.source;
    info.source = Unescape(info.source);
    out.push_back(std::move(info));
  }
  return out;
}

std::optional<MountInfo> MountAt(const std::string& path) {
  std::optional<MountInfo> found;
  for (auto& m : ReadMountTable()) {
    if (m.mountpoint == path) found = m;  // the last one is on top
  }
  return found;
}

}  // namespace fathom::lustre_sim

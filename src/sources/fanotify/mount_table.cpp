#include "sources/fanotify/mount_table.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace fathom::fanotify_internal {
namespace {

constexpr const char* kMountInfo = "/proc/self/mountinfo";

// mountinfo writes ' ', '\t', '\n' and '\\' in paths as \ooo (three octal digits).
std::string Unescape(std::string_view field) {
  std::string out;
  out.reserve(field.size());
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size() && field[i + 1] >= '0' && field[i + 1] <= '3' &&
        field[i + 2] >= '0' && field[i + 2] <= '7' && field[i + 3] >= '0' && field[i + 3] <= '7') {
      out += static_cast<char>((field[i + 1] - '0') * 64 + (field[i + 2] - '0') * 8 + (field[i + 3] - '0'));
      i += 3;
    } else {
      out += field[i];
    }
  }
  return out;
}

std::vector<std::string_view> Fields(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t i = 0;
  while (i < line.size()) {
    size_t end = line.find(' ', i);
    if (end == std::string_view::npos) end = line.size();
    if (end > i) fields.push_back(line.substr(i, end - i));
    i = end + 1;
  }
  return fields;
}

}  // namespace

std::vector<MountEntry> ParseMountInfo(std::string_view text) {
  // "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue":
  // mount point is field 5; after the optional fields and "-" come the type and the source.
  std::vector<MountEntry> mounts;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    const auto fields = Fields(line);
    size_t dash = 6;
    while (dash < fields.size() && fields[dash] != "-") ++dash;
    if (fields.size() < 6 || dash + 2 >= fields.size() || fields[4].empty() || fields[4][0] != '/') continue;
    mounts.push_back(MountEntry{Unescape(fields[4]), Unescape(fields[dash + 1]), Unescape(fields[dash + 2])});
  }
  return mounts;
}

Result<MountTable> MountTable::Open() {
  int fd = open(kMountInfo, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno(errno, std::string("fanotify: cannot open ") + kMountInfo);
  return MountTable(UniqueFd(fd));
}

Result<std::vector<MountEntry>> MountTable::Read() const {
  std::string text;
  char buf[16384];
  for (off_t at = 0;;) {
    ssize_t n = pread(fd_.get(), buf, sizeof buf, at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::FromErrno(errno, std::string("fanotify: cannot read ") + kMountInfo);
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
    at += n;
  }
  return ParseMountInfo(text);
}

}  // namespace fathom::fanotify_internal

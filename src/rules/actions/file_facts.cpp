// file_facts.cpp — FileFactsJson: a file's attributes (lstat) and, for a regular file, the
// SHA-256 of its content (core/file_copy.h), as the JSON object a webhook's events carry.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/file_copy.h"
#include "core/unique_fd.h"
#include "fathom/format.h"
#include "rules/actions/action.h"

namespace fathom::rules {
namespace {

const char* TypeName(mode_t mode) {
  switch (mode & S_IFMT) {
    case S_IFREG: return "file";
    case S_IFDIR: return "dir";
    case S_IFLNK: return "symlink";
    case S_IFIFO: return "fifo";
    case S_IFSOCK: return "socket";
    case S_IFCHR: return "char";
    case S_IFBLK: return "block";
  }
  return "unknown";
}

std::string ErrorJson(const std::string& why) {
  std::string out = "{\"error\":";
  AppendJsonString(why, out);
  return out + "}";
}

int64_t Ns(const timespec& t) { return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec; }

}  // namespace

std::string FileFactsJson(const std::string& path, bool sha256) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return ErrorJson(errno == ENOENT ? "gone" : std::strerror(errno));
  char mode[8];
  std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
  std::string out = std::string("{\"type\":\"") + TypeName(st.st_mode) + "\"";
  out += ",\"size\":" + std::to_string(st.st_size) + ",\"blocks\":" + std::to_string(st.st_blocks);
  out += std::string(",\"mode\":\"") + mode + "\",\"uid\":" + std::to_string(st.st_uid) +
         ",\"gid\":" + std::to_string(st.st_gid);
  out += ",\"mtime_ns\":" + std::to_string(Ns(st.st_mtim)) + ",\"ctime_ns\":" + std::to_string(Ns(st.st_ctim));
  if (sha256 && S_ISREG(st.st_mode)) {
    UniqueFd fd(open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    Result<std::string> digest = fd.valid() ? Sha256OfFile(fd.get(), path)
                                            : Result<std::string>(Status::FromErrno(errno, "cannot open " + path));
    if (digest.ok()) {
      out += ",\"sha256\":\"" + *digest + "\"";
    } else {
      out += ",\"sha256_error\":";
      AppendJsonString(digest.status().message(), out);
    }
  }
  return out + "}";
}

}  // namespace fathom::rules

// secret_file.cpp — ReadSecretFile: open, check the mode on the open file, read.
#include "rules/actions/secret_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "core/unique_fd.h"

namespace fathom::rules {

Result<std::string> ReadSecretFile(const std::string& path) {
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
  if (!fd.valid()) return Status::FromErrno(errno, "cannot open the webhook secret file " + path);
  struct stat st {};
  if (fstat(fd.get(), &st) != 0) return Status::FromErrno(errno, "cannot read the webhook secret file " + path);
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return Status::Error("the webhook secret file " + path + " has mode " + mode +
                         ": it must not be accessible to group or others (chmod 600 " + path + ")");
  }
  std::string secret;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::FromErrno(errno, "cannot read the webhook secret file " + path);
    if (n == 0) break;
    secret.append(buf, static_cast<size_t>(n));
  }
  if (secret.ends_with('\n')) secret.pop_back();
  if (secret.ends_with('\r')) secret.pop_back();
  if (secret.empty()) return Status::Error("the webhook secret file " + path + " is empty");
  return secret;
}

}  // namespace fathom::rules

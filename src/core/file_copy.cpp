// file_copy.cpp — MakeParentDirs, ReplicaPath, Sha256OfFile, CopyFileVerified.
#include "core/file_copy.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <memory>
#include <vector>

#include "core/unique_fd.h"

namespace fathom {
namespace {

Status Errno(const std::string& what) { return Status::FromErrno(errno, what); }

struct DigestDeleter {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};

class Sha256 {
 public:
  Sha256() : ctx_(EVP_MD_CTX_new()) { EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr); }
  void Add(const char* data, size_t n) { EVP_DigestUpdate(ctx_.get(), data, n); }
  std::string Hex() {
    std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
    unsigned int len = 0;
    EVP_DigestFinal_ex(ctx_.get(), md.data(), &len);
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < len; ++i) {
      out += kHex[md[i] >> 4];
      out += kHex[md[i] & 15];
    }
    return out;
  }

 private:
  std::unique_ptr<EVP_MD_CTX, DigestDeleter> ctx_;
};

// The SHA-256 of the file at `path`, not following a symbolic link.
Result<std::string> Sha256OfPath(const std::string& path) {
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return Errno("cannot read " + path);
  return Sha256OfFile(fd.get(), path);
}

}  // namespace

Status MakeParentDirs(const std::string& path) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1)) {
    const std::string dir = path.substr(0, slash);
    if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return Errno("cannot make directory " + dir);
  }
  return Status::Ok();
}

std::string ReplicaPath(std::string_view dir, std::string_view path) {
  while (dir.size() > 1 && dir.back() == '/') dir.remove_suffix(1);
  return std::string(dir == "/" ? "" : dir) + std::string(path);
}

Result<std::string> Sha256OfFile(int fd, const std::string& path) {
  Sha256 sha;
  std::vector<char> buf(1 << 20);
  for (;;) {
    const ssize_t n = read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Errno("cannot read " + path);
    if (n == 0) break;
    sha.Add(buf.data(), static_cast<size_t>(n));
  }
  return sha.Hex();
}

Result<CopiedFile> CopyFileVerified(const FileCopy& c) {
  const struct stat& st = c.source_stat;
  FATHOM_RETURN_IF_ERROR(MakeParentDirs(c.destination));
  const std::string tmp = c.destination + ".fathom-copy";
  UniqueFd out(open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, st.st_mode & 07777));
  if (!out.valid()) return Errno("cannot create " + tmp);
  auto fail = [&](Status s) -> Result<CopiedFile> {
    unlink(tmp.c_str());
    return s;
  };
  Sha256 sha;
  std::vector<char> buf(1 << 20);
  for (;;) {
    const ssize_t n = read(c.source_fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(Errno("cannot read " + c.source));
    if (n == 0) break;
    sha.Add(buf.data(), static_cast<size_t>(n));
    for (ssize_t done = 0; done < n;) {
      const ssize_t w = write(out.get(), buf.data() + done, static_cast<size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) return fail(Errno("cannot write " + tmp));
      done += w;
    }
  }
  CopiedFile copied;
  copied.sha256 = sha.Hex();
  if (fchown(out.get(), st.st_uid, st.st_gid) != 0 && errno != EPERM) return fail(Errno("cannot set the owner of " + tmp));
  const timespec times[2] = {st.st_atim, st.st_mtim};
  if (futimens(out.get(), times) != 0) return fail(Errno("cannot set the times of " + tmp));
  if (fsync(out.get()) != 0) return fail(Errno("cannot write " + tmp));
  if (c.verify) {
    UniqueFd check(open(tmp.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (!check.valid()) return fail(Errno("cannot read back " + tmp));
    auto written = Sha256OfFile(check.get(), tmp);
    if (!written.ok()) return fail(written.status());
    if (*written != copied.sha256) {
      return fail(Status::Error("the copy of " + c.source + " differs from what was read (sha256 " + *written +
                                " != " + copied.sha256 + "): not kept"));
    }
  }
  if (c.replace) {
    if (rename(tmp.c_str(), c.destination.c_str()) != 0) return fail(Errno("cannot rename " + tmp));
    return copied;
  }
  if (renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, c.destination.c_str(), RENAME_NOREPLACE) == 0) return copied;
  if (errno != EEXIST) return fail(Errno("cannot rename " + tmp + " to " + c.destination));
  // Already there: the same content is the copy done before (a repeated attempt); other
  // content is someone else's file, never replaced.
  auto there = Sha256OfPath(c.destination);
  if (!there.ok()) return fail(there.status());
  if (*there != copied.sha256) {
    return fail(Status::Error(c.destination + " already exists with other content (sha256 " + *there + ", the copy of " +
                                  c.source + " has sha256 " + copied.sha256 + "): not replaced",
                              std::make_error_code(std::errc::file_exists)));
  }
  unlink(tmp.c_str());
  copied.already_there = true;
  return copied;
}

}  // namespace fathom

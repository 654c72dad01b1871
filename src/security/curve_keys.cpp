// curve_keys.cpp — CURVE key pairs (zmq_curve_keypair) and their BASE.key / BASE.pub files.
#include "security/curve_keys.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#include <cerrno>
#include <fstream>
#include <sstream>
#include <string_view>

namespace fathom::security {
namespace {

constexpr size_t kZ85KeyLength = 40;
constexpr std::string_view kZ85Alphabet =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Creates `path` exclusively with `mode` and writes `text` into it.
Status WriteNewFile(const std::string& path, const std::string& text, mode_t mode) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) {
    if (errno == EEXIST) {
      return Status::Error("key file " + path +
                           " already exists: remove it or choose another name with -o");
    }
    return Status::FromErrno(errno, "creating key file " + path);
  }
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      Status error = Status::FromErrno(errno, "writing key file " + path);
      ::close(fd);
      return error;
    }
    done += static_cast<size_t>(n);
  }
  if (::fchmod(fd, mode) != 0 || ::close(fd) != 0) {
    return Status::FromErrno(errno, "finishing key file " + path);
  }
  return Status::Ok();
}

}  // namespace

bool IsZ85Key(std::string_view key) {
  if (key.size() != kZ85KeyLength) return false;
  for (char c : key) {
    if (kZ85Alphabet.find(c) == std::string_view::npos) return false;
  }
  return true;
}

Result<KeyPair> GenerateKeyPair() {
  char public_key[kZ85KeyLength + 1] = {};
  char secret_key[kZ85KeyLength + 1] = {};
  if (zmq_curve_keypair(public_key, secret_key) != 0) {
    return Status::FromErrno(errno,
                             "generating a CURVE key pair (is libzmq built with CURVE support?)");
  }
  return KeyPair{public_key, secret_key};
}

Status WriteKeyFiles(const KeyPair& keys, const std::string& base_path) {
  if (!IsZ85Key(keys.public_key) || !IsZ85Key(keys.secret_key)) {
    return Status::Error("writing key files " + base_path + ".key/.pub: the key pair is not Z85");
  }
  const std::string secret_path = base_path + ".key";
  const std::string public_path = base_path + ".pub";
  struct stat st;
  if (::stat(public_path.c_str(), &st) == 0) {
    return Status::Error("key file " + public_path +
                         " already exists: remove it or choose another name with -o");
  }
  FATHOM_RETURN_IF_ERROR(WriteNewFile(secret_path,
                                      "# fathom CURVE key pair: keep this file secret\n"
                                      "public-key = " + keys.public_key + "\n" +
                                          "secret-key = " + keys.secret_key + "\n",
                                      0600));
  Status written = WriteNewFile(public_path,
                                "# fathom CURVE public key\npublic-key = " + keys.public_key + "\n",
                                0644);
  if (!written.ok()) ::unlink(secret_path.c_str());
  return written;
}

Result<KeyPair> LoadKeyFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::FromErrno(errno, "reading key file " + path);
  KeyPair keys;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    std::string_view text = Trim(line);
    if (text.empty() || text.front() == '#') continue;
    const std::string where = path + ":" + std::to_string(number);
    size_t eq = text.find('=');
    if (eq == std::string_view::npos) {
      return Status::Error(where + ": expected 'public-key = KEY' or 'secret-key = KEY'");
    }
    std::string_view name = Trim(text.substr(0, eq));
    std::string_view value = Trim(text.substr(eq + 1));
    if (!IsZ85Key(value)) {
      return Status::Error(where + ": '" + std::string(name) +
                           "' is not a 40-character Z85 key (make keys with `fathom keygen`)");
    }
    if (name == "public-key") {
      keys.public_key = std::string(value);
    } else if (name == "secret-key") {
      keys.secret_key = std::string(value);
    } else {
      return Status::Error(where + ": unknown entry '" + std::string(name) +
                           "' (expected public-key or secret-key)");
    }
  }
  if (keys.public_key.empty()) {
    return Status::Error("key file " + path +
                         " holds no 'public-key = KEY' line (make keys with `fathom keygen`)");
  }
  if (!keys.secret_key.empty()) {
    char derived[kZ85KeyLength + 1] = {};
    if (zmq_curve_public(derived, keys.secret_key.c_str()) != 0 ||
        keys.public_key != derived) {
      return Status::Error("key file " + path +
                           ": the public key does not belong to the secret key");
    }
  }
  return keys;
}

Result<std::string> LoadPublicKey(const std::string& text) {
  if (IsZ85Key(text)) return text;
  FATHOM_ASSIGN_OR_RETURN(KeyPair keys, LoadKeyFile(text));
  return keys.public_key;
}

}  // namespace fathom::security

// config_check.cpp — files and directories named by fathomd's configuration (config_check.h).
#include "daemon/config_check.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "security/client_list.h"
#include "security/curve_keys.h"

namespace fathom::daemon {
namespace {

namespace fs = std::filesystem;

// "" when `path` (a file that is written, perhaps not yet there) can be written.
std::string Writable(const fs::path& path) {
  std::error_code ec;
  if (fs::exists(path, ec)) {
    if (access(path.c_str(), W_OK) != 0) return std::string("cannot be written: ") + std::strerror(errno);
    return "";
  }
  const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  if (!fs::is_directory(dir, ec)) return "its directory " + dir.string() + " does not exist: create it";
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    return "its directory " + dir.string() + " cannot be written: " + std::strerror(errno);
  }
  return "";
}

std::string Exists(const fs::path& path) {
  std::error_code ec;
  if (fs::exists(path, ec)) return "";
  return "does not exist";
}

// What is wrong with one configured value of `role` ("" when nothing is, or the value names
// no file).
std::string Problem(const std::string& role, const RoleValue& v, const fs::path& dir) {
  const fs::path path = fs::path(v.value).is_absolute() ? fs::path(v.value) : dir / v.value;
  if (v.key == "key") {
    auto keys = security::LoadKeyFile(path.string());
    if (!keys.ok()) return keys.status().message();
    if (keys.value().secret_key.empty()) return "holds only a public key: give the .key file written by `fathom keygen`";
    return "";
  }
  if (v.key == "server-key") {
    if (security::IsZ85Key(v.value)) return "";
    auto key = security::LoadPublicKey(path.string());
    return key.ok() ? "" : key.status().message();
  }
  if (v.key == "clients") {
    auto clients = security::ClientList::Load(path.string());
    return clients.ok() ? "" : clients.status().message();
  }
  if (v.key == "store" && role == "aggregate") {
    constexpr std::string_view kScheme = "sqlite:";
    if (!v.value.starts_with(kScheme)) return "";  // the aggregator says how to write it
    const std::string file = v.value.substr(kScheme.size());
    return Writable(fs::path(file).is_absolute() ? fs::path(file) : dir / file);
  }
  if (v.key == "output") return Writable(path);
  if (v.key == "paths" || v.key == "mount" || v.key == "lustre-library") return Exists(path);
  return "";
}

}  // namespace

std::vector<std::string> CheckRoleFiles(const DaemonConfig& config, const std::string& origin) {
  std::vector<std::string> problems;
  for (const auto& role : config.roles) {
    const std::string command = role.args.empty() ? "" : role.args.front();
    for (const auto& v : role.values) {
      const std::string problem = Problem(command, v, config.directory);
      if (problem.empty()) continue;
      problems.push_back(origin + ":" + std::to_string(v.line) + ": " + role.label + ": " + v.key + " " + v.value +
                         ": " + problem);
    }
  }
  return problems;
}

}  // namespace fathom::daemon

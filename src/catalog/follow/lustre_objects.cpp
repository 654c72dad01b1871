#include "catalog/follow/lustre_objects.h"

#include <nlohmann/json.hpp>
#include <sys/stat.h>

namespace fathom::catalog {
namespace {

std::optional<lustre::Fid> FidMember(const nlohmann::json& attrs, const char* key) {
  auto it = attrs.find(key);
  if (it == attrs.end() || !it->is_string()) return std::nullopt;
  auto fid = lustre::ParseFid(it->get<std::string>());
  if (!fid.ok() || fid->zero()) return std::nullopt;
  return *fid;
}

bool IsDirectory(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

LustreIds LustreIdsOf(const Event& e) {
  LustreIds ids;
  if (e.attrs.find("\"fid\"") == std::string::npos) return ids;  // not a Lustre event
  const auto attrs = nlohmann::json::parse(e.attrs, nullptr, /*allow_exceptions=*/false);
  if (!attrs.is_object()) return ids;
  ids.fid = FidMember(attrs, "fid");
  ids.pfid = FidMember(attrs, "pfid");
  return ids;
}

const LustreObjects::Root& LustreObjects::Of(const std::string& root) {
  if (auto it = roots_.find(root); it != roots_.end()) return it->second;
  Root info;
  struct stat st {};
  if (::lstat(root.c_str(), &st) == 0) info.dev = static_cast<uint64_t>(st.st_dev);
  // The mount is the nearest directory at or above the root that serves .lustre/fid.
  for (std::string dir = root; !dir.empty();) {
    if (IsDirectory(dir == "/" ? "/.lustre/fid" : dir + "/.lustre/fid")) {
      info.mount = dir;
      break;
    }
    if (dir == "/") break;
    const size_t slash = dir.rfind('/');
    dir = slash == 0 ? "/" : dir.substr(0, slash);
  }
  return roots_.emplace(root, std::move(info)).first->second;
}

std::optional<std::pair<uint64_t, uint64_t>> LustreObjects::Identity(const std::string& root,
                                                                     const lustre::Fid& fid) {
  const Root& info = Of(root);
  if (!info.dev) return std::nullopt;
  return std::make_pair(*info.dev, lustre::FlattenFid(fid));
}

std::string LustreObjects::ObjectPath(const std::string& root, const lustre::Fid& fid) {
  const Root& info = Of(root);
  if (info.mount.empty()) return {};
  return (info.mount == "/" ? "" : info.mount) + "/.lustre/fid/" + lustre::FormatFid(fid);
}

}  // namespace fathom::catalog

#include "sources/lustre/lustre_settings.h"

#include <cctype>
#include <charconv>

namespace fathom::lustre_source {
namespace {

constexpr const char* kKnown =
    "lustre.device, lustre.mount, lustre.user, lustre.library, lustre.cache-size";

// "testfs-MDT0000" -> fsname "testfs", index 0 (the index is hexadecimal, as Lustre names it).
Status ParseDevice(const std::string& device, LustreSettings& s) {
  const auto bad = [&](const std::string& why) {
    return Status::Error("lustre.device '" + device + "' is not an MDT name like testfs-MDT0000 (" +
                         why + ")");
  };
  const size_t dash = device.rfind("-MDT");
  if (dash == std::string::npos || dash == 0) return bad("no FSNAME-MDT prefix");
  const std::string index = device.substr(dash + 4);
  if (index.size() != 4) return bad("the MDT index must have 4 hexadecimal digits");
  int mdt = 0;
  auto [end, ec] = std::from_chars(index.data(), index.data() + index.size(), mdt, 16);
  if (ec != std::errc() || end != index.data() + index.size()) {
    return bad("the MDT index must have 4 hexadecimal digits");
  }
  const std::string fsname = device.substr(0, dash);
  if (fsname.size() > 8) return bad("a file system name has at most 8 characters");
  for (char c : fsname) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') {
      return bad("the file system name may hold letters, digits, '_' and '-' only");
    }
  }
  s.device = device;
  s.fsname = fsname;
  s.mdt = mdt;
  return Status::Ok();
}

}  // namespace

Result<LustreSettings> ParseLustreSettings(const SourceOptions& options) {
  LustreSettings s;
  bool have_device = false;
  for (const auto& [key, value] : options.settings) {
    if (key == "lustre.device") {
      FATHOM_RETURN_IF_ERROR(ParseDevice(value, s));
      have_device = true;
    } else if (key == "lustre.mount") {
      if (value.empty() || value[0] != '/') {
        return Status::Error(
            "lustre.mount must be the absolute path of the Lustre client mount, not '" + value +
            "'");
      }
      s.mount = value;
      while (s.mount.size() > 1 && s.mount.back() == '/') s.mount.pop_back();
    } else if (key == "lustre.user") {
      if (value.empty()) return Status::Error("lustre.user must name a changelog user, e.g. cl1");
      s.user = value;
    } else if (key == "lustre.library") {
      if (value.empty())
        return Status::Error("lustre.library must name liblustreapi (a path or soname)");
      s.library = value;
    } else if (key == "lustre.cache-size") {
      size_t n = 0;
      auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (value.empty() || ec != std::errc() || end != value.data() + value.size()) {
        return Status::Error(
            "lustre.cache-size must be a number of FID→path entries "
            "(0 disables the cache), not '" +
            value + "'");
      }
      s.cache_size = n;
    } else if (key.rfind("lustre.", 0) == 0) {
      return Status::Error("unknown setting " + key + " (known: " + kKnown + ")");
    }
  }
  if (!have_device) {
    return Status::Error(
        "lustre: no MDT given (set lustre.device, e.g. --source lustre:testfs-MDT0000)");
  }
  if (s.mount.empty()) {
    return Status::Error(
        "lustre: no client mount point given (set lustre.mount, e.g. --mount /mnt/testfs)");
  }
  return s;
}

}  // namespace fathom::lustre_source

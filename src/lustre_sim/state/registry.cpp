#include "lustre_sim/state/registry.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "lustre_sim/state/sim_state.h"

namespace fathom::lustre_sim {
namespace fs = std::filesystem;
namespace {

std::string EntryPath(std::string_view fsname) { return RegistryDir() + "/" + std::string(fsname) + ".json"; }

std::optional<RegistryEntry> ReadEntry(const fs::path& file) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  nlohmann::json json = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return std::nullopt;
  RegistryEntry entry;
  entry.fsname = json.value("fsname", "");
  entry.mode = json.value("mode", "fuse");
  entry.mount = json.value("mount", "");
  entry.state_dir = json.value("state_dir", "");
  entry.rate = json.value("rate", uint64_t{0});
  if (entry.fsname.empty() || entry.state_dir.empty()) return std::nullopt;
  return entry;
}

std::string Normalize(std::string_view path) {
  std::error_code ec;
  fs::path abs = fs::absolute(fs::path(path), ec);
  if (ec) return std::string(path);
  std::string text = abs.lexically_normal().string();
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

bool Under(const std::string& path, const std::string& mount) {
  if (mount.empty()) return false;
  if (path == mount) return true;
  return path.size() > mount.size() && path.compare(0, mount.size(), mount) == 0 &&
         (mount == "/" || path[mount.size()] == '/');
}

}  // namespace

std::string RegistryDir() {
  const char* dir = std::getenv("FATHOM_LUSTRE_SIM_RUNDIR");
  if (dir != nullptr && *dir != '\0') return dir;
  return "/run/fathom-lustre-sim";
}

Status WriteRegistryEntry(const RegistryEntry& entry) {
  std::string dir = RegistryDir();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    return ErrnoStatus(ec.value(), "cannot create registry directory " + dir + ": " + ec.message() +
                                       " (set FATHOM_LUSTRE_SIM_RUNDIR to a writable directory)");
  }
  nlohmann::json json = {{"fsname", entry.fsname},
                         {"mode", entry.mode},
                         {"mount", entry.mount},
                         {"state_dir", entry.state_dir}};
  if (entry.mode == "fast") json["rate"] = entry.rate;
  std::string path = EntryPath(entry.fsname);
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << json.dump(2) << "\n";
    out.flush();
    if (!out) return ErrnoStatus(EIO, "cannot write registry entry " + tmp);
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return ErrnoStatus(EIO, "cannot install registry entry " + path);
  }
  return Status::Ok();
}

Status RemoveRegistryEntry(std::string_view fsname) {
  std::string path = EntryPath(fsname);
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    return Status::FromErrno(errno, "cannot remove registry entry " + path);
  }
  return Status::Ok();
}

std::vector<RegistryEntry> ListRegistryEntries() {
  std::vector<RegistryEntry> entries;
  std::error_code ec;
  for (const auto& item : fs::directory_iterator(RegistryDir(), ec)) {
    if (item.path().extension() != ".json") continue;
    if (auto entry = ReadEntry(item.path())) entries.push_back(std::move(*entry));
  }
  std::sort(entries.begin(), entries.end(),
            [](const RegistryEntry& a, const RegistryEntry& b) { return a.fsname < b.fsname; });
  return entries;
}

Result<RegistryEntry> FindRegistryEntry(std::string_view name_or_path, int* mdt) {
  if (mdt != nullptr) *mdt = 0;
  if (name_or_path.find('/') != std::string_view::npos) {
    std::string path = Normalize(name_or_path);
    const RegistryEntry* best = nullptr;
    auto entries = ListRegistryEntries();
    for (const auto& entry : entries) {
      if (Under(path, Normalize(entry.mount)) && (best == nullptr || entry.mount.size() > best->mount.size())) {
        best = &entry;
      }
    }
    if (best == nullptr) {
      std::error_code ec;
      fs::path canonical = fs::weakly_canonical(fs::path(path), ec);
      if (!ec) {
        for (const auto& entry : entries) {
          if (Under(canonical.string(), Normalize(entry.mount))) best = &entry;
        }
      }
    }
    if (best != nullptr) return *best;
    return ErrnoStatus(ENODEV, "'" + std::string(name_or_path) + "' is not inside a mounted emulated Lustre file system "
                                   "(registry " + RegistryDir() + "); mount one with `fathom-lustre-sim mount`");
  }
  std::string fsname(name_or_path);
  int index = 0;
  if (name_or_path.find("-MDT") != std::string_view::npos) {
    FATHOM_ASSIGN_OR_RETURN(auto parsed, ParseMdtName(name_or_path));
    fsname = parsed.first;
    index = parsed.second;
  }
  auto entry = ReadEntry(EntryPath(fsname));
  if (!entry) {
    return ErrnoStatus(ENODEV, "no emulated Lustre file system '" + fsname + "' is running (registry " + RegistryDir() +
                                   "); start it with `fathom-lustre-sim mount` or `fathom-lustre-sim fast`");
  }
  if (mdt != nullptr) *mdt = index;
  return *entry;
}

Result<std::pair<std::string, int>> ParseMdtName(std::string_view device) {
  size_t pos = device.rfind("-MDT");
  auto bad = [&] {
    return ErrnoStatus(EINVAL, "invalid MDT device '" + std::string(device) +
                                   "': expected FSNAME-MDTxxxx with a 4-digit hex index (e.g. testfs-MDT0000)");
  };
  if (pos == std::string_view::npos || pos == 0) return bad();
  std::string_view hex = device.substr(pos + 4);
  if (hex.size() != 4) return bad();
  int index = 0;
  for (char c : hex) {
    int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (digit < 0) return bad();
    index = index * 16 + digit;
  }
  return std::make_pair(std::string(device.substr(0, pos)), index);
}

std::string MdtName(std::string_view fsname, int mdt) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "-MDT%04x", mdt);
  return std::string(fsname) + buf;
}

std::string OstName(std::string_view fsname, int ost) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "-OST%04x", ost);
  return std::string(fsname) + buf;
}

}  // namespace fathom::lustre_sim

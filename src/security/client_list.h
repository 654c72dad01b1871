// client_list.h — the aggregator's clients: who may connect, in which roles, to which paths.
//
// Loaded from YAML:
//   clients:
//     - name: mdt0                # for logs
//       key: "Z85 public key"     # or the path of a .pub file (relative to the YAML file)
//       roles: [collect, subscribe]
//       paths: [/lustre/project]  # grants; default ["/"] = everything
// A path is granted when it equals a grant or lies under it on a path-component boundary
// ("/a" grants "/a" and "/a/b", never "/ab"). ClientList is immutable after loading and may be
// read from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "fathom/status.h"

namespace fathom::security {

namespace role {
inline constexpr uint32_t kCollect = 1;
inline constexpr uint32_t kSubscribe = 2;
inline constexpr uint32_t kAll = kCollect | kSubscribe;
}  // namespace role

struct ClientGrant {
  std::string name;
  std::string public_key;                 // Z85
  uint32_t roles = 0;                     // role:: bits
  std::vector<std::string> paths{"/"};   // normalized: absolute, no trailing '/'

  // True when `path` is one of the grants or lies under one.
  bool Grants(std::string_view path) const;
};

class ClientList {
 public:
  ClientList() = default;
  // Reads and checks a YAML client list; errors name the file, the line and the fix.
  static Result<ClientList> Load(const std::string& yaml_path);
  // The same from YAML text; `origin` names it in errors and relative key paths resolve
  // against `base_dir`.
  static Result<ClientList> Parse(const std::string& yaml_text, const std::string& origin,
                                  const std::string& base_dir);

  void Add(ClientGrant grant);
  // The grant of a public key, or nullptr.
  const ClientGrant* Find(std::string_view public_key) const;
  // The grants of the clients named `name` (names are for people: several keys may share one).
  std::vector<const ClientGrant*> Named(std::string_view name) const;
  size_t size() const { return by_key_.size(); }

 private:
  std::map<std::string, ClientGrant, std::less<>> by_key_;
};

}  // namespace fathom::security

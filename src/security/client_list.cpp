// client_list.cpp — the YAML client list and path grants.
#include "security/client_list.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fathom/event.h"
#include "security/curve_keys.h"

namespace fathom::security {
namespace {

std::string At(const std::string& origin, const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  if (mark.line < 0) return origin;
  return origin + ":" + std::to_string(mark.line + 1);
}

std::string NormalizeGrant(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

Result<std::vector<std::string>> StringList(const YAML::Node& node, const std::string& where,
                                            std::string_view field, std::string_view example) {
  std::vector<std::string> out;
  if (node.IsScalar()) {
    out.push_back(node.Scalar());
    return out;
  }
  if (!node.IsSequence()) {
    return Status::Error(where + ": '" + std::string(field) + "' must be a list, e.g. " +
                         std::string(field) + ": " + std::string(example));
  }
  for (const auto& item : node) {
    if (!item.IsScalar()) {
      return Status::Error(where + ": every entry of '" + std::string(field) +
                           "' must be a plain value, e.g. " + std::string(field) + ": " +
                           std::string(example));
    }
    out.push_back(item.Scalar());
  }
  return out;
}

Result<ClientGrant> ParseClient(const YAML::Node& entry, const std::string& origin,
                                const std::string& base_dir) {
  const std::string where = At(origin, entry);
  if (!entry.IsMap()) {
    return Status::Error(where +
                         ": each client is a map with name, key, roles and paths, e.g. "
                         "- {name: mdt0, key: mdt0.pub, roles: [collect], paths: [/]}");
  }
  for (const auto& field : entry) {
    const std::string key = field.first.Scalar();
    if (key != "name" && key != "key" && key != "roles" && key != "paths") {
      return Status::Error(At(origin, field.first) + ": unknown field '" + key +
                           "' (a client has name, key, roles and paths)");
    }
  }
  ClientGrant grant;
  if (!entry["name"] || !entry["name"].IsScalar() || entry["name"].Scalar().empty()) {
    return Status::Error(where + ": the client needs a 'name' (used in logs), e.g. name: mdt0");
  }
  grant.name = entry["name"].Scalar();
  const YAML::Node key = entry["key"];
  if (!key || !key.IsScalar() || key.Scalar().empty()) {
    return Status::Error(where + ": client '" + grant.name +
                         "' needs a 'key': its Z85 public key or the path of its .pub file "
                         "(made by `fathom keygen`)");
  }
  std::string key_text = key.Scalar();
  if (!IsZ85Key(key_text)) {
    std::filesystem::path p(key_text);
    if (p.is_relative()) p = std::filesystem::path(base_dir) / p;
    auto loaded = LoadPublicKey(p.string());
    if (!loaded.ok()) {
      return Status::Error(At(origin, key) + ": client '" + grant.name + "': key '" + key_text +
                           "' is neither a 40-character Z85 public key nor a readable .pub "
                           "file (" + loaded.status().message() + ")");
    }
    key_text = loaded.value();
  }
  grant.public_key = key_text;
  const YAML::Node roles = entry["roles"];
  if (!roles) {
    return Status::Error(where + ": client '" + grant.name +
                         "' needs 'roles': [collect], [subscribe] or [collect, subscribe]");
  }
  FATHOM_ASSIGN_OR_RETURN(auto role_names,
                          StringList(roles, At(origin, roles), "roles", "[collect, subscribe]"));
  for (const auto& r : role_names) {
    if (r == "collect") {
      grant.roles |= role::kCollect;
    } else if (r == "subscribe") {
      grant.roles |= role::kSubscribe;
    } else {
      return Status::Error(At(origin, roles) + ": client '" + grant.name + "': unknown role '" +
                           r + "' (the roles are collect and subscribe)");
    }
  }
  if (const YAML::Node paths = entry["paths"]) {
    FATHOM_ASSIGN_OR_RETURN(auto list,
                            StringList(paths, At(origin, paths), "paths", "[/lustre/project]"));
    if (list.empty()) {
      return Status::Error(At(origin, paths) + ": client '" + grant.name +
                           "': 'paths' is empty; give at least one prefix (\"/\" grants all)");
    }
    grant.paths.clear();
    for (auto& p : list) {
      if (p.empty() || p.front() != '/') {
        return Status::Error(At(origin, paths) + ": client '" + grant.name + "': path '" + p +
                             "' is not absolute (write it from the root, e.g. /lustre/project)");
      }
      grant.paths.push_back(NormalizeGrant(p));
    }
  }
  return grant;
}

}  // namespace

bool ClientGrant::Grants(std::string_view path) const {
  for (const auto& p : paths) {
    if (PathUnder(path, p)) return true;
  }
  return false;
}

void ClientList::Add(ClientGrant grant) {
  std::string key = grant.public_key;
  by_key_.insert_or_assign(std::move(key), std::move(grant));
}

const ClientGrant* ClientList::Find(std::string_view public_key) const {
  auto it = by_key_.find(public_key);
  return it == by_key_.end() ? nullptr : &it->second;
}

std::vector<const ClientGrant*> ClientList::Named(std::string_view name) const {
  std::vector<const ClientGrant*> out;
  for (const auto& [key, grant] : by_key_) {
    if (grant.name == name) out.push_back(&grant);
  }
  return out;
}

Result<ClientList> ClientList::Parse(const std::string& yaml_text, const std::string& origin,
                                     const std::string& base_dir) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::ParserException& e) {
    return Status::Error(origin + ":" + std::to_string(e.mark.line + 1) + ": not valid YAML (" +
                         e.msg + "); check the indentation and quoting on that line");
  }
  const YAML::Node clients = root.IsMap() ? root["clients"] : YAML::Node();
  if (!clients || !clients.IsSequence()) {
    return Status::Error(origin +
                         ": expected a top-level 'clients:' list, e.g.\n"
                         "clients:\n"
                         "  - name: mdt0\n"
                         "    key: mdt0.pub\n"
                         "    roles: [collect]\n"
                         "    paths: [/]");
  }
  ClientList list;
  try {
    for (const auto& entry : clients) {
      FATHOM_ASSIGN_OR_RETURN(ClientGrant grant, ParseClient(entry, origin, base_dir));
      if (const ClientGrant* existing = list.Find(grant.public_key)) {
        return Status::Error(At(origin, entry) + ": client '" + grant.name +
                             "' has the same key as client '" + existing->name +
                             "': give each client its own key pair");
      }
      list.Add(std::move(grant));
    }
  } catch (const YAML::Exception& e) {
    return Status::Error(origin + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  return list;
}

Result<ClientList> ClientList::Load(const std::string& yaml_path) {
  std::ifstream in(yaml_path);
  if (!in) return Status::FromErrno(errno, "reading client list " + yaml_path);
  std::stringstream text;
  text << in.rdbuf();
  std::string dir = std::filesystem::path(yaml_path).parent_path().string();
  if (dir.empty()) dir = ".";
  return Parse(text.str(), yaml_path, dir);
}

}  // namespace fathom::security

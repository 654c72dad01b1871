// daemon_config.cpp — YAML into role command lines (see daemon_config.h).
#include "daemon/daemon_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>

namespace fathom::daemon {
namespace {

const std::map<std::string, std::vector<std::string>>& KnownKeys() {
  static const std::map<std::string, std::vector<std::string>> keys = {
      {"aggregate",
       {"listen", "store", "key", "clients", "insecure", "max-events", "max-age", "sync",
        "purge-acknowledged", "stats-interval"}},
      {"collect",
       {"paths", "source", "mount", "changelog-user", "lustre-library", "fid-cache", "recursive",
        "backend", "event", "include", "exclude", "set", "to", "bus", "name", "key", "server-key",
        "insecure", "stream", "replicas", "max-age", "max-bytes"}},
      {"subscribe",
       {"from", "bus", "since", "name", "path", "recursive", "event", "format", "key",
        "server-key", "insecure", "stream", "replicas", "output"}},
  };
  return keys;
}

std::string Where(const std::string& origin, const YAML::Node& node) {
  return origin + ":" + std::to_string(node.Mark().line + 1);
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

Result<std::string> Scalar(const YAML::Node& node, const std::string& origin, const std::string& key) {
  if (!node.IsScalar()) {
    return Status::Error(Where(origin, node) + ": '" + key + "' must be a single value");
  }
  return node.Scalar();
}

// One role's mapping into its command line.
Result<RoleSpec> MakeRole(const std::string& role, const std::string& label, const YAML::Node& node,
                          const std::string& origin) {
  if (!node.IsMap()) {
    return Status::Error(Where(origin, node) + ": " + label + " must be a mapping of option: value");
  }
  const auto& allowed = KnownKeys().at(role);
  RoleSpec spec;
  spec.label = label;
  spec.line = node.Mark().line + 1;
  spec.args.push_back(role);
  std::vector<std::string> paths;
  for (const auto& entry : node) {
    const std::string key = entry.first.Scalar();
    const YAML::Node& value = entry.second;
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      return Status::Error(Where(origin, entry.first) + ": unknown option '" + key + "' for " +
                           label + " (known: " + Join(allowed) + ")");
    }
    auto note = [&](const YAML::Node& at, const std::string& text) {
      spec.values.push_back({key, text, at.Mark().line + 1});
    };
    if (key == "output" || key == "paths") {
      if (key == "output") {
        FATHOM_ASSIGN_OR_RETURN(spec.output, Scalar(value, origin, key));
        note(value, spec.output);
        continue;
      }
      if (value.IsScalar()) {
        paths.push_back(value.Scalar());
        note(value, value.Scalar());
      } else if (value.IsSequence()) {
        for (const auto& item : value) {
          FATHOM_ASSIGN_OR_RETURN(std::string path, Scalar(item, origin, key));
          paths.push_back(path);
          note(item, path);
        }
      } else {
        return Status::Error(Where(origin, value) + ": 'paths' must be a path or a list of paths");
      }
      continue;
    }
    const std::string option = "--" + key;
    if (value.IsSequence()) {
      for (const auto& item : value) {
        FATHOM_ASSIGN_OR_RETURN(std::string text, Scalar(item, origin, key));
        spec.args.insert(spec.args.end(), {option, text});
        note(item, text);
      }
    } else if (value.IsScalar()) {
      const std::string& text = value.Scalar();
      note(value, text);
      if (text == "true") {
        spec.args.push_back(option);
      } else if (text != "false") {
        spec.args.insert(spec.args.end(), {option, text});
      }
    } else {
      return Status::Error(Where(origin, value) + ": '" + key + "' must be a value or a list of values");
    }
  }
  if (!paths.empty()) {
    spec.args.push_back("--");
    spec.args.insert(spec.args.end(), paths.begin(), paths.end());
  }
  return spec;
}

}  // namespace

const std::vector<std::string>& RoleKeys(const std::string& role) { return KnownKeys().at(role); }

Result<DaemonConfig> ParseDaemonConfig(const std::string& yaml_text, const std::string& origin,
                                       const std::string& directory) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    return Status::Error(origin + ":" + std::to_string(e.mark.line + 1) + ": not valid YAML: " + e.msg);
  }
  if (!root.IsMap()) {
    return Status::Error(origin + ": expected a mapping with aggregate, collect and subscribe (see "
                                  "examples/fathomd/)");
  }
  DaemonConfig config;
  config.directory = directory;
  for (const auto& entry : root) {
    const std::string section = entry.first.Scalar();
    const YAML::Node& value = entry.second;
    if (section == "aggregate") {
      FATHOM_ASSIGN_OR_RETURN(RoleSpec spec, MakeRole("aggregate", "aggregate", value, origin));
      config.roles.insert(config.roles.begin(), std::move(spec));
    } else if (section == "collect" || section == "subscribe") {
      if (!value.IsSequence()) {
        return Status::Error(Where(origin, value) + ": '" + section + "' must be a list (- " +
                             (section == "collect" ? "source" : "from") + ": ...)");
      }
      for (size_t i = 0; i < value.size(); ++i) {
        FATHOM_ASSIGN_OR_RETURN(
            RoleSpec spec, MakeRole(section, section + "[" + std::to_string(i) + "]", value[i], origin));
        config.roles.push_back(std::move(spec));
      }
    } else {
      return Status::Error(Where(origin, entry.first) + ": unknown section '" + section +
                           "' (known: aggregate, collect, subscribe)");
    }
  }
  if (config.roles.empty()) {
    return Status::Error(origin + ": no roles configured: give aggregate, collect or subscribe");
  }
  return config;
}

Result<DaemonConfig> LoadDaemonConfig(const std::string& path) {
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(path, ec);
  std::string text;
  {
    FILE* f = fopen(path.c_str(), "re");
    if (f == nullptr) {
      return Status::Error("cannot read configuration " + path + ": " + std::strerror(errno));
    }
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
    fclose(f);
  }
  return ParseDaemonConfig(text, path, absolute.parent_path().string());
}

}  // namespace fathom::daemon

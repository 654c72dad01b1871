// daemon_config.h — fathomd's YAML configuration: which fathom roles to run, with which options.
//
//   aggregate:                 # at most one: the options of `fathom aggregate`
//     listen: tcp://*:7400
//     store: sqlite:/var/lib/fathom/events.db
//     key: aggregator.key
//   collect:                   # any number: the options of `fathom collect`
//     - source: lustre:scratch-MDT0000
//       mount: /lustre/scratch
//       to: tcp://aggregator:7400
//   subscribe:                 # any number: the options of `fathom subscribe`, and
//     - from: tcp://aggregator:7400
//       output: archiver.jsonl # where its events go (appended; default: fathomd's stdout)
//
// Each key is the long option without "--"; true is a flag, false leaves it out, a list
// repeats the option; a collector's `paths` are its PATH arguments. Keys are checked against
// each role's options here, so a typo is reported with its line before anything starts.
// Relative paths are relative to the configuration file's directory, where roles run.
// Pure functions over the file; no threads.
#pragma once

#include <string>
#include <vector>

#include "fathom/status.h"

namespace fathom::daemon {

// One value of a role's option as configured: "key: server.key" at line 4 (a list gives one
// RoleValue per item; collectors' paths come as key "paths").
struct RoleValue {
  std::string key;
  std::string value;
  int line = 0;
};

struct RoleSpec {
  std::string label;              // "aggregate", "collect[1]", "subscribe[0]"
  std::vector<std::string> args;  // the fathom command line after the program name
  std::string output;             // file receiving the role's stdout ("" = fathomd's stdout)
  int line = 0;                   // where the role is configured
  std::vector<RoleValue> values;  // every configured value with its line, in file order
};

struct DaemonConfig {
  std::string directory;          // the configuration file's directory: the roles' working dir
  std::vector<RoleSpec> roles;    // the aggregator first
};

Result<DaemonConfig> LoadDaemonConfig(const std::string& path);
// `origin` names the text in errors.
Result<DaemonConfig> ParseDaemonConfig(const std::string& yaml_text, const std::string& origin,
                                       const std::string& directory);

// The keys a role accepts (for documentation and the consistency test with `fathom ROLE --help`).
const std::vector<std::string>& RoleKeys(const std::string& role);

}  // namespace fathom::daemon

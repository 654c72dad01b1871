// config_check.h — what `fathomd --check` verifies beyond the configuration's structure: the
// files and directories its roles will read and write.
//
// For each role, every value that names a file is checked as the role will use it, relative
// to the configuration's directory: key files load (a --key holds the secret key), public keys
// (--server-key) load, client lists load (their key files included), the store's and the
// outputs' directories exist and are writable (and the files themselves when they exist), a
// collector's paths, --mount and --lustre-library exist. Each problem is one line
// "ORIGIN:LINE: ROLE: KEY VALUE: what is wrong". Reads files only; no threads.
#pragma once

#include <string>
#include <vector>

#include "daemon/daemon_config.h"

namespace fathom::daemon {

// The problems found (none: the roles will find what they need at start).
std::vector<std::string> CheckRoleFiles(const DaemonConfig& config, const std::string& origin);

}  // namespace fathom::daemon

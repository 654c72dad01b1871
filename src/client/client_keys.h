// client_keys.h — the key options of `fathom collect` and `fathom subscribe` (--key,
// --server-key, --insecure) turned into the ClientKeys of fathom/client.h.
//
// A ZeroMQ endpoint needs CURVE keys (the client's .key file and the aggregator's public key)
// or an explicit --insecure, which is logged as a warning; a nats:// endpoint takes none.
// Errors name the file and say what to give instead. Pure function over files.
#pragma once

#include <string>

#include "fathom/client.h"
#include "fathom/status.h"

namespace fathom::client {

struct KeyArgs {
  std::string key_file;    // the client's BASE.key (both keys)
  std::string server_key;  // the aggregator's public key, as Z85 text or a .pub file
  bool insecure = false;
};

Result<ClientKeys> LoadClientKeys(const KeyArgs& args, const std::string& endpoint);

}  // namespace fathom::client

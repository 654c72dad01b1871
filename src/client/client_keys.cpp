#include "client/client_keys.h"

#include <spdlog/spdlog.h>

#include "bus/nats_bus.h"
#include "security/curve_keys.h"

namespace fathom::client {

Result<ClientKeys> LoadClientKeys(const KeyArgs& args, const std::string& endpoint) {
  const bool keys_given = !args.key_file.empty() || !args.server_key.empty();
  if (bus::IsNatsEndpoint(endpoint)) {
    if (keys_given || args.insecure) {
      return Status::Error("--key, --server-key and --insecure secure a ZeroMQ aggregator; " + endpoint +
                           " is a NATS bus: drop them");
    }
    return ClientKeys{};
  }
  if (args.insecure) {
    if (keys_given) return Status::Error("--insecure turns CURVE off: give it or --key/--server-key, not both");
    spdlog::warn("talking to {} without CURVE (--insecure): anyone on the network can read and forge its events",
                 endpoint);
    return ClientKeys{};
  }
  if (args.key_file.empty() || args.server_key.empty()) {
    return Status::Error(endpoint + " needs --key CLIENT.key and --server-key SERVER.pub (create them with "
                         "`fathom keygen`), or --insecure for an aggregator started with --insecure");
  }
  FATHOM_ASSIGN_OR_RETURN(security::KeyPair pair, security::LoadKeyFile(args.key_file));
  if (pair.secret_key.empty()) {
    return Status::Error("--key " + args.key_file +
                         " holds only a public key: give the .key file that holds the secret key too");
  }
  FATHOM_ASSIGN_OR_RETURN(std::string server, security::LoadPublicKey(args.server_key));
  return ClientKeys{pair.public_key, pair.secret_key, server};
}

}  // namespace fathom::client

// `fathom keygen` — make a CURVE key pair: BASE.key (secret, 0600) and BASE.pub.
#include <cstdio>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "security/curve_keys.h"

namespace fathom::cli {

CommandRunner AddKeygenCommand(CLI::App& app) {
  auto base = std::make_shared<std::string>("fathom");
  CLI::App* cmd = app.add_subcommand(
      "keygen",
      "Make a CURVE key pair for the aggregator or a client: BASE.key (both keys, keep it "
      "secret) and BASE.pub (give it to the other side). Prints the public key.");
  cmd->add_option("-o,--output", *base, "Base name of the files written")
      ->type_name("BASE")
      ->default_str("fathom");
  return [base] {
    auto keys = security::GenerateKeyPair();
    if (!keys.ok()) return Fail("keygen", keys.status().message(), kExitFailure);
    Status written = security::WriteKeyFiles(keys.value(), *base);
    if (!written.ok()) return Fail("keygen", written.message(), kExitFailure);
    std::printf("%s\n", keys->public_key.c_str());
    std::fflush(stdout);
    std::fprintf(stderr,
                 "fathom keygen: wrote %s.key (secret) and %s.pub; in a client list give the .pub "
                 "file or the key in double quotes (Z85 has YAML's special characters)\n",
                 base->c_str(), base->c_str());
    return kExitOk;
  };
}

}  // namespace fathom::cli

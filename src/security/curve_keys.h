// curve_keys.h — ZeroMQ CURVE key pairs and the files that hold them.
//
// Keys are 40-character Z85 text (zmq_z85_encode of 32 bytes). A secret key file BASE.key
// (mode 0600) holds both keys, a public key file BASE.pub only the public one, each as
// "public-key = Z85" / "secret-key = Z85" lines (# comments allowed). Loading checks the
// length and the alphabet and names the file and the line on error. Pure functions over files.
#pragma once

#include <string>

#include "fathom/status.h"

namespace fathom::security {

struct KeyPair {
  std::string public_key;
  std::string secret_key;  // empty when loaded from a .pub file
};

// A new random key pair (zmq_curve_keypair).
Result<KeyPair> GenerateKeyPair();
// Writes BASE.key (0600, both keys) and BASE.pub; refuses to overwrite existing files.
Status WriteKeyFiles(const KeyPair& keys, const std::string& base_path);
// Reads a .key or .pub file.
Result<KeyPair> LoadKeyFile(const std::string& path);
// `text` is either a Z85 public key itself or the path of a file holding one.
Result<std::string> LoadPublicKey(const std::string& text);
// True when `key` is 40 characters of the Z85 alphabet.
bool IsZ85Key(std::string_view key);

}  // namespace fathom::security

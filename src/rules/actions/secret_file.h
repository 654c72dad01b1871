// secret_file.h — reading a webhook secret from its file.
//
// Contract: the file must not be readable or writable by group or others (mode 0600 or
// stricter), else an error naming the file and the fix (chmod 600). The content is the raw
// secret or "whsec_" and base64; one trailing newline (or CRLF) is dropped; an empty secret is
// an error. No message ever contains the secret. Any thread; nothing is kept.
#pragma once

#include <string>

#include "fathom/status.h"

namespace fathom::rules {

Result<std::string> ReadSecretFile(const std::string& path);

}  // namespace fathom::rules

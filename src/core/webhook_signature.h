// webhook_signature.h — Standard Webhooks signatures (HMAC-SHA256 with OpenSSL).
//
// Contract: the signed content is "id.timestamp.body"; the secret is raw bytes, or "whsec_"
// followed by base64 of the key bytes. Pure functions; any thread; nothing is kept.
#pragma once

#include <cstdint>
#include <string>

namespace fathom {

// The Standard Webhooks signature of `body` for message `id` at `timestamp` (seconds) with
// `secret` (raw bytes, or "whsec_" and base64): "v1,BASE64".
// The bytes `text` encodes in base64 (padding included); "" when it is not base64.
std::string FromBase64(const std::string& text);

std::string WebhookSignature(const std::string& secret, const std::string& id, int64_t timestamp, const std::string& body);

}  // namespace fathom

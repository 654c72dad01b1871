// webhook_signature.cpp — WebhookSignature: base64 both ways and HMAC-SHA256 (OpenSSL).
#include "core/webhook_signature.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace fathom {
namespace {

std::string Base64(const unsigned char* data, size_t n) {
  std::string out(4 * ((n + 2) / 3) + 1, '\0');
  const int len = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), data, static_cast<int>(n));
  out.resize(static_cast<size_t>(len));
  return out;
}

}  // namespace

std::string FromBase64(const std::string& text) {
  std::string out(3 * (text.size() / 4) + 3, '\0');
  const int len = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                  reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  if (len < 0) return {};
  size_t padding = 0;
  for (size_t i = text.size(); i > 0 && text[i - 1] == '='; --i) ++padding;
  out.resize(static_cast<size_t>(len) - padding);
  return out;
}

std::string WebhookSignature(const std::string& secret, const std::string& id, int64_t timestamp, const std::string& body) {
  const std::string key = secret.starts_with("whsec_") ? FromBase64(secret.substr(6)) : secret;
  const std::string signed_text = id + "." + std::to_string(timestamp) + "." + body;
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(signed_text.data()),
       signed_text.size(), mac, &len);
  return "v1," + Base64(mac, len);
}

}  // namespace fathom

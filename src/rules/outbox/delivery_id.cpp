// delivery_id.cpp — DeliveryId: a delivery's stable id, from its rule, version and events.
#include <openssl/evp.h>

#include <array>
#include <memory>

#include "rules/outbox/outbox.h"

namespace fathom::rules {
namespace {

void AddU64(EVP_MD_CTX* ctx, uint64_t v) {
  std::array<unsigned char, 8> bytes{};
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(v >> (56 - 8 * i));
  EVP_DigestUpdate(ctx, bytes.data(), bytes.size());
}

// Length first, so that no two (rule, version) pairs give the same bytes.
void AddText(EVP_MD_CTX* ctx, std::string_view text) {
  AddU64(ctx, text.size());
  EVP_DigestUpdate(ctx, text.data(), text.size());
}

}  // namespace

std::string DeliveryId(std::string_view rule, std::string_view version, std::span<const uint64_t> event_ids) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr);
  AddText(ctx.get(), rule);
  AddText(ctx.get(), version);
  AddU64(ctx.get(), event_ids.size());
  for (uint64_t id : event_ids) AddU64(ctx.get(), id);
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx.get(), md.data(), &len);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id = "fd_";
  for (size_t i = 0; i < 16; ++i) {
    id.push_back(kHex[md[i] >> 4]);
    id.push_back(kHex[md[i] & 15]);
  }
  return id;
}

}  // namespace fathom::rules

// webhook_action.cpp — RunWebhookAction: the secrets read, the Standard Webhooks headers
// signed (core/webhook_signature.h), PostHttp (core/http_post.h) with every address checked
// (address_check.h), and WebhookOutcome.
#include "core/http_post.h"
#include "core/webhook_signature.h"
#include "rules/actions/action.h"
#include "rules/actions/address_check.h"
#include "rules/actions/outcome.h"
#include "rules/actions/secret_file.h"

namespace fathom::rules {

ActionOutcome RunWebhookAction(const WebhookAction& action, const DeliveryContext& context) {
  auto permanent = [](std::string message) -> ActionOutcome {
    return {ActionOutcome::kPermanent, std::move(message), std::nullopt};
  };
  if (action.secret_files.empty() || action.secret_files.size() > 2) {
    return permanent("a webhook needs one secret file, or two while a secret is rotated");
  }
  HttpPost post;
  post.url = action.url;
  post.body = context.payload_json.empty() ? DeliveryPayload(context) : context.payload_json;
  post.timeout_ns = action.timeout_ns;
  post.vet_address = [&action](const std::string& ip) {
    return CheckWebhookAddress(ip, action.allow_loopback, action.allow_private);
  };
  const int64_t timestamp = NowNs() / 1'000'000'000;
  std::string signatures;
  for (const std::string& file : action.secret_files) {
    Result<std::string> secret = ReadSecretFile(file);
    if (!secret.ok()) return permanent(secret.status().message());
    signatures += (signatures.empty() ? "" : " ") + WebhookSignature(*secret, context.delivery_id, timestamp, post.body);
  }
  post.headers = {"Content-Type: application/json", "User-Agent: fathom",
                  "webhook-id: " + context.delivery_id, "webhook-timestamp: " + std::to_string(timestamp),
                  "webhook-signature: " + signatures};
  return WebhookOutcome(PostHttp(post), NowNs());
}

}  // namespace fathom::rules

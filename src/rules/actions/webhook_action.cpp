// webhook_action.cpp — RunWebhookAction: the secrets read, the Standard Webhooks headers
// signed (core/webhook_signature.h), PostHttp (core/http_post.h) with every address checked
// (address_check.h), and WebhookOutcome; CheckWebhookAction. With `include`, each event's file
// facts (file_facts.cpp) are read at every attempt.
#include "core/http_post.h"
#include "core/webhook_signature.h"
#include "rules/actions/action.h"
#include "rules/actions/address_check.h"
#include "rules/actions/outcome.h"
#include "rules/actions/secret_file.h"

namespace fathom::rules {
namespace {

Result<std::vector<std::string>> ReadSecrets(const WebhookAction& action) {
  if (action.secret_files.empty() || action.secret_files.size() > 2) {
    return Status::Error("a webhook needs one secret file, or two while a secret is rotated");
  }
  std::vector<std::string> secrets;
  for (const std::string& file : action.secret_files) {
    FATHOM_ASSIGN_OR_RETURN(std::string secret, ReadSecretFile(file));
    secrets.push_back(std::move(secret));
  }
  return secrets;
}

}  // namespace

Status CheckWebhookAction(const WebhookAction& action) {
  if (!action.url.starts_with("http://") && !action.url.starts_with("https://")) {
    return Status::Error("webhook URL \"" + action.url + "\": only http:// and https:// are supported");
  }
  return ReadSecrets(action).status();
}

ActionOutcome RunWebhookAction(const WebhookAction& action, const DeliveryContext& context) {
  Result<std::vector<std::string>> secrets = ReadSecrets(action);
  if (!secrets.ok()) return {ActionOutcome::kPermanent, secrets.status().message(), std::nullopt};
  HttpPost post;
  post.url = action.url;
  if (action.include_stat || action.include_sha256) {
    post.body = DeliveryPayload(context, [&action](const Event& e, std::string& out) {
      out += ",\"file\":" + FileFactsJson(e.path, action.include_sha256);
    });
  } else {
    post.body = context.payload_json.empty() ? DeliveryPayload(context) : context.payload_json;
  }
  post.timeout_ns = action.timeout_ns;
  post.vet_address = [&action](const std::string& ip) {
    return CheckWebhookAddress(ip, action.allow_loopback, action.allow_private);
  };
  // Standard Webhooks: one signature per secret, space-separated.
  const int64_t timestamp = NowNs() / 1'000'000'000;
  std::string signatures;
  for (const std::string& secret : *secrets) {
    signatures += (signatures.empty() ? "" : " ") + WebhookSignature(secret, context.delivery_id, timestamp, post.body);
  }
  post.headers = {"Content-Type: application/json", "User-Agent: fathom",
                  "webhook-id: " + context.delivery_id, "webhook-timestamp: " + std::to_string(timestamp),
                  "webhook-signature: " + signatures};
  return WebhookOutcome(PostHttp(post), NowNs(), action.retry_statuses, action.permanent_statuses);
}

}  // namespace fathom::rules

// alert_sinks.h — sending a batch of alert events: appended to a log file, mailed through the
// local sendmail interface (sendmail -t -oi, the message on its stdin), or POSTed as JSON to a
// webhook (Standard Webhooks headers: webhook-id, webhook-timestamp and, with a secret,
// webhook-signature "v1,BASE64(HMAC-SHA256(secret, id.timestamp.body))").
//
// Threading: any thread; each call blocks until the sink took the batch or failed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/webhook_signature.h"
#include "fathom/policy.h"

namespace fathom::policy {

// At most this many events of one alert are listed in a message; the rest are counted.
inline constexpr size_t kListedPerAlert = 100;

Status SendToLog(const std::string& file, const std::vector<AlertEvent>& events, int64_t now_ns);
Status SendMail(const AlertSinks::Mail& mail, const std::vector<AlertEvent>& events, int64_t now_ns);
Status SendWebhook(const AlertSinks::Webhook& hook, const std::vector<AlertEvent>& events, int64_t now_ns);

// The Standard Webhooks signature (core/webhook_signature.h).
using fathom::WebhookSignature;

}  // namespace fathom::policy

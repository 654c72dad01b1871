// outcome.h — what a command's end or a webhook's answer means for a delivery.
//
// Contract: pure functions from a ChildExit or an HttpAnswer to an ActionOutcome, with the
// messages documented in action.h. Any thread; nothing is kept.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/child_process.h"
#include "core/http_post.h"
#include "rules/actions/action.h"

namespace fathom::rules {

// "10 s" for whole seconds, else "1500 ms".
std::string DurationText(int64_t ns);

// A command that started: exit 0 success; an exit in `retry_exit_codes` or a time-out retry;
// an exit in `permanent_exit_codes` permanent; any other exit permanent, or retry when
// `permanent_exit_codes` is not empty; a signal permanent.
ActionOutcome CommandOutcome(const ChildExit& exit, const std::vector<int>& retry_exit_codes, int64_t timeout_ns,
                             const std::vector<int>& permanent_exit_codes = {});

// A webhook's answer; `now_ns` turns a Retry-After HTTP-date into a delay. A status in
// `retry_statuses` is retried, one in `permanent_statuses` permanent, whatever the default.
ActionOutcome WebhookOutcome(const HttpAnswer& answer, int64_t now_ns, const std::vector<int>& retry_statuses = {},
                             const std::vector<int>& permanent_statuses = {});

// Retry-After (RFC 9110): delay-seconds, or an HTTP-date (IMF-fixdate "Sun, 06 Nov 1994
// 08:49:37 GMT", or the obsolete RFC 850 and asctime forms); a date in the past is a delay of
// 0. nullopt when the value is neither.
std::optional<int64_t> ParseRetryAfter(std::string_view value, int64_t now_ns);

}  // namespace fathom::rules

// outcome.cpp — CommandOutcome, WebhookOutcome, ParseRetryAfter, OutcomeKindName.
#include "rules/actions/outcome.h"

#include <algorithm>
#include <charconv>
#include <ctime>

namespace fathom::rules {
namespace {

constexpr int64_t kSecond = 1'000'000'000;

ActionOutcome Outcome(ActionOutcome::Kind kind, std::string message) { return {kind, std::move(message), std::nullopt}; }

bool Listed(const std::vector<int>& list, long value) { return std::find(list.begin(), list.end(), value) != list.end(); }

}  // namespace

const char* OutcomeKindName(ActionOutcome::Kind kind) {
  switch (kind) {
    case ActionOutcome::kSuccess:
      return "success";
    case ActionOutcome::kRetry:
      return "retry";
    case ActionOutcome::kPermanent:
      return "permanent";
    case ActionOutcome::kDisable:
      return "disable";
  }
  return "permanent";
}

std::string DurationText(int64_t ns) {
  if (ns % kSecond == 0) return std::to_string(ns / kSecond) + " s";
  return std::to_string(ns / 1'000'000) + " ms";
}

ActionOutcome CommandOutcome(const ChildExit& exit, const std::vector<int>& retry_exit_codes, int64_t timeout_ns,
                             const std::vector<int>& permanent_exit_codes) {
  if (exit.timed_out) return Outcome(ActionOutcome::kRetry, "timed out after " + DurationText(timeout_ns));
  if (exit.signal != 0) return Outcome(ActionOutcome::kPermanent, "killed by signal " + std::to_string(exit.signal));
  const std::string message = "exit " + std::to_string(exit.exit_code);
  if (exit.exit_code == 0) return Outcome(ActionOutcome::kSuccess, message);
  if (Listed(retry_exit_codes, exit.exit_code)) return Outcome(ActionOutcome::kRetry, message);
  if (permanent_exit_codes.empty() || Listed(permanent_exit_codes, exit.exit_code)) {
    return Outcome(ActionOutcome::kPermanent, message);
  }
  return Outcome(ActionOutcome::kRetry, message);
}

std::optional<int64_t> ParseRetryAfter(std::string_view value, int64_t now_ns) {
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t' || value.back() == '\r')) value.remove_suffix(1);
  if (value.empty()) return std::nullopt;
  int64_t seconds = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (ec == std::errc() && end == value.data() + value.size() && seconds >= 0) {
    return std::min<int64_t>(seconds, INT64_MAX / kSecond) * kSecond;
  }
  const std::string text(value);
  // IMF-fixdate, and the obsolete RFC 850 and asctime forms recipients must still accept.
  for (const char* format : {"%a, %d %b %Y %H:%M:%S GMT", "%A, %d-%b-%y %H:%M:%S GMT", "%a %b %e %H:%M:%S %Y"}) {
    std::tm tm{};
    const char* rest = strptime(text.c_str(), format, &tm);
    if (rest == nullptr || *rest != '\0') continue;
    const int64_t at_ns = static_cast<int64_t>(timegm(&tm)) * kSecond;
    return std::max<int64_t>(0, at_ns - now_ns);
  }
  return std::nullopt;
}

ActionOutcome WebhookOutcome(const HttpAnswer& answer, int64_t now_ns, const std::vector<int>& retry_statuses,
                             const std::vector<int>& permanent_statuses) {
  switch (answer.transport) {
    case HttpAnswer::kAnswered:
      break;
    case HttpAnswer::kBadUrl:
    case HttpAnswer::kRefusedAddress:
      return Outcome(ActionOutcome::kPermanent, answer.error);
    case HttpAnswer::kTimedOut:
    case HttpAnswer::kUnreachable:
    case HttpAnswer::kFailed:
      return Outcome(ActionOutcome::kRetry, answer.error);
  }
  const long s = answer.status;
  const std::string http = "HTTP " + std::to_string(s);
  if (s >= 200 && s <= 299) return Outcome(ActionOutcome::kSuccess, http);
  if (Listed(permanent_statuses, s)) return Outcome(ActionOutcome::kPermanent, http + " (permanent_statuses)");
  const bool retry = Listed(retry_statuses, s);
  if (s == 410 && !retry) return Outcome(ActionOutcome::kDisable, http + ": the endpoint is gone, disable it");
  if (retry || s == 429 || (s >= 500 && s <= 599)) {
    ActionOutcome out = Outcome(ActionOutcome::kRetry, http);
    out.retry_after_ns = ParseRetryAfter(answer.retry_after, now_ns);
    return out;
  }
  if (s >= 300 && s <= 399) {
    return Outcome(ActionOutcome::kPermanent,
                   http + ": redirects are not followed" +
                       (answer.location.empty() ? std::string() : " (Location: " + answer.location + ")"));
  }
  return Outcome(ActionOutcome::kPermanent, http);
}

}  // namespace fathom::rules

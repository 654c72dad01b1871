// alert_sinks.cpp — SendToLog, SendMail (core/mail_message.h), SendWebhook (core/http_post.h,
// core/webhook_signature.h).
#include "policy/alert_sinks.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/http_post.h"
#include "core/mail_message.h"
#include "core/unique_fd.h"
#include "policy/run_command.h"

namespace fathom::policy {
namespace {

std::string IsoTime(int64_t ns) {
  const time_t t = static_cast<time_t>(ns / 1'000'000'000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// "3 alerts raised, 1 cleared"
std::string Summary(const std::vector<AlertEvent>& events) {
  size_t raised = 0;
  for (const AlertEvent& e : events) raised += e.raised;
  const size_t cleared = events.size() - raised;
  std::string out = std::to_string(raised) + (raised == 1 ? " alert raised" : " alerts raised");
  if (cleared > 0) out += ", " + std::to_string(cleared) + " cleared";
  return out;
}

// One line per event, at most kListedPerAlert per alert and state, then how many more.
std::string Listing(const std::vector<AlertEvent>& events) {
  std::map<std::pair<std::string, bool>, size_t> shown;
  std::ostringstream out;
  for (const AlertEvent& e : events) {
    size_t& n = shown[{e.alert, e.raised}];
    if (++n <= kListedPerAlert) {
      out << (e.raised ? "raised " : "cleared ") << e.alert << ": " << e.key;
      if (!e.detail.empty()) out << " (" << e.detail << ")";
      out << "\n";
    }
  }
  for (const auto& [k, n] : shown) {
    if (n > kListedPerAlert) {
      out << "... and " << (n - kListedPerAlert) << " more " << (k.second ? "raised " : "cleared ") << k.first << "\n";
    }
  }
  return out.str();
}

}  // namespace

Status SendToLog(const std::string& file, const std::vector<AlertEvent>& events, int64_t now_ns) {
  UniqueFd fd(open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640));
  if (!fd.valid()) return Status::FromErrno(errno, "cannot open the alert log " + file);
  std::string text;
  for (const AlertEvent& e : events) {
    text += IsoTime(now_ns) + (e.raised ? " raised " : " cleared ") + e.alert + ": " + e.key +
            (e.detail.empty() ? "" : " (" + e.detail + ")") + "\n";
  }
  if (write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size()) || fsync(fd.get()) != 0) {
    return Status::FromErrno(errno, "cannot write the alert log " + file);
  }
  return Status::Ok();
}

Status SendMail(const AlertSinks::Mail& mail, const std::vector<AlertEvent>& events, int64_t now_ns) {
  MailMessage message;
  message.to = mail.to;
  message.from = mail.from;
  message.subject = "fathom: " + Summary(events);
  message.body = "At " + IsoTime(now_ns) + ":\n\n" + Listing(events);
  Status sent = RunCommand(SendmailArgv(mail.sendmail), 60'000'000'000, {}, MailText(message));
  if (!sent.ok()) return Status::Error("mail: " + sent.message());
  return Status::Ok();
}

Status SendWebhook(const AlertSinks::Webhook& hook, const std::vector<AlertEvent>& events, int64_t now_ns) {
  nlohmann::json body = {{"type", "fathom.alerts"}, {"time", IsoTime(now_ns)}, {"summary", Summary(events)}};
  nlohmann::json& list = body["events"] = nlohmann::json::array();
  for (const AlertEvent& e : events) {
    list.push_back({{"alert", e.alert}, {"key", e.key}, {"detail", e.detail}, {"state", e.raised ? "raised" : "cleared"}});
  }
  const std::string text = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  const int64_t timestamp = now_ns / 1'000'000'000;
  const std::string id = "msg_" + std::to_string(now_ns);
  HttpPost post{hook.url, text, {}, hook.timeout_ns, {}};
  post.headers = {"Content-Type: application/json", "webhook-id: " + id, "webhook-timestamp: " + std::to_string(timestamp)};
  if (!hook.secret_file.empty()) {
    std::ifstream in(hook.secret_file);
    std::string secret;
    if (!in || !std::getline(in, secret) || secret.empty()) {
      return Status::Error("webhook: cannot read its secret from " + hook.secret_file);
    }
    post.headers.push_back("webhook-signature: " + WebhookSignature(secret, id, timestamp, text));
  }
  const HttpAnswer answer = PostHttp(post);
  if (answer.transport != HttpAnswer::kAnswered) return Status::Error("webhook " + hook.url + ": " + answer.error);
  if (answer.status < 200 || answer.status > 299) {
    return Status::Error("webhook " + hook.url + ": the server answered HTTP " + std::to_string(answer.status) +
                         " (only 2xx counts as delivered)");
  }
  return Status::Ok();
}

}  // namespace fathom::policy

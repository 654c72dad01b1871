// alert_sinks.cpp — SendToLog, SendMail, SendWebhook (libcurl), WebhookSignature (OpenSSL).
#include "policy/alert_sinks.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

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

std::string Base64(const unsigned char* data, size_t n) {
  std::string out(4 * ((n + 2) / 3) + 1, '\0');
  const int len = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), data, static_cast<int>(n));
  out.resize(static_cast<size_t>(len));
  return out;
}

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

struct CurlDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
struct ListDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

size_t Discard(char*, size_t size, size_t n, void*) { return size * n; }

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
  std::string to;
  for (const std::string& a : mail.to) to += (to.empty() ? "" : ", ") + a;
  const std::string message = "To: " + to + "\nFrom: " + mail.from + "\nSubject: fathom: " + Summary(events) +
                              "\nContent-Type: text/plain; charset=utf-8\n\nAt " + IsoTime(now_ns) + ":\n\n" +
                              Listing(events);
  Status sent = RunCommand({mail.sendmail, "-t", "-oi"}, 60'000'000'000, {}, message);
  if (!sent.ok()) return Status::Error("mail: " + sent.message());
  return Status::Ok();
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

Status SendWebhook(const AlertSinks::Webhook& hook, const std::vector<AlertEvent>& events, int64_t now_ns) {
  nlohmann::json body = {{"type", "fathom.alerts"}, {"time", IsoTime(now_ns)}, {"summary", Summary(events)}};
  nlohmann::json& list = body["events"] = nlohmann::json::array();
  for (const AlertEvent& e : events) {
    list.push_back({{"alert", e.alert}, {"key", e.key}, {"detail", e.detail}, {"state", e.raised ? "raised" : "cleared"}});
  }
  const std::string text = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  const int64_t timestamp = now_ns / 1'000'000'000;
  const std::string id = "msg_" + std::to_string(now_ns);
  std::unique_ptr<curl_slist, ListDeleter> headers;
  auto add = [&](const std::string& h) { headers.reset(curl_slist_append(headers.release(), h.c_str())); };
  add("Content-Type: application/json");
  add("webhook-id: " + id);
  add("webhook-timestamp: " + std::to_string(timestamp));
  if (!hook.secret_file.empty()) {
    std::ifstream in(hook.secret_file);
    std::string secret;
    if (!in || !std::getline(in, secret) || secret.empty()) {
      return Status::Error("webhook: cannot read its secret from " + hook.secret_file);
    }
    add("webhook-signature: " + WebhookSignature(secret, id, timestamp, text));
  }
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  if (!curl) return Status::Error("webhook: cannot start libcurl");
  char error[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(curl.get(), CURLOPT_URL, hook.url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDS, text.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDSIZE, static_cast<long>(text.size()));
  curl_easy_setopt(curl.get(), CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT_MS, static_cast<long>(hook.timeout_ns / 1'000'000));
  curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, &Discard);
  const CURLcode rc = curl_easy_perform(curl.get());
  if (rc != CURLE_OK) {
    return Status::Error("webhook " + hook.url + ": " + (error[0] != '\0' ? error : curl_easy_strerror(rc)));
  }
  long code = 0;
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &code);
  if (code < 200 || code > 299) {
    return Status::Error("webhook " + hook.url + ": the server answered HTTP " + std::to_string(code) +
                         " (only 2xx counts as delivered)");
  }
  return Status::Ok();
}

}  // namespace fathom::policy

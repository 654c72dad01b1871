#include "bus/jetstream_link.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "bus/bus_names.h"

namespace fathom::bus::internal {
namespace {

constexpr int64_t kNsPerSecond = 1'000'000'000;
constexpr int64_t kDuplicateWindowNs = 120 * kNsPerSecond;

bool PermanentStatus(natsStatus s) {
  return s == NATS_INVALID_ARG || s == NATS_MAX_PAYLOAD || s == NATS_NOT_PERMITTED ||
         s == NATS_INVALID_SUBJECT || s == NATS_CONNECTION_AUTH_FAILED ||
         s == NATS_SECURE_CONNECTION_REQUIRED;
}

bool PermanentJsError(jsErrCode e) {
  return e == JSStreamMessageExceedsMaximumErr || e == JSMaximumStreamsLimitErr;
}

}  // namespace

Status NatsFailure(std::string_view what, natsStatus status, jsErrCode js_error) {
  const char* last = nats_GetLastError(nullptr);
  std::string text = (last != nullptr && *last != '\0') ? last : natsStatus_GetText(status);
  if (js_error != 0) text += fmt::format(" (JetStream error {})", static_cast<int>(js_error));
  const bool permanent = PermanentStatus(status) || PermanentJsError(js_error);
  return Status::Error(fmt::format("{}: {}", what, text),
                       permanent ? std::make_error_code(std::errc::invalid_argument) : std::error_code());
}

bool IsPermanent(const Status& status) {
  return status.code() == std::make_error_code(std::errc::invalid_argument);
}

JetStreamLink::JetStreamLink(std::vector<std::string> servers, std::string client_name,
                             std::chrono::milliseconds request_timeout)
    : servers_(std::move(servers)), client_name_(std::move(client_name)), request_timeout_(request_timeout) {
  for (const auto& s : servers_) {
    if (!servers_text_.empty()) servers_text_ += ',';
    servers_text_ += s;
  }
}

JetStreamLink::~JetStreamLink() {
  js_.reset();
  if (conn_) natsConnection_Close(conn_.get());
}

bool JetStreamLink::closed() const {
  std::lock_guard lock(mu_);
  return closed_;
}

void JetStreamLink::Close() {
  std::lock_guard lock(mu_);
  closed_ = true;
  if (conn_) natsConnection_Close(conn_.get());
  closed_cv_.notify_all();
}

Status JetStreamLink::Connect() {
  {
    std::lock_guard lock(mu_);
    if (closed_) return Status::Error(fmt::format("connection to NATS {} was stopped", servers_text_));
    if (conn_) return Status::Ok();
  }
  natsOptions* raw_opts = nullptr;
  natsStatus s = natsOptions_Create(&raw_opts);
  if (s != NATS_OK) return NatsFailure("NATS options", s);
  NatsPtr<natsOptions> opts(raw_opts);
  std::vector<const char*> urls;
  for (const auto& server : servers_) urls.push_back(server.c_str());
  s = natsOptions_SetServers(opts.get(), urls.data(), static_cast<int>(urls.size()));
  if (s == NATS_OK) s = natsOptions_SetName(opts.get(), client_name_.c_str());
  if (s == NATS_OK) s = natsOptions_SetTimeout(opts.get(), 2000);
  if (s == NATS_OK) s = natsOptions_SetAllowReconnect(opts.get(), true);
  if (s == NATS_OK) s = natsOptions_SetMaxReconnect(opts.get(), -1);
  if (s == NATS_OK) s = natsOptions_SetReconnectWait(opts.get(), 100);
  if (s == NATS_OK) s = natsOptions_SetFailRequestsOnDisconnect(opts.get(), true);
  if (s == NATS_OK) s = natsOptions_SetReconnectBufSize(opts.get(), 64 << 20);
  if (s != NATS_OK) return NatsFailure(fmt::format("NATS options for {}", servers_text_), s);

  natsConnection* raw_conn = nullptr;
  s = natsConnection_Connect(&raw_conn, opts.get());
  if (s != NATS_OK) return NatsFailure(fmt::format("connecting to NATS {}", servers_text_), s);
  NatsPtr<natsConnection> conn(raw_conn);
  jsOptions js_opts;
  jsOptions_Init(&js_opts);
  js_opts.Wait = request_timeout_.count();
  jsCtx* raw_js = nullptr;
  s = natsConnection_JetStream(&raw_js, conn.get(), &js_opts);
  if (s != NATS_OK) return NatsFailure(fmt::format("JetStream context on {}", servers_text_), s);
  std::lock_guard lock(mu_);
  if (closed_) {
    natsConnection_Close(conn.get());
    jsCtx_Destroy(raw_js);
    return Status::Error(fmt::format("connection to NATS {} was stopped", servers_text_));
  }
  js_.reset(raw_js);
  conn_ = std::move(conn);
  return Status::Ok();
}

Status JetStreamLink::EnsureStream(const BusOptions& bus) {
  jsStreamInfo* raw_info = nullptr;
  jsErrCode jerr = static_cast<jsErrCode>(0);
  natsStatus s = js_GetStreamInfo(&raw_info, js_.get(), bus.stream.c_str(), nullptr, &jerr);
  NatsPtr<jsStreamInfo> info(raw_info);
  if (s == NATS_OK) return Status::Ok();
  if (jerr != JSStreamNotFoundErr) {
    return NatsFailure(fmt::format("stream '{}' on {}", bus.stream, servers_text_), s, jerr);
  }
  const std::string subject = AllCollectorsSubject(bus.subject_prefix);
  const char* subjects[] = {subject.c_str()};
  jsStreamConfig cfg;
  jsStreamConfig_Init(&cfg);
  cfg.Name = bus.stream.c_str();
  cfg.Subjects = subjects;
  cfg.SubjectsLen = 1;
  cfg.Storage = js_FileStorage;
  cfg.Retention = js_LimitsPolicy;
  cfg.Discard = js_DiscardOld;
  cfg.Replicas = std::max(1, bus.replicas);
  cfg.MaxAge = bus.max_age.count() * kNsPerSecond;
  cfg.MaxBytes = bus.max_bytes > 0 ? bus.max_bytes : -1;
  cfg.Duplicates = kDuplicateWindowNs;
  jerr = static_cast<jsErrCode>(0);
  s = js_AddStream(&raw_info, js_.get(), &cfg, nullptr, &jerr);
  info.reset(raw_info);
  if (s == NATS_OK || jerr == JSStreamNameExistErr) {
    if (s == NATS_OK) {
      spdlog::info("created NATS stream {} (subjects {}, {} replicas) on {}", bus.stream, subject,
                   cfg.Replicas, servers_text_);
    }
    return Status::Ok();
  }
  return NatsFailure(fmt::format("creating stream '{}' (subjects {}, {} replicas) on {}", bus.stream,
                                 subject, cfg.Replicas, servers_text_),
                     s, jerr);
}

bool JetStreamLink::Backoff(std::chrono::milliseconds max) {
  backoff_ = std::clamp(backoff_ * 2, std::chrono::milliseconds(50), std::max(max, std::chrono::milliseconds(50)));
  std::unique_lock lock(mu_);
  closed_cv_.wait_for(lock, backoff_, [&] { return closed_; });
  return !closed_;
}

}  // namespace fathom::bus::internal

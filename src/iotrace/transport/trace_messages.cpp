#include "iotrace/transport/trace_messages.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>
#include <utility>

#include "bus/batch_parts.h"
#include "bus/bus_names.h"

namespace fathom::iotrace::transport {
namespace {

using bus::internal::NatsFailure;
using bus::internal::NatsPtr;

constexpr int64_t kNsPerMs = 1'000'000;
// Batches of a fetch: many header-only messages, or a few MiB of data.
constexpr int kHeaderBatch = 1024;
constexpr int kDataBatch = 16;
constexpr std::chrono::milliseconds kFetchWait{5000};

std::optional<uint64_t> Decimal(std::string_view text) {
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// Deletes an ephemeral consumer when the read is done (the server would after its inactive
// threshold).
class ConsumerGuard {
 public:
  ConsumerGuard(bus::internal::JetStreamLink& link, std::string stream, std::string name)
      : link_(link), stream_(std::move(stream)), name_(std::move(name)) {}
  ~ConsumerGuard() {
    if (!link_.closed())
      js_DeleteConsumer(link_.js(), stream_.c_str(), name_.c_str(), nullptr, nullptr);
  }
  ConsumerGuard(const ConsumerGuard&) = delete;
  ConsumerGuard& operator=(const ConsumerGuard&) = delete;
  const std::string& name() const { return name_; }

 private:
  bus::internal::JetStreamLink& link_;
  std::string stream_;
  std::string name_;
};

}  // namespace

std::string JobSubject(const BusOptions& bus, std::string_view job) {
  return bus::internal::CollectorSubject(bus.subject_prefix, job);
}

std::string ChunkMessageId(std::string_view job, std::string_view file, uint64_t offset) {
  return fmt::format("{}:{}:{}", bus::internal::SubjectToken(job),
                     bus::internal::SubjectToken(file), offset);
}

bool IsTraceFileName(std::string_view name) {
  return !name.empty() && name.find('/') == std::string_view::npos &&
         name.find("..") == std::string_view::npos && name.find('\0') == std::string_view::npos;
}

uint64_t ChunkLimit(int64_t max_payload, std::string_view subject, std::string_view file) {
  // MaxFrame leaves room for the protocol line and headers that grow with the text it is
  // given: here the subject (holding the job's token), the file's name and its token (in the
  // message id).
  const std::string grows = fmt::format("{}{}{}", subject, file, bus::internal::SubjectToken(file));
  return std::min<uint64_t>(kMaxChunkBytes, bus::internal::MaxFrame(max_payload, grows));
}

Result<NatsPtr<natsMsg>> ChunkMessage(const std::string& subject, std::string_view job,
                                      const std::string& file, uint64_t offset, const char* data,
                                      size_t size) {
  natsMsg* raw = nullptr;
  natsStatus s = natsMsg_Create(&raw, subject.c_str(), nullptr, data, static_cast<int>(size));
  NatsPtr<natsMsg> msg(raw);
  const std::string id = ChunkMessageId(job, file, offset);
  if (s == NATS_OK) s = natsMsgHeader_Set(msg.get(), kFileHeader, file.c_str());
  if (s == NATS_OK) s = natsMsgHeader_Set(msg.get(), kOffsetHeader, std::to_string(offset).c_str());
  if (s == NATS_OK) s = natsMsgHeader_Set(msg.get(), bus::internal::kMsgIdHeader, id.c_str());
  if (s != NATS_OK) return NatsFailure(fmt::format("making message {} on {}", id, subject), s);
  return msg;
}

Result<Chunk> ReadChunk(natsMsg* msg, uint64_t seq, std::string_view stream, bool headers_only) {
  auto bad = [&](const std::string& why) {
    return Status::Error(
        fmt::format("message {} of stream '{}' (subject {}) is not a piece of a trace file: {}",
                    seq, stream, natsMsg_GetSubject(msg), why));
  };
  auto header = [&](const char* name) -> std::optional<std::string_view> {
    const char* value = nullptr;
    if (natsMsgHeader_Get(msg, name, &value) != NATS_OK || value == nullptr) return std::nullopt;
    return std::string_view(value);
  };
  Chunk chunk;
  const auto file = header(kFileHeader);
  if (!file) return bad(fmt::format("it has no {} header", kFileHeader));
  if (!IsTraceFileName(*file)) {
    return bad(
        fmt::format("its {} header '{}' is not a file name (it is empty, or holds '/' or \"..\")",
                    kFileHeader, *file));
  }
  chunk.file = std::string(*file);
  const auto offset_text = header(kOffsetHeader);
  if (!offset_text) return bad(fmt::format("it has no {} header", kOffsetHeader));
  const auto offset = Decimal(*offset_text);
  if (!offset)
    return bad(
        fmt::format("its {} header '{}' is not a decimal offset", kOffsetHeader, *offset_text));
  chunk.offset = *offset;
  if (headers_only) {
    const auto size = header(JSMsgSize);
    const auto value = size ? Decimal(*size) : std::nullopt;
    if (!value) return bad(fmt::format("its {} header is missing or malformed", JSMsgSize));
    chunk.size = *value;
  } else {
    chunk.data =
        std::string_view(natsMsg_GetData(msg), static_cast<size_t>(natsMsg_GetDataLength(msg)));
    chunk.size = chunk.data.size();
  }
  constexpr uint64_t kMaxEnd = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (chunk.offset > kMaxEnd - chunk.size) {
    return bad(fmt::format("its range of {} bytes at offset {} ends beyond the largest file offset",
                           chunk.size, chunk.offset));
  }
  return chunk;
}

Status ReadSubject(bus::internal::JetStreamLink& link, const std::string& stream,
                   const std::string& subject, bool headers_only,
                   const std::function<Status(natsMsg*, uint64_t seq)>& visit) {
  jsConsumerConfig cfg;
  jsConsumerConfig_Init(&cfg);
  cfg.DeliverPolicy = js_DeliverAll;
  cfg.AckPolicy = js_AckNone;
  cfg.FilterSubject = subject.c_str();
  cfg.HeadersOnly = headers_only;
  cfg.InactiveThreshold = 60 * 1000 * kNsPerMs;
  jsConsumerInfo* raw_ci = nullptr;
  jsErrCode jerr = static_cast<jsErrCode>(0);
  natsStatus s = js_AddConsumer(&raw_ci, link.js(), stream.c_str(), &cfg, nullptr, &jerr);
  NatsPtr<jsConsumerInfo> ci(raw_ci);
  if (s != NATS_OK) {
    return NatsFailure(
        fmt::format("reading {} from stream '{}' on {}", subject, stream, link.servers_text()), s,
        jerr);
  }
  ConsumerGuard consumer(link, stream, ci->Name);
  if (ci->NumPending == 0) return Status::Ok();

  jsSubOptions so;
  jsSubOptions_Init(&so);
  so.Stream = stream.c_str();
  so.Consumer = consumer.name().c_str();
  so.Config.HeadersOnly = headers_only;  // binding checks that the consumer is the one asked for
  natsSubscription* raw_sub = nullptr;
  jerr = static_cast<jsErrCode>(0);
  s = js_PullSubscribe(&raw_sub, link.js(), subject.c_str(), nullptr, nullptr, &so, &jerr);
  NatsPtr<natsSubscription> sub(raw_sub);
  if (s != NATS_OK) {
    return NatsFailure(
        fmt::format("binding to consumer '{}' of stream '{}'", consumer.name(), stream), s, jerr);
  }
  for (;;) {
    bus::internal::MsgList list;
    jerr = static_cast<jsErrCode>(0);
    s = natsSubscription_Fetch(list.get(), sub.get(), headers_only ? kHeaderBatch : kDataBatch,
                               kFetchWait.count(), &jerr);
    if (s != NATS_OK) {
      return NatsFailure(fmt::format("fetching {} from consumer '{}' of stream '{}' on {}", subject,
                                     consumer.name(), stream, link.servers_text()),
                         s, jerr);
    }
    for (int i = 0; i < list.size(); ++i) {
      jsMsgMetaData* raw_meta = nullptr;
      s = natsMsg_GetMetaData(&raw_meta, list[i]);
      NatsPtr<jsMsgMetaData> meta(raw_meta);
      if (s != NATS_OK)
        return NatsFailure(fmt::format("metadata of a message of stream '{}'", stream), s);
      FATHOM_RETURN_IF_ERROR(visit(list[i], meta->Sequence.Stream));
      if (meta->NumPending == 0) return Status::Ok();
    }
  }
}

}  // namespace fathom::iotrace::transport

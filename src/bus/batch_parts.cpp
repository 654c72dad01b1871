#include "bus/batch_parts.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "bus/bus_names.h"
#include "wire/wire_messages.h"

namespace fathom::bus::internal {
namespace {

// Paths are named in errors whole up to this length, then cut.
constexpr size_t kPathShown = 256;

std::string ShownPath(const std::string& path) {
  if (path.size() <= kPathShown) return path;
  return fmt::format("{}... ({} bytes)", path.substr(0, kPathShown), path.size());
}

std::string EncodeSlice(std::string_view collector, const std::vector<Event>& events, size_t first, size_t count,
                        uint64_t from, uint64_t to) {
  return wire::EncodeBatch(collector, from, to, std::span<const Event>(events).subspan(first, count));
}

// Appends to `out` the parts covering [first, first + count), halving until each fits.
Status SplitSlice(const SplitTarget& target, const std::vector<Event>& events, size_t first, size_t count,
                  uint64_t from, uint64_t to, std::string frame, std::vector<BatchPart>& out) {
  if (target.max_frame == 0 || frame.size() <= target.max_frame) {
    out.push_back({first, count, std::move(frame)});
    return Status::Ok();
  }
  if (count == 1) {
    const Event& e = events[first];
    return Status::Error(
        fmt::format("event {} of the batch for collector '{}' ({} on '{}') encodes to {} bytes, more than the "
                    "NATS server {} accepts in one message (max_payload {} bytes, less {} for headers): raise "
                    "max_payload in nats-server.conf (e.g. 'max_payload: 8MB'; at most 64MB) on every server of "
                    "the bus and restart them",
                    first, target.collector, KindNames(e.mask), ShownPath(e.path), frame.size(), target.servers,
                    target.max_payload, static_cast<size_t>(target.max_payload) - target.max_frame),
        std::make_error_code(std::errc::invalid_argument));
  }
  const size_t half = count / 2;
  FATHOM_RETURN_IF_ERROR(SplitSlice(target, events, first, half, from, to,
                                    EncodeSlice(target.collector, events, first, half, from, to), out));
  return SplitSlice(target, events, first + half, count - half, from, to,
                    EncodeSlice(target.collector, events, first + half, count - half, from, to), out);
}

bool ParseNumber(std::string_view text, uint64_t& value) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size();
}

// Room for the headers: Nats-Msg-Id (token, position, part, digest), Fathom-Part,
// Fathom-Prev-Seq and the HPUB protocol line with the subject.
constexpr size_t kHeaderAllowance = 1024;

}  // namespace

size_t MaxFrame(int64_t max_payload, std::string_view subject) {
  const size_t allowance = kHeaderAllowance + 2 * subject.size();
  return max_payload > static_cast<int64_t>(2 * allowance) ? static_cast<size_t>(max_payload) - allowance : 0;
}

Result<NatsPtr<natsMsg>> BatchMessage(const std::string& subject, const std::string& frame, const std::string& msg_id,
                                      const PartInfo* part) {
  natsMsg* raw = nullptr;
  natsStatus s = natsMsg_Create(&raw, subject.c_str(), nullptr, frame.data(), static_cast<int>(frame.size()));
  NatsPtr<natsMsg> msg(raw);
  if (s == NATS_OK) s = natsMsgHeader_Set(msg.get(), kMsgIdHeader, msg_id.c_str());
  if (s == NATS_OK && part != nullptr) {
    s = natsMsgHeader_Set(msg.get(), kPartHeader, FormatPartHeader(*part).c_str());
    if (s == NATS_OK && part->part > 1) {
      s = natsMsgHeader_Set(msg.get(), kPrevSeqHeader, std::to_string(part->prev_seq).c_str());
    }
  }
  if (s != NATS_OK) {
    return Status::Error(fmt::format("building message {} on {}: {}", msg_id, subject, natsStatus_GetText(s)));
  }
  return msg;
}

Result<std::vector<BatchPart>> SplitBatch(const SplitTarget& target, const std::vector<Event>& events,
                                          uint64_t from, uint64_t to) {
  std::vector<BatchPart> parts;
  std::string whole = EncodeSlice(target.collector, events, 0, events.size(), from, to);
  if (target.max_frame == 0 || whole.size() <= target.max_frame || events.size() <= 1) {
    FATHOM_RETURN_IF_ERROR(SplitSlice(target, events, 0, events.size(), from, to, std::move(whole), parts));
    return parts;
  }
  // Equal event counts sized from the whole frame; slices of unusually long paths are halved.
  const size_t slices = std::min(events.size(), (whole.size() + target.max_frame - 1) / target.max_frame);
  whole.clear();
  size_t first = 0;
  for (size_t i = 0; i < slices; ++i) {
    const size_t count = (events.size() - first) / (slices - i);
    FATHOM_RETURN_IF_ERROR(SplitSlice(target, events, first, count, from, to,
                                      EncodeSlice(target.collector, events, first, count, from, to), parts));
    first += count;
  }
  return parts;
}

uint64_t BatchDigest(const std::vector<BatchPart>& parts) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a, 64 bits
  for (const auto& part : parts) {
    for (unsigned char c : part.frame) {
      h ^= c;
      h *= 0x100000001b3ULL;
    }
    h ^= part.count;
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string PartMessageId(std::string_view collector, uint64_t to, const PartInfo& info, uint64_t digest) {
  return fmt::format("{}:{}:{}/{}:{:016x}", SubjectToken(collector), to, info.part, info.parts, digest);
}

std::string FormatPartHeader(const PartInfo& info) {
  return fmt::format("{} {} {} {}", info.part, info.parts, info.first_index, info.total);
}

Result<std::optional<PartInfo>> ReadPartInfo(natsMsg* msg) {
  const char* value = nullptr;
  natsStatus s = natsMsgHeader_Get(msg, kPartHeader, &value);
  if (s == NATS_NOT_FOUND) return std::optional<PartInfo>();
  auto malformed = [&](std::string_view what) {
    return Status::Error(fmt::format("a message on {}: its {} header '{}' is malformed ({})", natsMsg_GetSubject(msg),
                                     kPartHeader, value != nullptr ? value : "", what));
  };
  if (s != NATS_OK || value == nullptr) return malformed("unreadable");
  uint64_t fields[4] = {};
  std::string_view text(value);
  for (int i = 0; i < 4; ++i) {
    const size_t space = text.find(' ');
    if (!ParseNumber(text.substr(0, space), fields[i])) return malformed("expected 'PART PARTS FIRST TOTAL'");
    text = space == std::string_view::npos ? std::string_view() : text.substr(space + 1);
    if (i < 3 && space == std::string_view::npos) return malformed("expected 'PART PARTS FIRST TOTAL'");
  }
  PartInfo info;
  if (fields[1] < 1 || fields[0] < 1 || fields[0] > fields[1] || fields[3] > wire::kMaxBatchEvents ||
      fields[2] > fields[3]) {
    return malformed("part outside 1..PARTS or index outside the batch");
  }
  info.part = static_cast<uint32_t>(fields[0]);
  info.parts = static_cast<uint32_t>(fields[1]);
  info.first_index = static_cast<uint32_t>(fields[2]);
  info.total = static_cast<uint32_t>(fields[3]);
  if (info.part > 1) {
    const char* prev = nullptr;
    if (natsMsgHeader_Get(msg, kPrevSeqHeader, &prev) != NATS_OK || prev == nullptr ||
        !ParseNumber(prev, info.prev_seq) || info.prev_seq == 0) {
      return malformed(fmt::format("part {} without a valid {} header", info.part, kPrevSeqHeader));
    }
  }
  return std::optional<PartInfo>(info);
}

}  // namespace fathom::bus::internal

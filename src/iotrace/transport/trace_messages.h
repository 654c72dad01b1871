// trace_messages.h — the messages that carry trace files on the FATHOM_IO stream (their
// headers, ids and checks; fathom/io_transport.h describes them) and the reading of every
// message of a job's subject.
// Pure functions except ReadSubject (a blocking exchange on the caller's link); any thread.
#pragma once

#include <nats/nats.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "bus/jetstream_link.h"
#include "bus/nats_handles.h"
#include "fathom/client.h"
#include "fathom/status.h"

namespace fathom::iotrace::transport {

inline constexpr const char* kFileHeader = "Fathom-Io-File";
inline constexpr const char* kOffsetHeader = "Fathom-Io-Offset";
// The most bytes one message carries.
inline constexpr uint64_t kMaxChunkBytes = 256 * 1024;

// "<subject_prefix>.<job token>".
std::string JobSubject(const BusOptions& bus, std::string_view job);
// "<job token>:<file token>:<offset>".
std::string ChunkMessageId(std::string_view job, std::string_view file, uint64_t offset);
// A name a trace file may have inside a job's directory: not empty, no '/', no "..".
bool IsTraceFileName(std::string_view name);
// The bytes one message may carry to `subject` for `file` under the server's max_payload
// (0: too small to carry any).
uint64_t ChunkLimit(int64_t max_payload, std::string_view subject, std::string_view file);

Result<bus::internal::NatsPtr<natsMsg>> ChunkMessage(const std::string& subject,
                                                     std::string_view job, const std::string& file,
                                                     uint64_t offset, const char* data,
                                                     size_t size);

// One message's range, checked. `size` comes from the data, or from Nats-Msg-Size for a
// message read with headers only.
struct Chunk {
  std::string file;
  uint64_t offset = 0;
  uint64_t size = 0;
  std::string_view data;  // empty for headers only; points into the message
};

// The range a message carries; `seq` (its stream sequence) and `stream` name it in errors.
Result<Chunk> ReadChunk(natsMsg* msg, uint64_t seq, std::string_view stream, bool headers_only);

// Hands every message the stream holds on `subject` to `visit` with its stream sequence,
// oldest first, until none is pending; through an ephemeral pull consumer (deleted afterwards),
// with the data left out when `headers_only`. Stops at the first failure, visit's included.
Status ReadSubject(bus::internal::JetStreamLink& link, const std::string& stream,
                   const std::string& subject, bool headers_only,
                   const std::function<Status(natsMsg*, uint64_t seq)>& visit);

}  // namespace fathom::iotrace::transport

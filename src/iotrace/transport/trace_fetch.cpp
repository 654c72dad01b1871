// trace_fetch.cpp — FetchJobTraces: a job's trace files rebuilt from the FATHOM_IO stream
// (fathom/io_transport.h).
#include <fcntl.h>
#include <fmt/format.h>

#include <filesystem>
#include <map>

#include "bus/bus_names.h"
#include "bus/jetstream_link.h"
#include "core/unique_fd.h"
#include "fathom/io_transport.h"
#include "iotrace/transport/byte_ranges.h"
#include "iotrace/transport/trace_messages.h"

namespace fathom::iotrace {
namespace {

using bus::internal::NatsFailure;
using bus::internal::NatsPtr;

constexpr std::chrono::milliseconds kRequestTimeout{5000};

// Writes `data` at `offset` of `path`, truncating the file first when `fresh`.
Status WriteAt(const std::string& path, bool fresh, uint64_t offset, std::string_view data) {
  UniqueFd fd(open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (fresh ? O_TRUNC : 0), 0644));
  if (!fd.valid()) return Status::FromErrno(errno, "cannot open " + path + " for writing");
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n =
        pwrite(fd.get(), data.data() + done, data.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::FromErrno(errno, "cannot write " + path);
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

}  // namespace

Result<FetchFigures> FetchJobTraces(const std::string& endpoint, const std::string& job,
                                    const std::string& out_dir, const BusOptions& bus) {
  FATHOM_ASSIGN_OR_RETURN(std::vector<std::string> servers, bus::internal::ParseServers(endpoint));
  bus::internal::JetStreamLink link(std::move(servers), "fathom io fetch " + job, kRequestTimeout);
  FATHOM_RETURN_IF_ERROR(link.Connect());
  const std::string subject = transport::JobSubject(bus, job);
  jsStreamInfo* raw_info = nullptr;
  jsErrCode jerr = static_cast<jsErrCode>(0);
  natsStatus s = js_GetStreamInfo(&raw_info, link.js(), bus.stream.c_str(), nullptr, &jerr);
  NatsPtr<jsStreamInfo> info(raw_info);
  if (s != NATS_OK) {
    if (jerr == JSStreamNotFoundErr) {
      return Status::Error(fmt::format("NATS {} has no stream '{}': no traces were published there",
                                       link.servers_text(), bus.stream));
    }
    return NatsFailure(fmt::format("stream '{}' on {}", bus.stream, link.servers_text()), s, jerr);
  }
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec)
    return Status::Error(fmt::format("cannot make directory {}: {}", out_dir, ec.message()), ec);

  FetchFigures figures;
  std::map<std::string, transport::ByteRanges> written;  // by file name
  FATHOM_RETURN_IF_ERROR(
      transport::ReadSubject(link, bus.stream, subject, false, [&](natsMsg* msg, uint64_t seq) {
        FATHOM_ASSIGN_OR_RETURN(const transport::Chunk chunk,
                                transport::ReadChunk(msg, seq, bus.stream, false));
        auto [it, fresh] = written.try_emplace(chunk.file);
        FATHOM_RETURN_IF_ERROR(
            WriteAt(out_dir + "/" + chunk.file, fresh, chunk.offset, chunk.data));
        it->second.Add(chunk.offset, chunk.offset + chunk.size);
        ++figures.messages;
        figures.bytes += chunk.size;
        return Status::Ok();
      }));
  if (written.empty()) {
    return Status::Error(
        fmt::format("stream '{}' on NATS {} holds no traces of job {} (subject {})", bus.stream,
                    link.servers_text(), job, subject));
  }
  for (const auto& [name, ranges] : written) {
    if (auto hole = ranges.FirstHole()) {
      return Status::Error(
          fmt::format("{}/{}: bytes {}-{} are not in stream '{}' (removed by its limits, or never "
                      "published); the file holds zeros there",
                      out_dir, name, hole->first, hole->second, bus.stream));
    }
  }
  figures.files = written.size();
  return figures;
}

}  // namespace fathom::iotrace

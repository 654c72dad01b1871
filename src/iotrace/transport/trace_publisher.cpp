// trace_publisher.cpp — TracePublisher: a job's trace files to the FATHOM_IO stream, range by
// range, each acknowledged before the next (fathom/io_transport.h).
//
// One message is in flight at a time. Until it is acknowledged it is sent again exactly as it
// was (same file, offset and length: the same id always carries the same bytes), and a resend
// first asks whether it is the subject's last stored message (its acknowledgement lost), so a
// retry after the stream's duplicate window does not store it twice.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>

#include "bus/batch_parts.h"
#include "bus/bus_names.h"
#include "bus/jetstream_link.h"
#include "bus/retry_log.h"
#include "core/trace_files.h"
#include "fathom/io_transport.h"
#include "iotrace/transport/byte_ranges.h"
#include "iotrace/transport/trace_messages.h"
#include "iotrace/trace_tail.h"

namespace fathom::iotrace {
namespace {

using bus::internal::JetStreamLink;
using bus::internal::NatsFailure;
using bus::internal::NatsPtr;
using Clock = std::chrono::steady_clock;

// The names of the trace files (*.fio) directly inside `dir`, sorted; none while `dir` does
// not exist yet (the tracer makes it when the first process starts).
Result<std::vector<std::string>> ListTraceFiles(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> names;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec == std::errc::no_such_file_or_directory) return names;
  for (fs::directory_iterator end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".fio" && it->is_regular_file(ec))
      names.push_back(it->path().filename().string());
  }
  if (ec)
    return Status::Error(fmt::format("cannot list trace directory {}: {}", dir, ec.message()), ec);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

class TracePublisher::Impl {
 public:
  Impl(TransportOptions options, std::vector<std::string> servers)
      : options_(std::move(options)),
        subject_(transport::JobSubject(options_.bus, options_.job)),
        link_(std::move(servers), "fathom io " + options_.job, options_.ack_timeout) {}

  Status Run();

  void Finish(std::chrono::milliseconds wait) {
    std::lock_guard lock(mu_);
    if (!give_up_at_) give_up_at_ = Clock::now() + wait;
    cv_.notify_all();
  }

  PublishFigures figures() const {
    PublishFigures f;
    f.files = files_seen_.load();
    f.bytes = bytes_.load();
    f.messages = messages_.load();
    f.bytes_held = bytes_held_.load();
    return f;
  }

 private:
  struct File {
    explicit File(const std::string& path) : tail(path, IoTraceKind()) {}
    TraceTail tail;
    Status failed;  // a local failure: the file is left out from then on
  };
  // The one message sent but not yet acknowledged.
  struct InFlight {
    std::string file;
    uint64_t begin = 0;
    uint64_t end = 0;
    bool attempted = false;
  };

  std::optional<Clock::time_point> GiveUpAt() const {
    std::lock_guard lock(mu_);
    return give_up_at_;
  }
  // Waits for the poll interval, or less when Finish() comes.
  void WaitPoll() {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, options_.poll_interval, [&] { return give_up_at_.has_value(); });
  }
  Status Connected();
  // What the stream already holds of the job, once per publisher.
  Status LoadHeld();
  // The files that appeared since the last pass.
  Status ListFiles();
  // One pass: connects, lists, and sends what may be sent of every file.
  Status Pass(bool run_over);
  Status SendFile(const std::string& name, File& file, bool run_over);
  // Sends in_flight_ once: acknowledged, its range is held; a NATS failure leaves it in flight
  // for the next pass, unchanged.
  Status Deliver();
  // The stream sequence of message `msg_id` if it is the subject's last, else 0.
  Result<uint64_t> StoredAs(const std::string& msg_id);
  void LeaveOut(File& file, const std::string& name, Status why);
  // Bytes of the job's files not acknowledged, and in how many files.
  std::pair<uint64_t, uint64_t> Left() const;
  Status GaveUp(const Status& last_failure) const;
  Status Done() const;

  TransportOptions options_;
  std::string subject_;
  JetStreamLink link_;
  bool stream_ready_ = false;
  bool held_loaded_ = false;
  int64_t max_payload_ = 0;
  std::map<std::string, File> files_;                  // by name
  std::map<std::string, transport::ByteRanges> held_;  // by file name: in the stream
  std::map<std::string, uint64_t> found_held_;  // by file name: bytes held before this publisher
  std::optional<InFlight> in_flight_;
  bus::internal::RetryLog retry_log_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::optional<Clock::time_point> give_up_at_;  // guarded by mu_; set by Finish()

  std::atomic<uint64_t> files_seen_{0};
  std::atomic<uint64_t> bytes_{0};
  std::atomic<uint64_t> messages_{0};
  std::atomic<uint64_t> bytes_held_{0};
};

Status TracePublisher::Impl::Connected() {
  FATHOM_RETURN_IF_ERROR(link_.Connect());
  if (!stream_ready_) {
    FATHOM_RETURN_IF_ERROR(link_.EnsureStream(options_.bus));
    stream_ready_ = true;
  }
  if (!held_loaded_) {
    FATHOM_RETURN_IF_ERROR(LoadHeld());
    held_loaded_ = true;
  }
  max_payload_ = natsConnection_GetMaxPayload(link_.connection());
  return Status::Ok();
}

Status TracePublisher::Impl::LoadHeld() {
  held_.clear();
  bool warned = false;
  FATHOM_RETURN_IF_ERROR(transport::ReadSubject(
      link_, options_.bus.stream, subject_, true, [&](natsMsg* msg, uint64_t seq) {
        auto chunk = transport::ReadChunk(msg, seq, options_.bus.stream, true);
        if (!chunk.ok()) {
          if (!warned) spdlog::warn("{} (left out)", chunk.status().message());
          warned = true;
          return Status::Ok();
        }
        held_[chunk->file].Add(chunk->offset, chunk->offset + chunk->size);
        return Status::Ok();
      }));
  for (const auto& [name, ranges] : held_) found_held_[name] = ranges.bytes();
  return Status::Ok();
}

Status TracePublisher::Impl::ListFiles() {
  FATHOM_ASSIGN_OR_RETURN(const std::vector<std::string> names, ListTraceFiles(options_.dir));
  for (const std::string& name : names) {
    if (files_.count(name) != 0) continue;
    files_.emplace(name, File(options_.dir + "/" + name));
    ++files_seen_;
    if (auto it = found_held_.find(name); it != found_held_.end()) bytes_held_ += it->second;
  }
  return Status::Ok();
}

void TracePublisher::Impl::LeaveOut(File& file, const std::string& name, Status why) {
  spdlog::error("trace file {} is left out of what is published: {}", name,
                why.message());
  file.failed = std::move(why);
  if (in_flight_ && in_flight_->file == name) in_flight_.reset();
}

Result<uint64_t> TracePublisher::Impl::StoredAs(const std::string& msg_id) {
  natsMsg* raw = nullptr;
  jsErrCode jerr = static_cast<jsErrCode>(0);
  natsStatus s = js_GetLastMsg(&raw, link_.js(), options_.bus.stream.c_str(), subject_.c_str(),
                               nullptr, &jerr);
  NatsPtr<natsMsg> msg(raw);
  if (s != NATS_OK) {
    if (jerr == JSNoMessageFoundErr) return uint64_t{0};
    return NatsFailure(
        fmt::format("last message on {} in stream '{}'", subject_, options_.bus.stream), s, jerr);
  }
  const char* id = nullptr;
  if (natsMsgHeader_Get(msg.get(), bus::internal::kMsgIdHeader, &id) != NATS_OK || id == nullptr ||
      msg_id != id) {
    return uint64_t{0};
  }
  return natsMsg_GetSequence(msg.get());
}

Status TracePublisher::Impl::Deliver() {
  InFlight& m = *in_flight_;
  File& file = files_.at(m.file);
  auto data = ReadTraceRange(file.tail.path(), m.begin, m.end);
  if (!data.ok()) {
    LeaveOut(file, m.file, data.status());
    return Status::Ok();
  }
  const std::string msg_id = transport::ChunkMessageId(options_.job, m.file, m.begin);
  bool stored = false;
  if (m.attempted) {
    FATHOM_ASSIGN_OR_RETURN(const uint64_t seq, StoredAs(msg_id));
    stored = seq != 0;
  }
  if (!stored) {
    FATHOM_ASSIGN_OR_RETURN(NatsPtr<natsMsg> msg,
                            transport::ChunkMessage(subject_, options_.job, m.file, m.begin,
                                                    data->data(), data->size()));
    jsPubOptions po;
    jsPubOptions_Init(&po);
    po.MaxWait = options_.ack_timeout.count();
    jsPubAck* raw_ack = nullptr;
    jsErrCode jerr = static_cast<jsErrCode>(0);
    m.attempted = true;
    natsStatus s = js_PublishMsg(&raw_ack, link_.js(), msg.get(), &po, &jerr);
    NatsPtr<jsPubAck> ack(raw_ack);
    if (s != NATS_OK) {
      return NatsFailure(
          fmt::format("publishing bytes {}-{} of {} ({}) to stream '{}' on {}", m.begin, m.end,
                      m.file, subject_, options_.bus.stream, link_.servers_text()),
          s, jerr);
    }
  }
  held_[m.file].Add(m.begin, m.end);
  bytes_ += m.end - m.begin;
  ++messages_;
  in_flight_.reset();
  link_.ResetBackoff();
  if (const uint64_t failed = retry_log_.Succeeded(); failed > 0) {
    spdlog::info("NATS {} takes the traces of job {} again after {} failed attempts",
                 link_.servers_text(), options_.job, failed);
  }
  return Status::Ok();
}

Status TracePublisher::Impl::SendFile(const std::string& name, File& file, bool run_over) {
  auto limit = file.tail.SafeEnd(run_over);
  if (!limit.ok()) {
    LeaveOut(file, name, limit.status());
    return Status::Ok();
  }
  const uint64_t chunk = transport::ChunkLimit(max_payload_, subject_, name);
  if (chunk == 0) {
    return Status::Error(
        fmt::format(
            "NATS {} allows messages of {} bytes (max_payload), too few to carry trace file {}",
            link_.servers_text(), max_payload_, name),
        std::make_error_code(std::errc::invalid_argument));
  }
  transport::ByteRanges& held = held_[name];
  while (file.failed.ok()) {
    const uint64_t begin = held.FirstMissing(0);
    if (begin >= *limit) break;
    const uint64_t end = std::min({*limit, held.NextHeld(begin), begin + chunk});
    in_flight_ = InFlight{name, begin, end, false};
    FATHOM_RETURN_IF_ERROR(Deliver());
  }
  return Status::Ok();
}

Status TracePublisher::Impl::Pass(bool run_over) {
  FATHOM_RETURN_IF_ERROR(Connected());
  FATHOM_RETURN_IF_ERROR(ListFiles());
  if (in_flight_) FATHOM_RETURN_IF_ERROR(Deliver());
  for (auto& [name, file] : files_) {
    if (file.failed.ok()) FATHOM_RETURN_IF_ERROR(SendFile(name, file, run_over));
  }
  return Status::Ok();
}

std::pair<uint64_t, uint64_t> TracePublisher::Impl::Left() const {
  uint64_t bytes = 0, files = 0;
  auto names = ListTraceFiles(options_.dir);
  if (!names.ok()) return {0, 0};
  for (const std::string& name : *names) {
    std::error_code ec;
    const uint64_t size = std::filesystem::file_size(options_.dir + "/" + name, ec);
    auto it = held_.find(name);
    const uint64_t held = it == held_.end() ? 0 : it->second.bytes();
    if (ec || size <= held) continue;
    bytes += size - held;
    ++files;
  }
  return {bytes, files};
}

Status TracePublisher::Impl::GaveUp(const Status& last_failure) const {
  const auto [bytes, files] = Left();
  return Status::Error(
      fmt::format("NATS {} did not take every trace of job {} in time: {} bytes of {} file(s) are "
                  "not acknowledged (last failure: {})",
                  link_.servers_text(), options_.job, bytes, files, last_failure.message()),
      last_failure.code());
}

Status TracePublisher::Impl::Done() const {
  std::string failures;
  size_t count = 0;
  for (const auto& [name, file] : files_) {
    if (file.failed.ok()) continue;
    if (count++ > 0) failures += "; ";
    failures += file.failed.message();
  }
  if (count == 0) return Status::Ok();
  return Status::Error(
      fmt::format("{} trace file(s) of job {} could not be read, so were not all published to NATS "
                  "{}: {}",
                  count, options_.job, link_.servers_text(), failures));
}

Status TracePublisher::Impl::Run() {
  for (;;) {
    // Read before the pass, so that a pass of a finished run sees every byte the job wrote.
    const std::optional<Clock::time_point> give_up_at = GiveUpAt();
    const bool run_over = give_up_at.has_value();
    Status s = Pass(run_over);
    if (s.ok()) {
      if (run_over) return Done();
      WaitPoll();
      continue;
    }
    if (bus::internal::IsPermanent(s)) return s;
    stream_ready_ = false;
    if (retry_log_.Failed()) {
      spdlog::warn(
          "publishing the traces of job {} failed, retrying with backoff ({} attempt{} failed so "
          "far): {}",
          options_.job, retry_log_.failures(), retry_log_.failures() == 1 ? "" : "s", s.message());
    }
    std::chrono::milliseconds pause = options_.max_backoff;
    if (give_up_at) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(*give_up_at - Clock::now());
      if (left.count() <= 0) return GaveUp(s);
      pause = std::min(pause, left);
    }
    link_.Backoff(pause);
  }
}

TracePublisher::TracePublisher(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TracePublisher::~TracePublisher() = default;

Result<std::unique_ptr<TracePublisher>> TracePublisher::Open(TransportOptions options) {
  FATHOM_ASSIGN_OR_RETURN(std::vector<std::string> servers,
                          bus::internal::ParseServers(options.endpoint));
  if (options.job.empty())
    return Status::Error("publishing traces to NATS needs the job id (their subject)");
  if (options.bus.stream.empty() || options.bus.subject_prefix.empty()) {
    return Status::Error(fmt::format(
        "NATS bus {}: stream name and subject prefix must not be empty", options.endpoint));
  }
  auto impl = std::make_unique<Impl>(std::move(options), std::move(servers));
  return std::unique_ptr<TracePublisher>(new TracePublisher(std::move(impl)));
}

Status TracePublisher::Run() { return impl_->Run(); }
void TracePublisher::Finish(std::chrono::milliseconds wait) { impl_->Finish(wait); }
PublishFigures TracePublisher::figures() const { return impl_->figures(); }

BusOptions TraceBus() {
  BusOptions bus;
  bus.stream = "FATHOM_IO";
  bus.subject_prefix = "fathom.io";
  return bus;
}

Result<PublishFigures> PublishJobTraces(const TransportOptions& options,
                                        std::chrono::milliseconds wait) {
  FATHOM_ASSIGN_OR_RETURN(const std::vector<std::string> names, ListTraceFiles(options.dir));
  if (names.empty()) {
    return Status::Error(
        fmt::format("no trace files (*.fio) in {}: give the job's trace directory (OUT/JOB of "
                    "`fathom io run`)",
                    options.dir));
  }
  FATHOM_ASSIGN_OR_RETURN(std::unique_ptr<TracePublisher> publisher, TracePublisher::Open(options));
  publisher->Finish(wait);
  FATHOM_RETURN_IF_ERROR(publisher->Run());
  return publisher->figures();
}

}  // namespace fathom::iotrace

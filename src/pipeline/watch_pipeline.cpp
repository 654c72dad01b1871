#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <thread>

#include "core/thread_name.h"
#include "core/thread_priority.h"
#include "fathom/pipeline.h"
#include "pipeline/event_queue.h"

namespace fathom {
namespace {

// The reader empties a kernel queue that overflows when it falls behind, while the writer's
// work (commits, printing) can wait in the bounded queue: when permitted (root or
// CAP_SYS_NICE), the reader thread gets a higher CPU priority than the rest of the process.
constexpr int kReaderNice = -10;

// When a wake-up brings only a few events, the reader lingers and drains again, as long as
// more keep arriving, so that a dense stream is handed over in larger batches (fewer thread
// wake-ups and commits per event) at the cost of at most kMaxLingers * kLinger of latency.
constexpr auto kLinger = std::chrono::microseconds(200);
constexpr int kMaxLingers = 8;
constexpr size_t kLingerBelow = 1024;

void RaiseReaderPriority() {
  if (!SetThisThreadNice(kReaderNice)) {
    spdlog::debug("reader thread keeps its priority ({})", std::strerror(errno));
  }
}

}  // namespace

WatchPipeline::WatchPipeline(WatchOptions options) : options_(std::move(options)) {}

WatchPipeline::~WatchPipeline() { FinishWriting(); }

void WatchPipeline::Stop() {
  StopReading();
  if (options_.sink == nullptr) return;
  std::lock_guard lock(stop_mu_);
  if (writing_done_) return;
  if (grace_timer_.joinable() || !sink_answered_ || options_.stop_grace.count() == 0) {
    options_.sink->Stop();  // a second Stop(), no grace, or nothing read that could be committed
    return;
  }
  grace_timer_ = std::thread([this] {
    NameThisThread("stop-grace");
    std::unique_lock lock(stop_mu_);
    if (stop_cv_.wait_for(lock, options_.stop_grace, [this] { return writing_done_; })) return;
    spdlog::warn("the far end did not take the last events within {} ms; stopping without them",
                 options_.stop_grace.count());
    options_.sink->Stop();
  });
}

void WatchPipeline::FinishWriting() {
  std::thread timer;
  {
    std::lock_guard lock(stop_mu_);
    writing_done_ = true;
    timer = std::move(grace_timer_);
  }
  stop_cv_.notify_all();
  if (timer.joinable()) timer.join();
}

void WatchPipeline::StopReading() {
  stop_requested_ = true;
  std::lock_guard lock(source_mu_);
  if (source_ != nullptr) source_->Stop();
}

Result<WatchSummary> WatchPipeline::Run(const SourceRegistry& registry) {
  std::unique_ptr<EventStore> store;
  std::unique_ptr<EventSink> store_sink;
  EventSink* sink = options_.sink;
  if (options_.store) {
    FATHOM_ASSIGN_OR_RETURN(store, EventStore::Open(*options_.store));
    store_sink = MakeStoreSink(*store);
    sink = store_sink.get();
  }
  uint64_t next_id = 1;  // without a sink

  if (!options_.filter.exclude.empty()) {
    FilterOptions exclude_only;
    exclude_only.exclude = options_.filter.exclude;
    auto excluded = std::make_shared<const EventFilter>(std::move(exclude_only));
    options_.source.excluded_directory = [excluded, roots = options_.source.roots](std::string_view dir) {
      return excluded->ExcludesDirectory(roots, dir);
    };
  }
  std::unique_ptr<Source> source;
  FATHOM_ASSIGN_OR_RETURN(source, registry.Create(options_.backend, options_.source,
                                                  [](const std::string& m) { spdlog::info("{}", m); }));
  if (sink != nullptr) {
    FATHOM_ASSIGN_OR_RETURN(uint64_t position, sink->Position(source->name()));
    FATHOM_RETURN_IF_ERROR(source->Resume(position));
    std::lock_guard lock(stop_mu_);
    sink_answered_ = true;
  }
  FATHOM_RETURN_IF_ERROR(source->Start());
  {
    std::lock_guard lock(source_mu_);
    source_ = source.get();
  }
  if (stop_requested_) source->Stop();
  spdlog::info("watches established ({}, {} kernel watches)", source->name(), source->Stats().watches);

  const EventFilter filter(options_.filter);
  internal::EventQueue queue(options_.queue_capacity);
  Status reader_status;
  uint64_t pushed_position = 0;  // reader thread only
  std::thread reader([&] {
    NameThisThread("read");
    RaiseReaderPriority();
    const auto start = std::chrono::steady_clock::now();
    std::vector<Event> batch;  // empty at the top of each round
    while (!stop_requested_) {
      if (options_.timeout.count() > 0 && std::chrono::steady_clock::now() - start >= options_.timeout) break;
      Status s = source->Wait(std::chrono::milliseconds(200));
      if (s.ok()) s = source->Drain(batch);
      for (int i = 0; s.ok() && i < kMaxLingers && !batch.empty() && batch.size() < kLingerBelow; ++i) {
        const size_t before = batch.size();
        std::this_thread::sleep_for(kLinger);
        s = source->Drain(batch);
        if (batch.size() == before) break;  // the stream paused: hand over what there is
      }
      // Events handed out before a failure are still written (with their position).
      std::erase_if(batch, [&](const Event& e) { return !filter.Matches(e); });
      const uint64_t position = source->Position();
      const bool advanced = position > pushed_position;
      if ((!batch.empty() || advanced) && !queue.Push(batch, position)) break;
      pushed_position = position;
      if (!s.ok()) {
        reader_status = s;
        break;
      }
    }
    queue.Close();
  });

  auto formatter = MakeFormatter(options_.format);
  WatchSummary summary;
  Status writer_status;
  std::string text;
  std::vector<Event> batch;
  uint64_t position = 0;
  while (queue.Pop(batch, options_.max_batch, position)) {
    if (options_.max_count > 0 && summary.events_written + batch.size() >= options_.max_count) {
      if (batch.size() > options_.max_count - summary.events_written) position = 0;  // cut short
      batch.resize(options_.max_count - summary.events_written);
      StopReading();
    }
    if (sink != nullptr) {
      std::optional<SourcePosition> stored;
      if (position > 0) stored = SourcePosition{std::string(source->name()), position};
      writer_status = sink->Commit(batch, stored);
      if (writer_status.ok() && position > 0) writer_status = source->Acknowledge(position);
      if (!writer_status.ok()) {
        StopReading();
        break;
      }
    } else {
      for (auto& e : batch) e.id = next_id++;
    }
    summary.events_written += batch.size();
    if (!batch.empty()) summary.last_id = batch.back().id;
    if (options_.out != nullptr) {
      text.clear();
      for (const auto& e : batch) formatter->Write(e, text);
      fwrite(text.data(), 1, text.size(), options_.out);
      fflush(options_.out);
    }
  }
  queue.Close();
  reader.join();
  FinishWriting();
  if (options_.out != nullptr) {
    text.clear();
    formatter->Flush(text);
    fwrite(text.data(), 1, text.size(), options_.out);
    fflush(options_.out);
  }
  summary.source = source->Stats();
  {
    std::lock_guard lock(source_mu_);
    source_ = nullptr;
  }
  if (!writer_status.ok()) return writer_status;
  if (!reader_status.ok()) return reader_status;
  return summary;
}

}  // namespace fathom

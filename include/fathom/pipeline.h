// pipeline.h — `fathom watch` and `fathom collect` as a library: source → filter → sink →
// output.
//
// Two threads: a reader that waits on the source, drains and filters events into a bounded
// queue (so the kernel queue is emptied promptly), and a writer that commits batches to the
// sink — the embedded store, or a remote aggregator or bus (fathom/sink.h) — which assigns
// ids, and only then prints them and acknowledges the source's position. Nothing is printed
// or released that is not committed.
// When the queue is full the reader blocks (back-pressure), it never drops.
// Run() blocks until Stop() (any thread, async-signal paths excluded), a limit, or an error.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "fathom/filter.h"
#include "fathom/format.h"
#include "fathom/sink.h"
#include "fathom/source.h"
#include "fathom/store.h"

namespace fathom {

struct WatchOptions {
  std::string backend = "auto";
  SourceOptions source;
  FilterOptions filter;
  std::optional<StoreOptions> store;   // the embedded store to commit to
  EventSink* sink = nullptr;           // or this sink (not owned; outlives Run()); with
                                       // neither, events are numbered in memory only
  Format format = Format::kInotify;
  FILE* out = stdout;                  // not owned; nullptr prints nothing
  uint64_t max_count = 0;              // stop after this many events (0 = no limit)
  std::chrono::milliseconds timeout{0};  // stop after this long (0 = no limit)
  size_t queue_capacity = 1u << 20;    // events held between reader and writer
  size_t max_batch = 8192;             // events per store transaction at most
  // After Stop(), how long a sink that has answered may still commit what was already read
  // before it is stopped too (0: at once). A second Stop() ends the grace.
  std::chrono::milliseconds stop_grace{0};
};

struct WatchSummary {
  uint64_t events_written = 0;
  uint64_t last_id = 0;
  SourceStats source;
};

class WatchPipeline {
 public:
  explicit WatchPipeline(WatchOptions options);
  ~WatchPipeline();
  WatchPipeline(const WatchPipeline&) = delete;
  WatchPipeline& operator=(const WatchPipeline&) = delete;
  // Runs until stopped; returns the summary, or why it could not watch.
  Result<WatchSummary> Run(const SourceRegistry& registry);
  // Thread-safe: makes Run() finish after writing what was already read (a remote sink that
  // cannot commit within options.stop_grace gives up, and those events are not acknowledged
  // to the source).
  void Stop();

 private:
  // Stops the source only: what was read is still committed.
  void StopReading();
  // Run() is done with the sink: a grace timer has nothing left to stop.
  void FinishWriting();
  WatchOptions options_;
  std::atomic<bool> stop_requested_{false};
  std::mutex source_mu_;
  Source* source_ = nullptr;  // guarded by source_mu_; set while Run() owns a started source
  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool sink_answered_ = false;  // guarded by stop_mu_: the sink answered Position()
  bool writing_done_ = false;   // guarded by stop_mu_
  std::thread grace_timer_;     // started by the first Stop() (guarded by stop_mu_)
};

}  // namespace fathom

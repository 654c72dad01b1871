// The pipeline with a scripted Source: the fake stands at the OS boundary only; the store,
// filter, queue and formatter are the real ones.
#include "fathom/pipeline.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "support/temp_dir.h"

namespace fathom {
namespace {

// Hands out the scripted batches, one per Drain(), then idles until stopped.
class ScriptedSource final : public Source {
 public:
  ScriptedSource(std::vector<std::vector<Event>> script, Status start) : script_(std::move(script)), start_(start) {}
  std::string_view name() const override { return "scripted"; }
  Status Start() override { return start_; }
  Status Wait(std::chrono::milliseconds timeout) override {
    std::unique_lock lock(mu_);
    if (next_ >= script_.size()) cv_.wait_for(lock, timeout, [&] { return stopped_; });
    return Status::Ok();
  }
  Status Drain(std::vector<Event>& out) override {
    std::lock_guard lock(mu_);
    if (next_ < script_.size()) {
      out.insert(out.end(), script_[next_].begin(), script_[next_].end());
      ++next_;
    }
    return Status::Ok();
  }
  void Stop() override {
    std::lock_guard lock(mu_);
    stopped_ = true;
    cv_.notify_all();
  }
  SourceStats Stats() const override { return {}; }

 private:
  std::vector<std::vector<Event>> script_;
  Status start_;
  std::mutex mu_;
  std::condition_variable cv_;
  size_t next_ = 0;
  bool stopped_ = false;
};

Event Ev(const std::string& path, uint32_t mask = kind::kCreate) {
  Event e;
  e.mask = mask;
  e.root = "/w";
  e.path = path;
  e.source = "scripted";
  return e;
}

SourceRegistry RegistryWith(std::vector<std::vector<Event>> script, Status start = Status::Ok()) {
  SourceRegistry r;
  r.Register({"scripted", 1, [](const SourceOptions&) { return Status::Ok(); },
              [=](const SourceOptions&) -> Result<std::unique_ptr<Source>> {
                return std::unique_ptr<Source>(std::make_unique<ScriptedSource>(script, start));
              }});
  return r;
}

std::string ReadAll(FILE* f) {
  std::string text;
  rewind(f);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  return text;
}

TEST(WatchPipeline, StoresEveryEventWithIncreasingIdsBeforePrintingIt) {
  testing::TempDir dir;
  FILE* out = tmpfile();
  WatchOptions o;
  o.backend = "scripted";
  o.store = StoreOptions{dir / "events.db"};
  o.out = out;
  o.max_count = 5;
  WatchPipeline p(o);
  auto summary = p.Run(RegistryWith({{Ev("/w/a"), Ev("/w/b")}, {Ev("/w/c")}, {Ev("/w/d"), Ev("/w/e")}}));
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_EQ(summary->events_written, 5u);
  EXPECT_EQ(summary->last_id, 5u);
  EXPECT_EQ(ReadAll(out), "/w CREATE /a\n/w CREATE /b\n/w CREATE /c\n/w CREATE /d\n/w CREATE /e\n");
  fclose(out);

  auto store = EventStore::Open(StoreOptions{dir / "events.db"});
  ASSERT_TRUE(store.ok());
  std::vector<uint64_t> ids;
  ASSERT_TRUE(store.value()->Replay({}, [&](const Event& e) { ids.push_back(e.id); return true; }).ok());
  EXPECT_EQ(ids, (std::vector<uint64_t>{1, 2, 3, 4, 5}));
}

TEST(WatchPipeline, IdsContinueAfterARestartOnTheSameStore) {
  testing::TempDir dir;
  for (int round = 0; round < 2; ++round) {
    WatchOptions o;
    o.backend = "scripted";
    o.store = StoreOptions{dir / "events.db"};
    o.out = nullptr;
    o.max_count = 2;
    auto summary = WatchPipeline(o).Run(RegistryWith({{Ev("/w/a"), Ev("/w/b")}}));
    ASSERT_TRUE(summary.ok()) << summary.status().message();
    EXPECT_EQ(summary->last_id, 2u * (round + 1));
  }
}

TEST(WatchPipeline, FilterDropsUnwantedKindsAndTheStoresOwnFiles) {
  FILE* out = tmpfile();
  WatchOptions o;
  o.backend = "scripted";
  o.out = out;
  o.max_count = 2;
  o.filter.kinds = kind::kDelete;
  o.filter.ignore_paths = {"/w/events.db-wal"};
  auto summary = WatchPipeline(o).Run(RegistryWith(
      {{Ev("/w/a"), Ev("/w/events.db-wal", kind::kDelete), Ev("/w/a", kind::kDelete)}, {Ev("/w", kind::kOverflow)}}));
  ASSERT_TRUE(summary.ok());
  EXPECT_EQ(ReadAll(out), "/w DELETE /a\n/w OVERFLOW /\n");
  fclose(out);
}

TEST(WatchPipeline, StopFromAnotherThreadEndsRun) {
  WatchOptions o;
  o.backend = "scripted";
  o.out = nullptr;
  WatchPipeline p(o);
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    p.Stop();
  });
  auto summary = p.Run(RegistryWith({{Ev("/w/a")}}));
  stopper.join();
  ASSERT_TRUE(summary.ok());
  EXPECT_EQ(summary->events_written, 1u);
}

// A remote sink at its boundary: Commit() blocks until the test opens the gate or the sink
// is stopped (then it fails, as the publisher does when stopped).
class GatedSink final : public EventSink {
 public:
  Result<uint64_t> Position(std::string_view) override { return uint64_t{0}; }
  Status Commit(std::vector<Event>& batch, const std::optional<SourcePosition>&) override {
    std::unique_lock lock(mu_);
    committing_ = true;
    cv_.notify_all();
    cv_.wait(lock, [&] { return open_ || stopped_; });
    if (!open_) return Status::Error("stopped before the far end answered");
    for (auto& e : batch) e.id = ++last_id_;
    return Status::Ok();
  }
  void Stop() override {
    std::lock_guard lock(mu_);
    stopped_ = true;
    cv_.notify_all();
  }
  void WaitUntilCommitting() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return committing_; });
  }
  void Open() {
    std::lock_guard lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  bool stopped() {
    std::lock_guard lock(mu_);
    return stopped_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool committing_ = false;
  bool open_ = false;
  bool stopped_ = false;
  uint64_t last_id_ = 0;
};

WatchOptions GracedOptions(EventSink& sink, std::chrono::milliseconds grace) {
  WatchOptions o;
  o.backend = "scripted";
  o.out = nullptr;
  o.sink = &sink;
  o.stop_grace = grace;
  return o;
}

TEST(WatchPipeline, StopGraceLetsTheSinkCommitWhatWasRead) {
  GatedSink sink;
  WatchPipeline p(GracedOptions(sink, std::chrono::seconds(30)));
  std::thread stopper([&] {
    sink.WaitUntilCommitting();
    p.Stop();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    sink.Open();  // the far end answers within the grace
  });
  auto summary = p.Run(RegistryWith({{Ev("/w/a"), Ev("/w/b")}}));
  stopper.join();
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_EQ(summary->events_written, 2u);
  EXPECT_EQ(summary->last_id, 2u);
  EXPECT_FALSE(sink.stopped());
}

TEST(WatchPipeline, SinkThatTakesNothingWithinTheGraceIsStopped) {
  GatedSink sink;
  WatchPipeline p(GracedOptions(sink, std::chrono::milliseconds(200)));
  std::thread stopper([&] {
    sink.WaitUntilCommitting();
    p.Stop();
  });
  auto summary = p.Run(RegistryWith({{Ev("/w/a")}}));
  stopper.join();
  ASSERT_FALSE(summary.ok());
  EXPECT_EQ(summary.status().message(), "stopped before the far end answered");
  EXPECT_TRUE(sink.stopped());
}

TEST(WatchPipeline, SecondStopEndsTheGrace) {
  GatedSink sink;
  WatchPipeline p(GracedOptions(sink, std::chrono::hours(1)));
  std::thread stopper([&] {
    sink.WaitUntilCommitting();
    p.Stop();
    p.Stop();
  });
  auto summary = p.Run(RegistryWith({{Ev("/w/a")}}));
  stopper.join();
  ASSERT_FALSE(summary.ok());
  EXPECT_TRUE(sink.stopped());
}

TEST(WatchPipeline, ReportsWhyTheSourceCouldNotStart) {
  WatchOptions o;
  o.backend = "scripted";
  o.out = nullptr;
  auto summary = WatchPipeline(o).Run(RegistryWith({}, Status::Error("no watches left")));
  ASSERT_FALSE(summary.ok());
  EXPECT_EQ(summary.status().message(), "no watches left");
}

}  // namespace
}  // namespace fathom

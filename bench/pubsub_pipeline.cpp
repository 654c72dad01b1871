// pubsub_pipeline — the baseline of the distributed benchmark (bench/distributed_bench.py): the
// same path as collect → aggregate → subscribe, over plain ZeroMQ with no acknowledgement, no
// store and no CURVE, to show what durability costs. One role per process:
//   collector  — reads one MDT through fathom's Lustre changelog source (the watch pipeline,
//                as `fathom collect` runs it) and PUSHes each batch as a wire Batch frame;
//                the changelog position advances as soon as the batch is handed to ZeroMQ.
//   forwarder  — PULLs from every collector, numbers the events (global ids) and PUBlishes
//                wire Events frames (send high-water mark unlimited: nothing is dropped).
//   subscriber — SUBscribes, checks that ids are contiguous, and prints the same JSON line as
//                latency_subscriber (latency_histogram.h), with "lost" ids.
// Each process runs until SIGINT/SIGTERM, or (subscriber) --count/--idle.
#include <CLI/CLI.hpp>
#include <signal.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>
#include <zmq.hpp>

#include "fathom/pipeline.h"
#include "fathom/sink.h"
#include "fathom/source.h"
#include "latency_histogram.h"
#include "wire/wire_messages.h"

namespace {

using namespace std::chrono_literals;

std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop = true; }

struct Args {
  std::string role;
  std::string device;
  std::string mount;
  std::string changelog_user;
  std::string lustre_library;
  std::string name;
  std::string to;
  std::string listen;
  std::string publish;
  std::string from;
  uint64_t count = 0;
  uint64_t warmup = 0;
  double idle = 5;
  double timeout = 600;
};

// Hands each committed batch to a PUSH socket: "committed" once ZeroMQ has it.
class PushSink final : public fathom::EventSink {
 public:
  PushSink(zmq::context_t& context, const std::string& endpoint, std::string name)
      : socket_(context, zmq::socket_type::push), name_(std::move(name)) {
    socket_.set(zmq::sockopt::sndhwm, 64);
    socket_.connect(endpoint);
  }
  fathom::Result<uint64_t> Position(std::string_view) override { return uint64_t{0}; }
  fathom::Status Commit(std::vector<fathom::Event>& batch,
                        const std::optional<fathom::SourcePosition>& position) override {
    fathom::wire::Batch message;
    message.collector = name_;
    message.from_position = position_;
    position_ = position ? position->position : position_ + batch.size();
    message.to_position = position_;
    message.events = std::move(batch);
    frame_.clear();
    fathom::wire::Encode(message, frame_);
    batch = std::move(message.events);
    while (!stopped_) {
      if (socket_.send(zmq::buffer(frame_), zmq::send_flags::dontwait)) return fathom::Status::Ok();
      zmq::pollitem_t item{socket_.handle(), 0, ZMQ_POLLOUT, 0};
      zmq::poll(&item, 1, 100ms);
    }
    return fathom::Status::Error("stopped");
  }
  void Stop() override { stopped_ = true; }

 private:
  zmq::socket_t socket_;
  std::string name_;
  std::string frame_;
  uint64_t position_ = 0;
  std::atomic<bool> stopped_{false};
};

int RunCollector(const Args& args) {
  zmq::context_t context;
  PushSink sink(context, args.to, args.name);
  fathom::WatchOptions options;
  options.backend = "lustre";
  options.out = nullptr;
  options.sink = &sink;
  std::error_code ec;
  const std::string mount = std::filesystem::canonical(args.mount, ec).string();
  if (ec) {
    std::fprintf(stderr, "pubsub_pipeline: bad --mount %s: %s\n", args.mount.c_str(), ec.message().c_str());
    return 2;
  }
  options.source.recursive = true;
  options.source.roots.push_back(mount);
  options.source.kinds = fathom::kind::kAll;
  auto& settings = options.source.settings;
  settings["lustre.device"] = args.device;
  settings["lustre.mount"] = mount;
  if (!args.changelog_user.empty()) settings["lustre.user"] = args.changelog_user;
  if (!args.lustre_library.empty()) settings["lustre.library"] = args.lustre_library;
  fathom::WatchPipeline pipeline(std::move(options));
  std::thread stopper([&] {
    while (!g_stop) std::this_thread::sleep_for(50ms);
    pipeline.Stop();
  });
  fathom::SourceRegistry registry;
  fathom::RegisterBuiltinSources(registry);
  std::fprintf(stderr, "pubsub_pipeline collector %s: PUSH to %s (no CURVE, no acknowledgements)\n",
               args.name.c_str(), args.to.c_str());
  auto summary = pipeline.Run(registry);
  g_stop = true;
  stopper.join();
  if (!summary.ok() && summary.status().message() != "stopped") {
    std::fprintf(stderr, "pubsub_pipeline collector: %s\n", summary.status().message().c_str());
  }
  return 0;
}

int RunForwarder(const Args& args) {
  zmq::context_t context;
  zmq::socket_t pull(context, zmq::socket_type::pull);
  pull.bind(args.listen);
  zmq::socket_t pub(context, zmq::socket_type::pub);
  pub.set(zmq::sockopt::sndhwm, 0);  // unlimited: a slow subscriber costs memory, not events
  pub.bind(args.publish);
  std::fprintf(stderr, "pubsub_pipeline forwarder: PULL on %s, PUB on %s (no CURVE, no store)\n",
               args.listen.c_str(), args.publish.c_str());
  uint64_t next_id = 1;
  std::string frame;
  zmq::message_t in;
  while (!g_stop) {
    zmq::pollitem_t item{pull.handle(), 0, ZMQ_POLLIN, 0};
    if (zmq::poll(&item, 1, 100ms) <= 0) continue;
    while (pull.recv(in, zmq::recv_flags::dontwait)) {
      auto message = fathom::wire::Decode(std::string_view(static_cast<const char*>(in.data()), in.size()));
      if (!message.ok() || !std::holds_alternative<fathom::wire::Batch>(*message)) {
        std::fprintf(stderr, "pubsub_pipeline forwarder: dropped a frame that is not a Batch\n");
        continue;
      }
      auto& batch = std::get<fathom::wire::Batch>(*message);
      if (batch.events.empty()) continue;
      fathom::wire::Events out;
      out.after_id = next_id - 1;
      for (auto& event : batch.events) event.id = next_id++;
      out.through_id = next_id - 1;
      out.events = std::move(batch.events);
      frame.clear();
      fathom::wire::Encode(out, frame);
      pub.send(zmq::buffer(frame), zmq::send_flags::none);
    }
  }
  std::fprintf(stderr, "pubsub_pipeline forwarder: forwarded %llu events\n",
               static_cast<unsigned long long>(next_id - 1));
  return 0;
}

int RunSubscriber(const Args& args) {
  zmq::context_t context;
  zmq::socket_t sub(context, zmq::socket_type::sub);
  sub.set(zmq::sockopt::rcvhwm, 0);
  sub.set(zmq::sockopt::subscribe, "");
  sub.connect(args.from);
  fathom::bench::LatencyHistogram histogram;
  uint64_t received = 0;
  uint64_t last_id = 0;
  uint64_t lost = 0;
  const auto start = std::chrono::steady_clock::now();
  auto last_event = start;
  const auto idle = std::chrono::duration<double>(args.idle);
  const auto limit = std::chrono::duration<double>(args.timeout);
  zmq::message_t in;
  while (!g_stop && (args.count == 0 || received < args.count)) {
    const auto now = std::chrono::steady_clock::now();
    if (now - start > limit || (received > 0 && now - last_event > idle)) break;
    zmq::pollitem_t item{sub.handle(), 0, ZMQ_POLLIN, 0};
    if (zmq::poll(&item, 1, 100ms) <= 0) continue;
    while (sub.recv(in, zmq::recv_flags::dontwait)) {
      auto message = fathom::wire::Decode(std::string_view(static_cast<const char*>(in.data()), in.size()));
      if (!message.ok() || !std::holds_alternative<fathom::wire::Events>(*message)) continue;
      const auto& events = std::get<fathom::wire::Events>(*message);
      const int64_t at = fathom::NowNs();
      last_event = std::chrono::steady_clock::now();
      if (events.after_id != last_id) lost += events.after_id > last_id ? events.after_id - last_id : 0;
      last_id = events.through_id;
      for (const auto& event : events.events) {
        if (received++ >= args.warmup) histogram.Record(at, event.ts_ns);
      }
    }
  }
  histogram.Report("\"role\":\"subscriber\",\"pipeline\":\"pubsub\",\"curve\":false,\"received\":" +
                   std::to_string(received) + ",\"lost\":" + std::to_string(lost));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  spdlog::set_level(spdlog::level::warn);
  Args args;
  CLI::App app{"Plain ZeroMQ PUB/SUB baseline of the distributed benchmark (no acknowledgements, no store, no CURVE)"};
  app.add_option("role", args.role, "collector | forwarder | subscriber")
      ->required()
      ->check(CLI::IsMember({"collector", "forwarder", "subscriber"}));
  app.add_option("--device", args.device, "collector: the MDT (FSNAME-MDT0000)");
  app.add_option("--mount", args.mount, "collector: the Lustre mount point paths are resolved under");
  app.add_option("--changelog-user", args.changelog_user, "collector: the changelog user (clN)");
  app.add_option("--lustre-library", args.lustre_library, "collector: liblustreapi to load");
  app.add_option("--name", args.name, "collector: its name in Batch frames");
  app.add_option("--to", args.to, "collector: the forwarder's PULL endpoint");
  app.add_option("--listen", args.listen, "forwarder: PULL endpoint to bind");
  app.add_option("--publish", args.publish, "forwarder: PUB endpoint to bind");
  app.add_option("--from", args.from, "subscriber: the forwarder's PUB endpoint");
  app.add_option("-n,--count", args.count, "subscriber: stop after N events (0: on --idle)");
  app.add_option("--warmup", args.warmup, "subscriber: do not time the first N events");
  app.add_option("--idle", args.idle, "subscriber: stop after SECONDS without an event (once events came)");
  app.add_option("--timeout", args.timeout, "subscriber: stop after SECONDS in any case");
  CLI11_PARSE(app, argc, argv);
  struct sigaction action {};
  action.sa_handler = OnSignal;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  if (args.role == "collector") return RunCollector(args);
  if (args.role == "forwarder") return RunForwarder(args);
  return RunSubscriber(args);
}

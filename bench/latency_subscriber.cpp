// latency_subscriber — one consumer of the distributed benchmark (bench/distributed_bench.py):
// subscribes to a `fathom aggregate` through fathom::Client's Subscriber (CURVE keys as for
// `fathom subscribe`), acknowledges each received batch as `fathom subscribe` does, and
// records per event the latency from its creation (ts_ns) to its receipt here. Stops after
// --count events, or --idle seconds without one (once events came), or --timeout; then prints
// one JSON line (latency_histogram.h). Events before --warmup are counted but not timed.
// --trace FILE also writes one line per event: receipt ns, creation ns, source (to see when
// and where the slow ones were); the lines are kept in memory and written once the
// subscriber stops, so that tracing costs the measured run next to nothing.
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "latency_histogram.h"
#include "client/client_keys.h"
#include "fathom/client.h"

namespace {

struct Args {
  std::string from;
  fathom::client::KeyArgs keys;
  uint64_t count = 0;
  uint64_t since = 0;
  uint64_t warmup = 0;
  uint32_t credit = 65536;
  double idle = 5;
  double timeout = 600;
  std::string label = "durable";
  std::string trace;
};

int Run(const Args& args) {
  fathom::SubscribeOptions options;
  options.endpoint = args.from;
  options.since = args.since;
  options.credit = args.credit;
  auto keys = fathom::client::LoadClientKeys(args.keys, options.endpoint);
  if (!keys.ok()) {
    std::fprintf(stderr, "latency_subscriber: %s\n", keys.status().message().c_str());
    return 2;
  }
  options.keys = std::move(keys).value();
  auto subscriber = fathom::Subscriber::Open(options);
  if (!subscriber.ok()) {
    std::fprintf(stderr, "latency_subscriber: %s\n", subscriber.status().message().c_str());
    return 1;
  }
  fathom::bench::LatencyHistogram histogram;
  uint64_t received = 0;
  std::vector<fathom::Event> events;
  std::unique_ptr<FILE, int (*)(FILE*)> trace(nullptr, &std::fclose);
  if (!args.trace.empty()) {
    trace.reset(std::fopen(args.trace.c_str(), "w"));
    if (trace == nullptr) {
      std::fprintf(stderr, "latency_subscriber: cannot write %s: %s\n", args.trace.c_str(),
                   std::strerror(errno));
      return 2;
    }
  }
  struct TraceRow {
    int64_t at;
    int64_t created;
    uint32_t source;
  };
  std::vector<TraceRow> rows;
  std::vector<std::string> sources;
  auto source_index = [&](const std::string& source) {
    for (uint32_t i = 0; i < sources.size(); ++i) {
      if (sources[i] == source) return i;
    }
    sources.push_back(source);
    return static_cast<uint32_t>(sources.size() - 1);
  };
  const auto start = std::chrono::steady_clock::now();
  auto last_event = start;
  const auto idle = std::chrono::duration<double>(args.idle);
  const auto limit = std::chrono::duration<double>(args.timeout);
  while (args.count == 0 || received < args.count) {
    const auto now = std::chrono::steady_clock::now();
    if (now - start > limit || (received > 0 && now - last_event > idle)) break;
    events.clear();
    fathom::Status status = (*subscriber)->Next(events, std::chrono::milliseconds(200));
    if (!status.ok()) {
      std::fprintf(stderr, "latency_subscriber: %s\n", status.message().c_str());
      return 1;
    }
    if (events.empty()) continue;
    const int64_t at = fathom::NowNs();
    last_event = std::chrono::steady_clock::now();
    for (const auto& event : events) {
      if (received++ >= args.warmup) histogram.Record(at, event.ts_ns);
    }
    if (trace != nullptr) {
      for (const auto& event : events) rows.push_back({at, event.ts_ns, source_index(event.source)});
    }
    status = (*subscriber)->Acknowledge(events.back().id);
    if (!status.ok()) {
      std::fprintf(stderr, "latency_subscriber: %s\n", status.message().c_str());
      return 1;
    }
  }
  (*subscriber)->Stop();
  for (const TraceRow& row : rows) {
    std::fprintf(trace.get(), "%lld %lld %s\n", static_cast<long long>(row.at),
                 static_cast<long long>(row.created), sources[row.source].c_str());
  }
  histogram.Report("\"role\":\"subscriber\",\"pipeline\":\"" + args.label + "\",\"received\":" +
                   std::to_string(received));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  spdlog::set_level(spdlog::level::warn);
  Args args;
  CLI::App app{"Consumer of the distributed benchmark: events/s and creation-to-receipt latency"};
  app.add_option("--from", args.from, "The aggregator endpoint (tcp://HOST:PORT)")->required();
  app.add_option("--key", args.keys.key_file, "This client's key file (BASE.key)");
  app.add_option("--server-key", args.keys.server_key, "The aggregator's public key (Z85 or .pub file)");
  app.add_flag("--insecure", args.keys.insecure, "Plain ZeroMQ without CURVE");
  app.add_option("-n,--count", args.count, "Stop after N events (0: on --idle)");
  app.add_option("--since", args.since, "Deliver ids after this one (default 0: everything)");
  app.add_option("--warmup", args.warmup, "Do not time the first N events");
  app.add_option("--credit", args.credit, "Events the aggregator may send ahead of acknowledgements");
  app.add_option("--idle", args.idle, "Stop after SECONDS without an event (once events came)");
  app.add_option("--timeout", args.timeout, "Stop after SECONDS in any case");
  app.add_option("--trace", args.trace, "Write one line per event: receipt ns, creation ns, source");
  app.add_option("--label", args.label, "The pipeline name in the output");
  CLI11_PARSE(app, argc, argv);
  return Run(args);
}

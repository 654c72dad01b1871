// `fathom collect` — watch a local tree or a Lustre MDT and send its events to an aggregator
// (or a NATS bus), each batch acknowledged after the far end committed it.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/signal_waiter.h"
#include "cli/source_args.h"
#include "client/client_keys.h"
#include "fathom/client.h"
#include "fathom/pipeline.h"

namespace fathom::cli {
namespace {

// How long a stopping collector may still spend committing what it has read.
constexpr auto kStopGrace = std::chrono::seconds(5);

struct CollectArgs {
  SourceArgs source;
  std::string to;
  std::string bus;
  std::string name;
  client::KeyArgs keys;
  BusOptions bus_options;
  std::string bus_max_age;
  uint64_t max_count = 0;
  double timeout = 0;
};

// Calls `expire` once `limit` has passed (never for 0) unless destroyed before: -t must end a
// collector also while the far end is unreachable, when the pipeline waits for its answer.
class TimeLimit {
 public:
  TimeLimit(std::chrono::milliseconds limit, std::function<void()> expire) {
    if (limit.count() <= 0) return;
    thread_ = std::thread([this, limit, expire = std::move(expire)] {
      std::unique_lock lock(mu_);
      if (cv_.wait_for(lock, limit, [this] { return done_; })) return;
      expired_ = true;
      lock.unlock();
      expire();
    });
  }
  ~TimeLimit() {
    {
      std::lock_guard lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  bool expired() const {
    std::lock_guard lock(mu_);
    return expired_;
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;     // guarded by mu_
  bool expired_ = false;  // guarded by mu_
  std::thread thread_;
};

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "localhost";
  return name;
}

int RunCollect(const CollectArgs& args) {
  if (args.to.empty() == args.bus.empty()) {
    return Fail("collect", "give where to send events: --to tcp://HOST:PORT (an aggregator) or --bus nats://HOST:PORT",
                kExitUsage);
  }
  WatchOptions options;
  Status applied = ApplySourceArgs(args.source, options);
  if (!applied.ok()) return Fail("collect", applied.message(), kExitUsage);
  options.out = nullptr;
  options.max_count = args.max_count;

  PublisherOptions publisher_options;
  publisher_options.endpoint = args.to.empty() ? args.bus : args.to;
  publisher_options.collector = args.name.empty() ? HostName() + ":" + DescribeSource(options) : args.name;
  publisher_options.bus = args.bus_options;
  if (!args.bus_max_age.empty()) {
    auto age = ParseDuration(args.bus_max_age);
    if (!age.ok()) return Fail("collect", "bad --max-age: " + age.status().message(), kExitUsage);
    publisher_options.bus.max_age = age.value();
  }
  auto keys = client::LoadClientKeys(args.keys, publisher_options.endpoint);
  if (!keys.ok()) return Fail("collect", keys.status().message(), kExitUsage);
  publisher_options.keys = std::move(keys.value());
  auto publisher = OpenPublisher(publisher_options);
  if (!publisher.ok()) return Fail("collect", publisher.status().message(), kExitUsage);

  options.sink = publisher->get();
  options.stop_grace = kStopGrace;
  WatchPipeline pipeline(std::move(options));
  std::atomic<bool> stopping{false};
  SignalWaiter signals([&](int) {
    stopping = true;
    pipeline.Stop();
  });
  // Like SIGTERM: what was read gets kStopGrace to be committed.
  TimeLimit time_limit(std::chrono::milliseconds(static_cast<int64_t>(args.timeout * 1000)), [&] { pipeline.Stop(); });
  spdlog::info("collecting as '{}' into {}", publisher_options.collector, publisher_options.endpoint);
  SourceRegistry registry;
  RegisterBuiltinSources(registry);
  auto summary = pipeline.Run(registry);
  if (!summary.ok()) {
    if (time_limit.expired() && !stopping) {
      return Fail("collect",
                  "the time limit (-t " + TimeLimitText(args.timeout) + ") passed before " +
                      publisher_options.endpoint + " took every event (" + summary.status().message() +
                      "): check the address and that it is running",
                  kExitFailure);
    }
    if (stopping) {
      spdlog::info("stopped: {}; a restarted collector resumes from the position the far end holds",
                   summary.status().message());
      return kExitOk;
    }
    return Fail("collect", summary.status().message(), kExitFailure);
  }
  LogWatchSummary(summary.value(), "committed");
  return kExitOk;
}

}  // namespace

CommandRunner AddCollectCommand(CLI::App& app) {
  auto args = std::make_shared<CollectArgs>();
  CLI::App* cmd = app.add_subcommand(
      "collect",
      "Watch a directory tree or a Lustre MDT and send its events to `fathom aggregate` (or a NATS "
      "bus).\nEach batch is acknowledged after the far end committed it; a Lustre changelog is "
      "cleared only then. While the far end is unreachable the collector retries and skips nothing.");
  AddSourceOptions(*cmd, args->source);
  cmd->add_option("--to", args->to, "The aggregator: tcp://HOST:PORT, ipc:///PATH, or nats://HOST:PORT")
      ->type_name("ENDPOINT");
  cmd->add_option("--bus", args->bus, "A NATS JetStream bus instead of an aggregator: nats://HOST:PORT[,...]")
      ->type_name("URL");
  cmd->add_option("--name", args->name,
                  "Collector name; the aggregator keeps positions per name (default: HOST:SOURCE, "
                  "SOURCE being the Lustre device or the first watched directory)")
      ->type_name("NAME");
  AddConnectionOptions(*cmd, args->keys, args->bus_options, "collector");
  cmd->add_option("--max-age", args->bus_max_age,
                  "Stream retention when the collector creates the stream: MaxAge, e.g. 30d (nats:// only)")
      ->type_name("DURATION");
  cmd->add_option("--max-bytes", args->bus_options.max_bytes,
                  "Stream retention when the collector creates the stream: MaxBytes (nats:// only)")
      ->check(WholeNumber())
      ->type_name("BYTES");
  AddLimitOptions(*cmd, args->max_count, args->timeout);
  return [args] { return RunCollect(*args); };
}

}  // namespace fathom::cli

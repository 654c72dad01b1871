// `fathom subscribe` — print the events of an aggregator (or a NATS bus): what was missed since
// an id or since a durable name's last acknowledgement, then live, each id once and in order.
#include <spdlog/spdlog.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/signal_waiter.h"
#include "client/client_keys.h"
#include "fathom/client.h"

namespace fathom::cli {
namespace {

struct SubscribeArgs {
  std::string from;
  std::string bus;
  std::optional<uint64_t> since;
  std::string name;
  std::string path;
  bool recursive = false;
  std::vector<std::string> events;
  Format format = Format::kInotify;
  uint64_t count = 0;
  double timeout = 0;
  client::KeyArgs keys;
  BusOptions bus_options;
};

Result<SubscribeOptions> MakeOptions(const SubscribeArgs& a) {
  if (a.from.empty() == a.bus.empty()) {
    return Status::Error("give where to read events: --from tcp://HOST:PORT (an aggregator) or --bus nats://HOST:PORT");
  }
  SubscribeOptions o;
  o.endpoint = a.from.empty() ? a.bus : a.from;
  o.since = a.since;
  o.name = a.name;
  o.recursive = a.recursive || a.path.empty();  // without --path: everything
  o.bus = a.bus_options;
  if (!a.path.empty()) {
    if (a.path.front() != '/') {
      return Status::Error("--path " + a.path + " must be absolute: paths are those of the watched machine");
    }
    std::string prefix = std::filesystem::path(a.path).lexically_normal().string();
    while (prefix.size() > 1 && prefix.back() == '/') prefix.pop_back();
    o.path_prefix = prefix;
  }
  if (!a.events.empty()) {
    uint32_t kinds = 0;
    for (const auto& list : a.events) {
      std::stringstream ss(list);
      std::string name;
      while (std::getline(ss, name, ',')) {
        auto k = ParseKind(name);
        if (!k) {
          return Status::Error("unknown event kind '" + name + "' (known: " + KindNames(kind::kAll) + ", CLOSE, MOVE)");
        }
        kinds |= *k;
      }
    }
    o.kinds = kinds;
  }
  FATHOM_ASSIGN_OR_RETURN(o.keys, client::LoadClientKeys(a.keys, o.endpoint));
  return o;
}

// Prints `events` (at most `room` of them when room > 0); returns how many were printed.
size_t Print(const std::vector<Event>& events, uint64_t room, Formatter& formatter, std::string& text) {
  const size_t n = room > 0 ? std::min<uint64_t>(room, events.size()) : events.size();
  text.clear();
  for (size_t i = 0; i < n; ++i) formatter.Write(events[i], text);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  return n;
}

int RunSubscribe(const SubscribeArgs& args) {
  auto options = MakeOptions(args);
  if (!options.ok()) return Fail("subscribe", options.status().message(), kExitUsage);
  auto subscriber = Subscriber::Open(options.value());
  if (!subscriber.ok()) return Fail("subscribe", subscriber.status().message(), kExitUsage);
  std::atomic<bool> stopping{false};
  SignalWaiter signals([&](int) {
    stopping = true;
    (*subscriber)->Stop();
  });

  auto formatter = MakeFormatter(args.format);
  const auto start = std::chrono::steady_clock::now();
  const auto limit = std::chrono::milliseconds(static_cast<int64_t>(args.timeout * 1000));
  uint64_t printed = 0;
  std::string text;
  std::vector<Event> events;
  Status status;
  bool timed_out = false;
  while (args.count == 0 || printed < args.count) {
    auto wait = std::chrono::milliseconds(1000);
    if (limit.count() > 0) {
      const auto left = limit - std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
      timed_out = left.count() <= 0;
      if (timed_out) break;
      wait = std::min(wait, left);
    }
    events.clear();
    status = (*subscriber)->Next(events, wait);
    if (!status.ok()) break;
    if (events.empty()) continue;
    const size_t n = Print(events, args.count > 0 ? args.count - printed : 0, *formatter, text);
    printed += n;
    status = (*subscriber)->Acknowledge(events[n - 1].id);
    if (!status.ok()) break;
  }
  text.clear();
  formatter->Flush(text);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  if (!status.ok() && !stopping) return Fail("subscribe", status.message(), kExitFailure);
  if (timed_out && !(*subscriber)->answered()) {
    return Fail("subscribe",
                (args.bus.empty() ? "the aggregator at " + args.from : "the NATS bus at " + args.bus) +
                    " did not answer within the time limit (-t " + TimeLimitText(args.timeout) +
                    "): check the address and that it is running",
                kExitFailure);
  }
  spdlog::info("stopped: {} events printed", printed);
  return kExitOk;
}

}  // namespace

CommandRunner AddSubscribeCommand(CLI::App& app) {
  auto args = std::make_shared<SubscribeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "subscribe",
      "Print the events an aggregator (or a NATS bus) holds and receives: every matching id once, in "
      "order,\nacross restarts of either side. Each event is acknowledged once printed.");
  cmd->add_option("--from", args->from, "The aggregator: tcp://HOST:PORT, ipc:///PATH, or nats://HOST:PORT")
      ->type_name("ENDPOINT");
  cmd->add_option("--bus", args->bus, "A NATS JetStream bus instead of an aggregator: nats://HOST:PORT[,...]")
      ->type_name("URL");
  cmd->add_option("--since", args->since,
                  "Deliver the events after this id (0: all that are held). Default: after the "
                  "durable name's last acknowledged id (all that are held for a new name), or "
                  "only new events without a name")
      ->type_name("ID");
  cmd->add_option("--name", args->name,
                  "Durable consumer name: the far end keeps the acknowledged id, and the next run "
                  "with this name continues after it")
      ->type_name("NAME");
  cmd->add_option("--path", args->path,
                  "Only this path and its direct entries (with -r: everything under it)")
      ->type_name("PREFIX");
  cmd->add_flag("-r,--recursive", args->recursive, "With --path: the whole subtree under PREFIX");
  cmd->add_option("-e,--event", args->events,
                  "Deliver only these kinds (repeatable or comma-separated), as for `fathom watch`. "
                  "Default: every kind collected. OVERFLOW is always delivered")
      ->type_name("KIND");
  AddFormatOption(*cmd, args->format, "inotify");
  AddLimitOptions(*cmd, args->count, args->timeout);
  AddConnectionOptions(*cmd, args->keys, args->bus_options, "consumer");
  return [args] { return RunSubscribe(*args); };
}

}  // namespace fathom::cli

// rules_benchmark — what event-driven rules cost, beside the tools people run for the job:
//
//   journal: --events CLOSE_WRITE events (default 10,000) already in a store, through `fathom
//            rules run --until-idle` with a trivial action (rules_action_recorder): a command per
//            event, a webhook per event to a loopback HTTP server, and both in batches of up to
//            100 events: deliveries/s and events/s, every event's action checked.
//   peers:   --files files (default 5,000) written and closed in a watched directory, each to be
//            handed to the trivial command: `fathom watch` + `fathom rules run` beside
//            `inotifywait -m -r -e close_write | xargs -n 1 -P 4`, both running 4 actions at once.
//            steady: nothing fails; seconds from the first file closed to the last action, and
//            actions/s. restart: the side that runs the actions (the rules' runner; the
//            inotifywait | xargs pipeline) is SIGKILLed after half the files and started again
//            after a quarter more: files whose action never ran (lost), and ran twice.
//   latency: files closed at each of --rates (default 1000,10000 per second) for --seconds
//            (default 5) in a directory that `fathom watch` writes to a store, `fathom rules run`
//            following it: event-to-action latency p50/p99 (from the file's close to the action's
//            start) for a command and a webhook, per event and in batches (up to 100 events
//            within 10 ms).
//
// Usage: rules_benchmark [--events N] [--files N] [--rates R,R] [--seconds S] [--work DIR]
//                        [--fathom PATH] [--parts journal,peers,latency]
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "fathom/store.h"
#include "latency_histogram.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Config {
  size_t events = 10000;
  size_t files = 5000;
  std::vector<int> rates = {1000, 10000};
  int seconds = 5;
  std::string work = "/var/tmp/fathom-rules-bench";
  std::string fathom = FATHOM_BINARY;
  std::string recorder = FATHOM_BUILD_DIR "/rules_action_recorder";
  std::set<std::string> parts = {"journal", "peers", "latency"};
};

bool g_failed = false;

int64_t WallNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

[[noreturn]] void Die(const std::string& why) {
  std::fprintf(stderr, "rules_benchmark: %s\n", why.c_str());
  std::exit(1);
}

// Starts argv in a process group of its own, stdout and stderr to `log` (appended).
pid_t Start(const std::vector<std::string>& argv, const std::string& log) {
  const pid_t pid = ::fork();
  if (pid < 0) Die("fork failed");
  if (pid == 0) {
    ::setpgid(0, 0);
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    _exit(127);
  }
  ::setpgid(pid, pid);
  return pid;
}

int Stop(pid_t pid, int sig) {
  ::kill(-pid, sig);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

int RunToEnd(const std::vector<std::string>& argv, const std::string& log) {
  int status = 0;
  ::waitpid(Start(argv, log), &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The trivial action's log: path -> the times (ns) its action ran.
std::map<std::string, std::vector<int64_t>> ReadActions(const std::string& log) {
  std::map<std::string, std::vector<int64_t>> runs;
  std::ifstream in(log);
  for (std::string line; std::getline(in, line);) {
    const size_t space = line.find(' ');
    if (space == std::string::npos) continue;
    runs[line.substr(space + 1)].push_back(std::stoll(line.substr(0, space)));
  }
  return runs;
}

size_t LineCount(const std::string& path) {
  std::ifstream in(path);
  return static_cast<size_t>(std::count(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>(), '\n'));
}

// Waits until `log` holds `lines` lines, or has not grown for `quiet`; the lines seen.
size_t AwaitLines(const std::string& log, size_t lines, std::chrono::seconds quiet, std::chrono::seconds cap) {
  const auto start = Clock::now();
  size_t seen = 0;
  auto grew = Clock::now();
  while (Clock::now() - start < cap) {
    const size_t now = LineCount(log);
    if (now >= lines) return now;
    if (now != seen) {
      seen = now;
      grew = Clock::now();
    } else if (Clock::now() - grew > quiet) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return LineCount(log);
}

// A loopback HTTP server that records, per event path of each POSTed delivery, when it came.
class Receiver {
 public:
  Receiver() {
    server_.Post("/hook", [this](const httplib::Request& req, httplib::Response& res) {
      const int64_t now = WallNs();
      const auto doc = nlohmann::json::parse(req.body, nullptr, false);
      std::lock_guard<std::mutex> lock(mu_);
      if (!doc.is_discarded()) {
        for (const auto& e : doc["events"]) arrivals_[e["path"].get<std::string>()].push_back(now);
      }
      res.status = 204;
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~Receiver() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hook"; }
  std::map<std::string, std::vector<int64_t>> arrivals() {
    std::lock_guard<std::mutex> lock(mu_);
    return arrivals_;
  }
  size_t paths() {
    std::lock_guard<std::mutex> lock(mu_);
    return arrivals_.size();
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::map<std::string, std::vector<int64_t>> arrivals_;
};

enum class Action { kCommand, kBatchedCommand, kWebhook, kBatchedWebhook };

std::string ActionName(Action a) {
  switch (a) {
    case Action::kCommand: return "command per event";
    case Action::kBatchedCommand: return "command, batches <= 100";
    case Action::kWebhook: return "webhook per event";
    case Action::kBatchedWebhook: return "webhook, batches <= 100";
  }
  return "";
}

// A rules file: one rule on CLOSE_WRITE under `dir` with the trivial action.
void WriteRules(const std::string& file, const std::string& outbox, const std::string& dir, Action action,
                const Config& c, const std::string& log, const std::string& url) {
  std::ofstream out(file);
  out << "outbox: " << outbox << "\nconcurrency: 4\nendpoint_concurrency: 4\nrules:\n"
      << "  - name: act\n    kinds: [CLOSE_WRITE]\n    path: \"" << dir << "/**\"\n    concurrency: 4\n";
  switch (action) {
    case Action::kCommand:
      out << "    action: {command: [" << c.recorder << ", " << log << ", '{path}'], allow_root: true}\n";
      break;
    case Action::kBatchedCommand:
      out << "    batch: {max_events: 100, max_wait: 10ms}\n"
          << "    action: {command: [" << c.recorder << ", " << log << ", '{paths}'], allow_root: true}\n";
      break;
    case Action::kWebhook:
    case Action::kBatchedWebhook: {
      if (action == Action::kBatchedWebhook) out << "    batch: {max_events: 100, max_wait: 10ms}\n";
      const std::string secret = file + ".secret";
      std::ofstream(secret) << "bench-secret-0123456789";
      ::chmod(secret.c_str(), 0600);
      out << "    action: {webhook: \"" << url << "\", secret_file: " << secret << ", allow_loopback: true}\n";
      break;
    }
  }
}

void Fresh(const std::string& dir) {
  fs::remove_all(dir);
  fs::create_directories(dir);
}

// --- journal ---------------------------------------------------------------------------------

void Journal(const Config& c) {
  const std::string base = c.work + "/journal";
  Fresh(base);
  const std::string store = base + "/events.db";
  const std::string dir = "/data/in";
  {
    fathom::StoreOptions options;
    options.path = store;
    options.sync_full = false;
    auto opened = fathom::EventStore::Open(options);
    if (!opened.ok()) Die(opened.status().message());
    std::vector<fathom::Event> batch;
    for (size_t i = 0; i < c.events; ++i) {
      fathom::Event e;
      e.ts_ns = WallNs();
      e.mask = fathom::kind::kCloseWrite;
      e.root = "/data";
      e.path = dir + "/f" + std::to_string(i);
      e.source = "inotify";
      batch.push_back(std::move(e));
    }
    if (!(*opened)->Append(batch).ok()) Die("cannot write the events");
  }
  std::printf("\n== journal: %zu events in a store, `fathom rules run --until-idle`, 4 actions at once ==\n", c.events);
  std::printf("%-26s %10s %12s %12s %10s\n", "action", "seconds", "deliveries", "deliveries/s", "events/s");
  for (Action a : {Action::kCommand, Action::kWebhook, Action::kBatchedCommand, Action::kBatchedWebhook}) {
    const std::string run = base + "/" + std::to_string(static_cast<int>(a));
    Fresh(run);
    const std::string log = run + "/actions.log", rules = run + "/rules.yaml";
    Receiver receiver;
    WriteRules(rules, run + "/rules.db", dir, a, c, log, receiver.url());
    const auto start = Clock::now();
    const int rc = RunToEnd({c.fathom, "rules", "run", "--config", rules, "--store", store, "--until-idle"},
                            run + "/runner.log");
    const double s = Seconds(Clock::now() - start);
    const bool hook = a == Action::kWebhook || a == Action::kBatchedWebhook;
    const size_t done = hook ? receiver.paths() : ReadActions(log).size();
    const bool batched = a == Action::kBatchedCommand || a == Action::kBatchedWebhook;
    const size_t deliveries = batched ? (c.events + 99) / 100 : c.events;
    if (rc != 0 || done != c.events) {
      std::printf("  %s: exit %d, %zu of %zu events acted on (see %s/runner.log)\n", ActionName(a).c_str(), rc, done,
                  c.events, run.c_str());
      g_failed = true;
    }
    std::printf("%-26s %10.2f %12zu %12.0f %10.0f\n", ActionName(a).c_str(), s, deliveries, deliveries / s,
                c.events / s);
  }
}

// --- peers -----------------------------------------------------------------------------------

// Writes and closes files `from`..`to`-1 in `dir`; the close times (ns) into `closed`.
void WriteFiles(const std::string& dir, size_t from, size_t to, std::vector<int64_t>& closed) {
  for (size_t i = from; i < to; ++i) {
    const std::string path = dir + "/f" + std::to_string(i);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ::write(fd, "x", 1) != 1) Die("cannot write " + path);
    ::close(fd);
    closed[i] = WallNs();
  }
}

struct PeerResult {
  double seconds = 0;
  size_t acted = 0, lost = 0, twice = 0;
};

// One run of a monitor-and-act pipeline over `c.files` files; `restart` kills its action side
// after half the files and starts it again after a quarter more.
template <typename StartActions, typename StopActions>
PeerResult PeerRun(const Config& c, const std::string& dir, const std::string& log, bool restart,
                   StartActions start_actions, StopActions stop_actions) {
  std::vector<int64_t> closed(c.files);
  start_actions();
  const size_t half = c.files / 2, three_quarters = c.files * 3 / 4;
  if (restart) {
    WriteFiles(dir, 0, half, closed);
    AwaitLines(log, half, std::chrono::seconds(3), std::chrono::seconds(120));
    stop_actions(SIGKILL);
    WriteFiles(dir, half, three_quarters, closed);
    start_actions();
    WriteFiles(dir, three_quarters, c.files, closed);
  } else {
    WriteFiles(dir, 0, c.files, closed);
  }
  AwaitLines(log, c.files, std::chrono::seconds(3), std::chrono::seconds(300));
  stop_actions(SIGTERM);
  PeerResult r;
  int64_t last = closed.front();
  const auto runs = ReadActions(log);
  for (size_t i = 0; i < c.files; ++i) {
    auto it = runs.find(dir + "/f" + std::to_string(i));
    if (it == runs.end()) {
      ++r.lost;
      continue;
    }
    ++r.acted;
    if (it->second.size() > 1) ++r.twice;
    last = std::max(last, *std::max_element(it->second.begin(), it->second.end()));
  }
  r.seconds = static_cast<double>(last - closed.front()) / 1e9;
  return r;
}

void Peers(const Config& c) {
  std::printf("\n== peers: %zu files closed in a watched directory, each handed to a trivial command, 4 at once ==\n",
              c.files);
  std::printf("%-34s %-8s %9s %10s %8s %8s %8s\n", "tool", "run", "seconds", "actions/s", "acted", "lost", "twice");
  std::map<std::string, double> steady;
  for (const std::string tool : {"fathom watch + rules run", "inotifywait | xargs -P 4"}) {
    const bool is_fathom = tool.rfind("fathom", 0) == 0;
    if (!is_fathom && ::system("command -v inotifywait >/dev/null 2>&1") != 0) {
      std::printf("%-34s (not installed: apt-get install inotify-tools)\n", tool.c_str());
      continue;
    }
    for (bool restart : {false, true}) {
      const std::string base = c.work + "/peers/" + (is_fathom ? "fathom" : "inotifywait") + (restart ? "-r" : "-s");
      Fresh(base + "/in");
      const std::string dir = base + "/in", log = base + "/actions.log", store = base + "/events.db";
      const std::string rules = base + "/rules.yaml";
      WriteRules(rules, base + "/rules.db", dir, Action::kCommand, c, log, "");
      pid_t watch = 0, actions = 0;
      if (is_fathom) {
        watch = Start({c.fathom, "watch", "-r", dir, "--store", store, "-q"}, base + "/watch.log");
        std::this_thread::sleep_for(std::chrono::seconds(2));
      }
      auto start_actions = [&] {
        if (is_fathom) {
          actions = Start({c.fathom, "rules", "run", "--config", rules, "--store", store}, base + "/runner.log");
        } else {
          const std::string pipeline = "inotifywait -m -r -q -e close_write --format '%w%f' '" + dir +
                                       "' | xargs -d '\\n' -n 1 -P 4 " + c.recorder + " " + log;
          actions = Start({"/bin/sh", "-c", pipeline}, base + "/pipeline.log");
          std::this_thread::sleep_for(std::chrono::seconds(1));  // watches established
        }
      };
      auto stop_actions = [&](int sig) { Stop(actions, sig); };
      const PeerResult r = PeerRun(c, dir, log, restart, start_actions, stop_actions);
      if (watch != 0) Stop(watch, SIGINT);
      const char* run = restart ? "restart" : "steady";
      std::printf("%-34s %-8s %9.2f %10.0f %8zu %8zu %8zu\n", tool.c_str(), run, r.seconds,
                  r.seconds > 0 ? r.acted / r.seconds : 0, r.acted, r.lost, r.twice);
      if (!restart) steady[is_fathom ? "fathom" : "peer"] = r.seconds;
      if (is_fathom && r.lost != 0) g_failed = true;
    }
  }
  if (steady.count("fathom") != 0 && steady.count("peer") != 0 && steady["fathom"] > 0) {
    std::printf("steady throughput, fathom / inotifywait|xargs: %.2fx\n", steady["peer"] / steady["fathom"]);
  }
}

// --- latency ---------------------------------------------------------------------------------

void Latency(const Config& c) {
  std::printf("\n== latency: files closed at a set rate for %d s under `fathom watch`; event-to-action ==\n",
              c.seconds);
  std::printf("%-26s %8s %9s %9s %9s %9s %9s\n", "action", "rate/s", "files", "acted", "p50 ms", "p99 ms", "max ms");
  for (int rate : c.rates) {
    for (Action a : {Action::kCommand, Action::kBatchedCommand, Action::kWebhook, Action::kBatchedWebhook}) {
      const std::string base = c.work + "/latency/" + std::to_string(rate) + "-" + std::to_string(static_cast<int>(a));
      Fresh(base + "/in");
      const std::string dir = base + "/in", log = base + "/actions.log", store = base + "/events.db";
      const std::string rules = base + "/rules.yaml";
      Receiver receiver;
      WriteRules(rules, base + "/rules.db", dir, a, c, log, receiver.url());
      const pid_t watch = Start({c.fathom, "watch", "-r", dir, "--store", store, "-q"}, base + "/watch.log");
      std::this_thread::sleep_for(std::chrono::seconds(2));
      const pid_t runner = Start({c.fathom, "rules", "run", "--config", rules, "--store", store}, base + "/runner.log");
      std::this_thread::sleep_for(std::chrono::seconds(1));
      const size_t files = static_cast<size_t>(rate) * static_cast<size_t>(c.seconds);
      std::vector<int64_t> closed(files);
      // Paced: every millisecond, the files due by then.
      const auto start = Clock::now();
      size_t written = 0;
      while (written < files) {
        const double elapsed = Seconds(Clock::now() - start);
        const size_t due = std::min(files, static_cast<size_t>(elapsed * rate) + 1);
        WriteFiles(dir, written, due, closed);
        written = due;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      const auto deadline = Clock::now() + std::chrono::seconds(60);
      const bool hook = a == Action::kWebhook || a == Action::kBatchedWebhook;
      auto acted = [&] { return hook ? receiver.paths() : ReadActions(log).size(); };
      while (acted() < files && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      Stop(runner, SIGTERM);
      Stop(watch, SIGINT);
      const auto runs = hook ? receiver.arrivals() : ReadActions(log);
      fathom::bench::LatencyHistogram h;
      for (size_t i = 0; i < files; ++i) {
        auto it = runs.find(dir + "/f" + std::to_string(i));
        if (it != runs.end()) h.Record(*std::min_element(it->second.begin(), it->second.end()), closed[i]);
      }
      if (h.count() != files) g_failed = true;
      std::printf("%-26s %8d %9zu %9llu %9.1f %9.1f %9.1f\n", ActionName(a).c_str(), rate, files,
                  static_cast<unsigned long long>(h.count()), h.Percentile(0.5) / 1e6, h.Percentile(0.99) / 1e6,
                  h.Percentile(1.0) / 1e6);
    }
  }
}

std::vector<std::string> Split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  Config c;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Die(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--events") {
      c.events = std::stoul(value());
    } else if (arg == "--files") {
      c.files = std::stoul(value());
    } else if (arg == "--rates") {
      c.rates.clear();
      for (const std::string& r : Split(value())) c.rates.push_back(std::stoi(r));
    } else if (arg == "--seconds") {
      c.seconds = std::stoi(value());
    } else if (arg == "--work") {
      c.work = value();
    } else if (arg == "--fathom") {
      c.fathom = value();
    } else if (arg == "--parts") {
      const auto parts = Split(value());
      c.parts = {parts.begin(), parts.end()};
    } else {
      std::fprintf(stderr,
                   "usage: rules_benchmark [--events N] [--files N] [--rates R,R] [--seconds S] [--work DIR] "
                   "[--fathom PATH] [--parts journal,peers,latency]\n");
      return 2;
    }
  }
  std::printf("rules_benchmark: fathom %s, work in %s, %u CPUs\n", c.fathom.c_str(), c.work.c_str(),
              std::thread::hardware_concurrency());
  if (c.parts.count("journal") != 0) Journal(c);
  if (c.parts.count("peers") != 0) Peers(c);
  if (c.parts.count("latency") != 0) Latency(c);
  if (!g_failed && getenv("FATHOM_BENCH_KEEP") == nullptr) fs::remove_all(c.work);
  return g_failed ? 1 : 0;
}

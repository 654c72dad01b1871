// `fathom rules run` at full size, through the binary, on real stores, real commands and a real
// HTTP server on loopback (cpp-httplib):
//   - 100,000 events through a command rule and a webhook rule while the runner is SIGKILLed
//     at random 20 times and started again: every event reached both actions at least once,
//     a repeat carries the same delivery id with the same events, none is missing; hostile
//     file names among them arrive byte for byte;
//   - a webhook endpoint that refuses connections, then answers 503, then 429 with
//     Retry-After: the deliveries wait (Retry-After honoured) and all succeed once it answers
//     2xx; an endpoint that answers 404 ends dead-lettered and succeeds when replayed;
//   - a burst of 100,000 matching events with a slow action (an endpoint that holds each
//     request a second): the runner's memory stays bounded, it stops reading (the cursor's lag
//     shows in `rules status`), and once the endpoint is fast again every event is delivered,
//     each delivery once.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/webhook_signature.h"
#include "fathom/store.h"
#include "support/fs_ops.h"
#include "support/http_receiver.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// The NUL-separated fields of `text`.
std::vector<std::string> Fields(const std::string& text) {
  std::vector<std::string> out;
  size_t from = 0;
  for (size_t at = text.find('\0'); at != std::string::npos; at = text.find('\0', from)) {
    out.push_back(text.substr(from, at - from));
    from = at + 1;
  }
  return out;
}

// A process's memory high-water mark in KiB (VmHWM), 0 when it cannot be read.
long PeakRssKb(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  }
  return 0;
}

// One row of `rules status --csv`: pending, running, waiting, succeeded, dead, retried.
struct RuleRow {
  uint64_t pending = 0, running = 0, waiting = 0, succeeded = 0, dead = 0, retried = 0;
};

class RulesScaleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = dir_ / "events.db";
    outbox_ = dir_ / "rules.db";
    rules_ = dir_ / "rules.yaml";
    runs_ = dir_ / "runs";
    fs::create_directories(runs_);
    // The command: one file per run, written whole then renamed into place, holding the
    // delivery id, the attempt, the number of paths and the paths, NUL-separated.
    recorder_ = dir_ / "record.sh";
    std::ofstream(recorder_) << "#!/bin/sh\n"
                             << "f=" << runs_ << "/$FATHOM_DELIVERY_ID.$FATHOM_ATTEMPT\n"
                             << "{ printf '%s\\0%s\\0%s\\0' \"$FATHOM_DELIVERY_ID\" \"$FATHOM_ATTEMPT\" \"$#\";"
                             << " printf '%s\\0' \"$@\"; } > \"$f.tmp\" && mv \"$f.tmp\" \"$f\"\n";
    chmod(recorder_.c_str(), 0755);
    secret_ = dir_ / "hook.secret";
    std::ofstream(secret_) << "whsec_" << "c2NhbGUtdGVzdC1zZWNyZXQ=";
    chmod(secret_.c_str(), 0600);
  }

  // A webhook action to `url`, signed with the test's secret, loopback allowed.
  std::string Webhook(const std::string& url) const {
    return "{webhook: \"" + url + "\", secret_file: " + secret_ + ", allow_loopback: true}";
  }

  std::string Raw() const { return dir_ / "lab/raw"; }

  // The path of matching event i: mostly plain, every 997th a hostile name.
  std::string PathOf(size_t i) const {
    static const std::vector<std::string> hostile = {
        "a b.h5", "q'uote\".h5", "$(touch pwned).h5", "new\nline.h5", "-rf.h5", "semi;colon|pipe&.h5", "\xff\xfe.h5"};
    if (i % 997 == 0) return Raw() + "/" + std::to_string(i) + "-" + hostile[(i / 997) % hostile.size()];
    return Raw() + "/d" + std::to_string(i % 100) + "/f" + std::to_string(i) + ".h5";
  }

  // `n` CLOSE_WRITE events of PathOf(0..n-1), one millisecond apart, each followed by a
  // MODIFY elsewhere (no rule's).
  void WriteEvents(size_t n) {
    StoreOptions options;
    options.path = store_;
    options.sync_full = false;
    auto store = EventStore::Open(options);
    ASSERT_TRUE(store.ok()) << store.status().message();
    std::vector<Event> batch;
    const int64_t start = NowNs() - static_cast<int64_t>(n) * 1'000'000;
    for (size_t i = 0; i < n; ++i) {
      Event e;
      e.ts_ns = start + static_cast<int64_t>(i) * 1'000'000;
      e.mask = kind::kCloseWrite;
      e.root = dir_.path();
      e.path = PathOf(i);
      e.source = "inotify";
      batch.push_back(e);
      e.mask = kind::kModify;
      e.path = dir_ / ("lab/other/g" + std::to_string(i));
      batch.push_back(e);
      if (batch.size() >= 10000) {
        ASSERT_TRUE((*store)->Append(batch).ok());
        batch.clear();
      }
    }
    ASSERT_TRUE((*store)->Append(batch).ok());
  }

  void WriteRules(const std::string& text) { std::ofstream(rules_) << "outbox: " << outbox_ << "\n" << text; }

  testing::RunResult Fathom(std::vector<std::string> args, std::chrono::milliseconds timeout = 300s) {
    args.insert(args.begin(), testing::FathomBinary());
    return testing::Run(std::move(args), timeout);
  }

  std::vector<std::string> RunnerArgs() const {
    return {testing::FathomBinary(), "rules", "run", "--config", rules_, "--store", store_};
  }

  // The rule's row of `rules status`; all zeros while the runner just started has not yet made
  // its outbox (the callers wait for counts, which then stay short if it never does).
  RuleRow Status(const std::string& rule, std::string* preamble = nullptr) {
    auto status = Fathom({"rules", "status", "--config", rules_, "--store", store_, "--csv"});
    if (status.exit_code != 0 && status.err.find("no rules outbox") != std::string::npos) return {};
    EXPECT_EQ(status.exit_code, 0) << status.err;
    if (preamble != nullptr) *preamble = status.out;
    RuleRow row;
    std::istringstream in(status.out);
    for (std::string line; std::getline(in, line);) {
      // Cells are padded to their column's width: "   ingest,        0, ...".
      std::vector<std::string> cells;
      std::istringstream split(line);
      for (std::string cell; cells.size() < 7 && std::getline(split, cell, ',');) {
        cell.erase(0, cell.find_first_not_of(' '));
        cells.push_back(cell);
      }
      if (cells.size() < 7 || cells[0] != rule) continue;
      row = {std::stoull(cells[1]), std::stoull(cells[2]), std::stoull(cells[3]),
             std::stoull(cells[4]), std::stoull(cells[5]), std::stoull(cells[6])};
    }
    return row;
  }

  // Each recorded run of the command: delivery id -> the paths of each of its runs.
  std::map<std::string, std::vector<std::vector<std::string>>> CommandRuns() {
    std::map<std::string, std::vector<std::vector<std::string>>> runs;
    for (const auto& file : fs::directory_iterator(runs_)) {
      if (file.path().extension() == ".tmp") continue;
      std::vector<std::string> f = Fields(testing::ReadFile(file.path()));
      EXPECT_GE(f.size(), 3u) << file.path();
      if (f.size() < 3) continue;
      EXPECT_EQ(f.size(), 3 + std::stoul(f[2])) << file.path();
      runs[f[0]].emplace_back(f.begin() + 3, f.end());
    }
    return runs;
  }

  testing::TempDir dir_;
  std::string store_, outbox_, rules_, runs_, recorder_, secret_;
};

// The paths of a webhook request's body (the exact bytes of `path_b64` where a path is not UTF-8).
std::vector<std::string> BodyPaths(const std::string& body) {
  std::vector<std::string> paths;
  const auto doc = nlohmann::json::parse(body);
  for (const auto& e : doc.at("events")) {
    paths.push_back(e.contains("path_b64") ? FromBase64(e.at("path_b64").get<std::string>())
                                           : e.at("path").get<std::string>());
  }
  return paths;
}

TEST_F(RulesScaleTest, HundredThousandEventsReachACommandAndAWebhookThroughTwentyKills) {
  const size_t n = 100000;
  WriteEvents(n);
  testing::HttpReceiver hook;
  hook.Answer(204);
  WriteRules("lease: 3s\nconcurrency: 4\nrules:\n"
             "  - name: ingest\n    kinds: [CLOSE_WRITE]\n    path: \"" + Raw() + "/**\"\n"
             "    batch: {max_events: 250, max_wait: 50ms}\n    concurrency: 2\n"
             "    action: {command: [" + recorder_ + ", '{paths}'], allow_root: true}\n"
             "  - name: notify\n    kinds: [CLOSE_WRITE]\n    path: \"" + Raw() + "/**\"\n"
             "    batch: {max_events: 250, max_wait: 50ms}\n    concurrency: 2\n"
             "    action: " + Webhook(hook.url()) + "\n");
  std::mt19937 rng(20261127);
  for (int kill = 0; kill < 20; ++kill) {
    testing::Subprocess runner(RunnerArgs());
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(150, 900)(rng)));
    runner.Signal(SIGKILL);
    runner.Wait();
  }
  auto last = Fathom({"rules", "run", "--config", rules_, "--store", store_, "--until-idle"});
  ASSERT_EQ(last.exit_code, 0) << last.err;

  // The command: every path at least once; each delivery id always names the same paths.
  std::set<std::string> commanded;
  size_t command_runs = 0;
  for (const auto& [id, runs] : CommandRuns()) {
    for (const auto& paths : runs) {
      EXPECT_EQ(paths, runs.front()) << id << " named other paths on a repeat";
      commanded.insert(paths.begin(), paths.end());
      ++command_runs;
    }
  }
  // The webhook: every path at least once; one webhook-id, one body's paths, on every repeat.
  std::map<std::string, std::vector<std::string>> by_hook_id;
  std::set<std::string> notified;
  size_t posts = 0;
  for (const auto& req : hook.Requests()) {
    const std::string id = req.get_header_value("webhook-id");
    std::vector<std::string> paths = BodyPaths(req.body);
    auto [at, added] = by_hook_id.emplace(id, paths);
    if (!added) {
      EXPECT_EQ(at->second, paths) << id << " carried other events on a repeat";
    }
    notified.insert(paths.begin(), paths.end());
    ++posts;
  }
  size_t missing_command = 0, missing_hook = 0;
  for (size_t i = 0; i < n; ++i) {
    if (commanded.count(PathOf(i)) == 0 && ++missing_command <= 5) {
      ADD_FAILURE() << "no command ran for event " << i << ": " << PathOf(i);
    }
    if (notified.count(PathOf(i)) == 0 && ++missing_hook <= 5) {
      ADD_FAILURE() << "no webhook carried event " << i << ": " << PathOf(i);
    }
  }
  EXPECT_EQ(missing_command, 0u);
  EXPECT_EQ(missing_hook, 0u);
  EXPECT_EQ(commanded.size(), n);
  EXPECT_EQ(notified.size(), n);
  // The hostile names arrived byte for byte, and none was run by a shell.
  for (const std::string name : {"0-a b.h5", "997-q'uote\".h5", "1994-$(touch pwned).h5", "2991-new\nline.h5",
                                  "3988--rf.h5", "4985-semi;colon|pipe&.h5", "5982-\xff\xfe.h5"}) {
    EXPECT_EQ(commanded.count(Raw() + "/" + name), 1u) << name;
    EXPECT_EQ(notified.count(Raw() + "/" + name), 1u) << name;
  }
  EXPECT_FALSE(fs::exists(dir_ / "pwned") || fs::exists("pwned") || fs::exists(runs_ + "/pwned"))
      << "a file name was executed";
  const RuleRow ingest = Status("ingest"), notify = Status("notify");
  EXPECT_EQ(ingest.succeeded, by_hook_id.size()) << "one delivery per batch, the same batches for both rules";
  EXPECT_EQ(ingest.dead + notify.dead + ingest.pending + notify.pending, 0u);
  EXPECT_EQ(notify.succeeded, by_hook_id.size());
  std::cout << "100,000 events, 20 kills: " << command_runs << " command runs for " << ingest.succeeded
            << " deliveries, " << posts << " webhook posts for " << notify.succeeded << " deliveries\n";
}

TEST_F(RulesScaleTest, AWebhookDownThenFailingThenThrottledGetsEveryDeliveryWhenItReturns) {
  const size_t n = 40;
  WriteEvents(n);
  // A port with nothing listening: connections are refused.
  int port = 0;
  { port = testing::HttpReceiver().port(); }
  testing::HttpReceiver gone({"/gone"});
  gone.Answer(404);
  WriteRules("lease: 30s\nconcurrency: 4\nendpoint_concurrency: 4\nrules:\n"
             "  - name: hook\n    kinds: [CLOSE_WRITE]\n    path: \"" + Raw() + "/**\"\n"
             "    retry: {max_attempts: 1000, backoff: 50ms, max_backoff: 300ms}\n    concurrency: 4\n"
             "    action: " + Webhook("http://127.0.0.1:" + std::to_string(port) + "/hook") + "\n"
             "  - name: gone\n    kinds: [MODIFY]\n    path: \"" + dir_.path() + "/lab/other/g1\"\n"
             "    retry: {max_attempts: 1000, backoff: 50ms, max_backoff: 300ms}\n    concurrency: 4\n"
             "    action: " + Webhook(gone.url("/gone")) + "\n");
  testing::Subprocess runner(RunnerArgs());
  ASSERT_TRUE(runner.WaitForStderr("reading after event", 10s)) << runner.stderr_text();
  // Refused: every delivery is tried again and again, none succeeds; the 404 is dead at once.
  RuleRow row;
  for (int i = 0; i < 300 && (row = Status("hook")).retried < n; ++i) std::this_thread::sleep_for(50ms);
  EXPECT_EQ(row.retried, n) << "each delivery was tried more than once while refused";
  EXPECT_EQ(row.succeeded, 0u);
  EXPECT_EQ(row.dead, 0u);
  EXPECT_EQ(row.pending + row.running + row.waiting, n);
  auto waiting = Fathom({"rules", "deliveries", "--config", rules_, "--rule", "hook", "--csv", "--limit", "1"});
  EXPECT_NE(waiting.out.find("onnect"), std::string::npos) << waiting.out;
  RuleRow dead;
  for (int i = 0; i < 100 && (dead = Status("gone")).dead < 1; ++i) std::this_thread::sleep_for(50ms);
  EXPECT_EQ(dead.dead, 1u) << "one MODIFY of lab/other/g1: dead after one 404";

  // Back, answering 503 (retried), then 429 with Retry-After: 1 (retried, not before 1 s).
  testing::HttpReceiver hook({"/hook"}, port);
  hook.Answer(503);
  for (int i = 0; i < 200 && hook.Requests().size() < 2 * n; ++i) std::this_thread::sleep_for(20ms);
  ASSERT_GE(hook.Requests().size(), 2 * n) << "the deliveries are retried against 503";
  EXPECT_EQ(Status("hook").succeeded, 0u);
  hook.Answer(429, {{"Retry-After", "1"}});
  const size_t before_429 = hook.Requests().size();
  for (int i = 0; i < 200 && hook.Requests().size() < before_429 + n; ++i) std::this_thread::sleep_for(20ms);
  std::this_thread::sleep_for(300ms);
  hook.Answer(204);
  for (int i = 0; i < 500 && Status("hook").succeeded < n; ++i) std::this_thread::sleep_for(50ms);
  row = Status("hook");
  EXPECT_EQ(row.succeeded, n);
  EXPECT_EQ(row.dead, 0u);

  // Every event delivered with a 2xx; Retry-After honoured: after a 429, the same delivery
  // came back no sooner than a second later.
  const auto requests = hook.Requests();
  const auto answers = hook.Answers();
  ASSERT_EQ(requests.size(), answers.size());
  std::set<std::string> delivered;
  std::map<std::string, std::chrono::steady_clock::time_point> throttled_at;
  size_t throttled = 0;
  for (size_t i = 0; i < requests.size(); ++i) {
    const std::string id = requests[i].get_header_value("webhook-id");
    if (auto t = throttled_at.find(id); t != throttled_at.end()) {
      EXPECT_GE(answers[i].at - t->second, 950ms) << id << " came back before its Retry-After";
      throttled_at.erase(t);
    }
    if (answers[i].status == 429) {
      throttled_at[id] = answers[i].at;
      ++throttled;
    }
    if (answers[i].status == 204) {
      for (const std::string& p : BodyPaths(requests[i].body)) delivered.insert(p);
    }
  }
  EXPECT_GE(throttled, n / 2);
  EXPECT_EQ(delivered.size(), n);
  for (size_t i = 0; i < n; ++i) EXPECT_EQ(delivered.count(PathOf(i)), 1u) << PathOf(i);

  // The dead one runs again when replayed, once the endpoint is fixed: the same webhook-id.
  gone.Answer(204);
  auto replay = Fathom({"rules", "replay", "--config", rules_, "--all"});
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  for (int i = 0; i < 200 && Status("gone").succeeded < 1; ++i) std::this_thread::sleep_for(20ms);
  EXPECT_EQ(Status("gone").succeeded, 1u);
  const auto gone_requests = gone.Requests();
  ASSERT_EQ(gone_requests.size(), 2u);
  EXPECT_EQ(gone_requests[0].get_header_value("webhook-id"), gone_requests[1].get_header_value("webhook-id"));
  runner.Signal(SIGTERM);
  EXPECT_EQ(runner.Wait(), 0) << runner.stderr_text();
}

TEST_F(RulesScaleTest, ABurstWithASlowActionKeepsMemoryBoundedShowsTheLagAndLosesNothing) {
  const size_t n = 100000;
  WriteEvents(n);
  // A slow endpoint: each request held a second.
  testing::HttpReceiver hook;
  hook.Hold(1s);
  WriteRules("lease: 1min\nconcurrency: 4\nrules:\n"
             "  - name: burst\n    kinds: [CLOSE_WRITE]\n    path: \"" + Raw() + "/**\"\n"
             "    batch: {max_events: 5, max_wait: 10ms}\n    concurrency: 4\n"
             "    action: " + Webhook(hook.url()) + "\n");
  const auto start = std::chrono::steady_clock::now();
  testing::Subprocess runner(RunnerArgs());
  auto recorded_of = [](const RuleRow& r) { return r.pending + r.running + r.waiting + r.succeeded; };
  for (int i = 0; i < 600 && recorded_of(Status("burst")) < 10000; ++i) std::this_thread::sleep_for(100ms);
  std::this_thread::sleep_for(2s);  // reading stays paused
  std::string status_text;
  const RuleRow slow = Status("burst", &status_text);
  const long peak_kb = PeakRssKb(runner.pid());
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start);
  // The runner read until 10,000 deliveries were unfinished (of 20,000: 100,000 events, 5 a
  // batch), then stopped reading: the rest wait in the stream, and the lag says how many.
  const uint64_t recorded = recorded_of(slow);
  EXPECT_LE(slow.succeeded, 4u * (static_cast<uint64_t>(seconds.count()) + 1)) << "4 at once, a second each";
  EXPECT_GE(recorded, 10000u) << status_text;
  EXPECT_LT(recorded, 11000u) << status_text;
  const size_t lag_at = status_text.find(", lag ");
  ASSERT_NE(lag_at, std::string::npos) << status_text;
  const uint64_t lag = std::stoull(status_text.substr(lag_at + 6));
  EXPECT_GE(lag, 2 * 5 * (n / 5 - 11000)) << "events not read yet: " << status_text;
  EXPECT_LE(lag, 2 * 5 * (n / 5 - 10000)) << status_text;
  EXPECT_GT(peak_kb, 0);
  EXPECT_LT(peak_kb, 64 * 1024) << "the runner's peak RSS, KiB";
  std::cout << "burst of 100,000: runner peak RSS " << peak_kb << " KiB; " << status_text;
  // Fast again: everything is delivered, each delivery once (nothing failed).
  hook.Hold(0ms);
  for (int i = 0; i < 1200 && Status("burst").succeeded < n / 5; ++i) std::this_thread::sleep_for(100ms);
  const long final_peak_kb = PeakRssKb(runner.pid());
  runner.Signal(SIGTERM);
  EXPECT_EQ(runner.Wait(), 0) << runner.stderr_text();
  const RuleRow done = Status("burst", &status_text);
  EXPECT_EQ(done.succeeded, n / 5) << status_text;
  EXPECT_GT(final_peak_kb, 0);
  EXPECT_LT(final_peak_kb, 64 * 1024) << "the runner's peak RSS after all 20,000 deliveries, KiB";
  std::multiset<std::string> delivered;
  std::set<std::string> ids;
  for (const auto& req : hook.Requests()) {
    EXPECT_TRUE(ids.insert(req.get_header_value("webhook-id")).second) << "delivered twice with nothing failing";
    for (const std::string& p : BodyPaths(req.body)) delivered.insert(p);
  }
  EXPECT_EQ(ids.size(), n / 5);
  EXPECT_EQ(delivered.size(), n);
  for (size_t i = 0; i < n; ++i) {
    if (delivered.count(PathOf(i)) != 1) {
      ADD_FAILURE() << PathOf(i) << " delivered " << delivered.count(PathOf(i)) << " times";
      break;
    }
  }
}

}  // namespace
}  // namespace fathom

// distributed_env.h — a real `fathom aggregate` for the client tests: CURVE keys made with
// `fathom keygen`, a client list, a store under a TempDir, and the command lines of
// `fathom collect` and `fathom subscribe` that reach it. The aggregator runs as a subprocess on
// a loopback port picked at its first start and kept across Kill()/Start(), so clients that
// outlive it find it again. One thread (the test's).
#pragma once

#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fathom/store.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom::testing {

using namespace std::chrono_literals;

class AggregatorEnv {
 public:
  AggregatorEnv() {
    for (const char* name : {"server", "client", "stranger"}) {
      RunResult r = Run({FathomBinary(), "keygen", "-o", dir_ / name});
      EXPECT_EQ(r.exit_code, 0) << r.err;
    }
    std::ofstream(dir_ / "clients.yaml") << "clients:\n"
                                         << "  - name: tester\n"
                                         << "    key: client.pub\n"
                                         << "    roles: [collect, subscribe]\n";
  }
  ~AggregatorEnv() { Kill(); }

  const TempDir& dir() const { return dir_; }
  std::string store_path() const { return dir_ / "events.db"; }
  const std::string& endpoint() const { return endpoint_; }

  // Starts the aggregator (on the port of the first start) and waits until it listens.
  bool Start() {
    const std::string listen = endpoint_.empty() ? "tcp://127.0.0.1:*" : endpoint_;
    process_ = std::make_unique<Subprocess>(std::vector<std::string>{
        FathomBinary(), "aggregate", "--listen", listen, "--store", "sqlite:" + store_path(), "--key",
        dir_ / "server.key", "--clients", dir_ / "clients.yaml", "--sync", "normal"});
    if (!process_->WaitForStderr("aggregating on", 20s)) {
      ADD_FAILURE() << "aggregator did not start: " << process_->stderr_text();
      return false;
    }
    const std::string& err = process_->stderr_text();
    const auto at = err.find("tcp://127.0.0.1:");
    if (at == std::string::npos) return false;
    const auto end = err.find_first_of(" \n", at);
    endpoint_ = err.substr(at, end - at);
    return true;
  }
  // Reads what the running aggregator logged since the last call (its stderr pipe never fills).
  void DrainLog() {
    if (process_) process_->DrainStderr(std::chrono::milliseconds(10));
  }
  // SIGKILL, as a crash.
  void Kill() {
    if (!process_) return;
    process_->Signal(SIGKILL);
    process_->Wait();
    process_.reset();
  }

  std::vector<std::string> Keys(const std::string& client = "client") const {
    return {"--key", dir_ / (client + ".key"), "--server-key", dir_ / "server.pub"};
  }
  std::vector<std::string> Collect(const std::string& name, std::vector<std::string> source) const {
    std::vector<std::string> args = {FathomBinary(), "collect", "--to", endpoint_, "--name", name};
    args.insert(args.end(), source.begin(), source.end());
    auto keys = Keys();
    args.insert(args.end(), keys.begin(), keys.end());
    return args;
  }
  std::vector<std::string> Subscribe(std::vector<std::string> options) const {
    std::vector<std::string> args = {FathomBinary(), "subscribe", "--from", endpoint_};
    args.insert(args.end(), options.begin(), options.end());
    auto keys = Keys();
    args.insert(args.end(), keys.begin(), keys.end());
    return args;
  }

 private:
  TempDir dir_;
  std::string endpoint_;
  std::unique_ptr<Subprocess> process_;
};

// One `fathom subscribe --format json` line.
struct JsonEvent {
  uint64_t id = 0;
  std::string path;
  std::string kinds;
};

inline JsonEvent ParseJsonLine(const std::string& line) {
  JsonEvent e;
  auto j = nlohmann::json::parse(line, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << line;
  if (j.is_discarded()) return e;
  e.id = j.value("id", uint64_t{0});
  e.path = j.value("path", std::string());
  if (j.contains("events")) e.kinds = j["events"].dump();
  return e;
}

// Reads JSON lines until `n` came or nothing came for `idle`.
inline std::vector<JsonEvent> ReadJsonEvents(Subprocess& p, size_t n, std::chrono::milliseconds idle = 20s) {
  std::vector<JsonEvent> out;
  while (out.size() < n) {
    auto line = p.ReadLine(idle);
    if (!line) break;
    out.push_back(ParseJsonLine(*line));
  }
  return out;
}

// Events per path in a store, read-only.
inline std::map<std::string, int> StoredPaths(const std::string& db, uint64_t* count = nullptr) {
  std::map<std::string, int> out;
  StoreOptions options;
  options.path = db;
  options.read_only = true;
  auto store = EventStore::Open(options);
  EXPECT_TRUE(store.ok()) << store.status().message();
  if (!store.ok()) return out;
  uint64_t n = 0;
  Status s = (*store)->Replay({}, [&](const Event& e) {
    ++out[e.path];
    ++n;
    return true;
  });
  EXPECT_TRUE(s.ok()) << s.message();
  if (count != nullptr) *count = n;
  return out;
}

}  // namespace fathom::testing

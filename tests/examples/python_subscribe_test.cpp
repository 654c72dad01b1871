// examples/python/subscribe.py against a real `fathom aggregate` on a loopback port: events fed
// by a raw ZeroMQ DEALER speaking the wire protocol as a collector (Hello, Batch) come out of the
// Python client as JSON lines, exactly those events, in order, replayed and live.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "support/subprocess.h"
#include "support/temp_dir.h"
#include "wire/wire_messages.h"

namespace fathom {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::FathomBinary;
using testing::Subprocess;
using testing::TempDir;

constexpr const char* kPython = "/usr/bin/python3";
const std::string kExample = std::string(FATHOM_SOURCE_DIR) + "/examples/python/subscribe.py";

int FreeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ADD_FAILURE() << "cannot find a free loopback port";
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

// The value of `name = VALUE` in a key file written by `fathom keygen`.
std::string KeyFromFile(const std::string& path, const std::string& name) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(name, 0) != 0) continue;
    const size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string value = line.substr(eq + 1);
    value.erase(0, value.find_first_not_of(' '));
    return value;
  }
  ADD_FAILURE() << path << " has no " << name << " line";
  return "";
}

// Events as a collector watching /data sends them, with unicode names, renames and attrs.
std::vector<Event> Events(size_t n, size_t offset) {
  std::vector<Event> events(n);
  for (size_t i = 0; i < n; ++i) {
    const size_t k = offset + i;
    Event& e = events[i];
    e.ts_ns = 1'700'000'000'000'000'000 + static_cast<int64_t>(k) * 1000;
    e.mask = k % 4 == 0 ? kind::kCreate : k % 4 == 1 ? kind::kCloseWrite
                                      : k % 4 == 2 ? kind::kMovedFrom : kind::kCreate | kind::kIsDir;
    e.cookie = k % 4 == 2 ? static_cast<uint32_t>(k) : 0;
    e.root = "/data";
    e.path = "/data/exp/run-" + std::to_string(k / 10) + "/\xc3\xa9t\xc3\xa9-" + std::to_string(k);
    e.source = "inotify";
    // Attrs that repeat, change and lose members between events, and a comma inside a value.
    const std::string size = "{\"size\":" + std::to_string(k);
    if (k % 3 == 0) e.attrs = size + ",\"owner\":\"u" + std::to_string(k % 2) + "\",\"tags\":\"a,b\"}";
    if (k % 3 == 1) e.attrs = size + ",\"tags\":\"a,b\"}";
  }
  return events;
}

// A collector speaking the wire protocol over a raw DEALER socket.
class RawCollector {
 public:
  RawCollector(const std::string& endpoint, const std::string& key_file,
               const std::string& server_pub)
      : socket_(context_, zmq::socket_type::dealer) {
    socket_.set(zmq::sockopt::linger, 0);
    if (!key_file.empty()) {
      socket_.set(zmq::sockopt::curve_serverkey, KeyFromFile(server_pub, "public-key"));
      socket_.set(zmq::sockopt::curve_publickey, KeyFromFile(key_file, "public-key"));
      socket_.set(zmq::sockopt::curve_secretkey, KeyFromFile(key_file, "secret-key"));
    }
    socket_.connect(endpoint);
  }

  void Send(const wire::Message& message) {
    const std::string frame = wire::Encode(message);
    socket_.send(zmq::buffer(frame), zmq::send_flags::none);
  }

  // The next message, or nullopt after `timeout`.
  std::optional<wire::Message> Receive(milliseconds timeout) {
    socket_.set(zmq::sockopt::rcvtimeo, static_cast<int>(timeout.count()));
    zmq::message_t msg;
    if (!socket_.recv(msg, zmq::recv_flags::none)) return std::nullopt;
    auto decoded = wire::Decode(msg.to_string_view());
    EXPECT_TRUE(decoded.ok()) << decoded.status().message();
    if (!decoded.ok()) return std::nullopt;
    return std::move(decoded).value();
  }

  // Hello, then one Batch covering positions (from, from + events]; returns its BatchAck.
  wire::BatchAck Commit(uint64_t from, const std::vector<Event>& events) {
    if (!greeted_) {
      Send(wire::Hello{"python-test-collector"});
      auto welcome = Receive(seconds(20));
      EXPECT_TRUE(welcome && std::holds_alternative<wire::Welcome>(*welcome))
          << "no Welcome from the aggregator";
      greeted_ = true;
    }
    Send(wire::Batch{"python-test-collector", from, from + events.size(), events});
    auto ack = Receive(seconds(20));
    if (!ack || !std::holds_alternative<wire::BatchAck>(*ack)) {
      ADD_FAILURE() << "no BatchAck from the aggregator";
      return {};
    }
    return std::get<wire::BatchAck>(*ack);
  }

 private:
  zmq::context_t context_;
  zmq::socket_t socket_;
  bool greeted_ = false;
};

class PythonSubscribeTest : public ::testing::Test {
 protected:
  // Generates keys for the server, a collector and a consumer, and starts the aggregator.
  void StartAggregator(bool insecure) {
    insecure_ = insecure;
    endpoint_ = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
    std::vector<std::string> argv{FathomBinary(), "aggregate", "--listen", endpoint_,
                                  "--store", "sqlite:" + dir_ / "events.db"};
    if (insecure) {
      argv.push_back("--insecure");
    } else {
      for (const char* who : {"server", "collector", "consumer"}) {
        auto keygen = fathom::testing::Run({FathomBinary(), "keygen", "-o", dir_ / who});
        ASSERT_EQ(keygen.exit_code, 0) << keygen.err;
      }
      std::ofstream(dir_ / "clients.yaml")
          << "clients:\n"
          << "  - name: collector\n    key: collector.pub\n    roles: [collect]\n"
          << "  - name: consumer\n    key: consumer.pub\n    roles: [subscribe]\n"
          << "    paths: [/data]\n";
      argv.insert(argv.end(), {"--key", dir_ / "server.key", "--clients", dir_ / "clients.yaml"});
    }
    aggregator_argv_ = argv;
    aggregator_.emplace(argv);
  }

  // SIGKILLs the aggregator and starts it again on the same port and store.
  void RestartAggregator() {
    aggregator_.reset();
    aggregator_.emplace(aggregator_argv_);
  }

  RawCollector Collector() {
    return insecure_ ? RawCollector(endpoint_, "", "")
                     : RawCollector(endpoint_, dir_ / "collector.key", dir_ / "server.pub");
  }

  // subscribe.py with the consumer's keys (or `key_name`'s) and `extra` arguments.
  std::unique_ptr<Subprocess> Python(std::vector<std::string> extra,
                                     const std::string& key_name = "consumer") {
    std::vector<std::string> argv{kPython, kExample, "--from", endpoint_};
    if (insecure_) {
      argv.push_back("--insecure");
    } else {
      argv.insert(argv.end(), {"--key", dir_ / (key_name + ".key"), "--server-key", dir_ / "server.pub"});
    }
    argv.insert(argv.end(), extra.begin(), extra.end());
    return std::make_unique<Subprocess>(argv);
  }

  // Reads one JSON line per expected event and checks it is that event with that id.
  void ExpectPrinted(Subprocess& python, const std::vector<Event>& events, uint64_t first_id) {
    for (size_t i = 0; i < events.size(); ++i) {
      auto line = python.ReadLine(seconds(20));
      ASSERT_TRUE(line) << "event " << i << " of " << events.size() << " not printed; stderr: "
                        << python.stderr_text() << "\naggregator: " << aggregator_->stderr_text();
      const auto json = nlohmann::json::parse(*line);
      const Event& e = events[i];
      EXPECT_EQ(json["id"].get<uint64_t>(), first_id + i) << *line;
      EXPECT_EQ(json["ts"].get<int64_t>(), e.ts_ns) << *line;
      std::vector<std::string> names;
      for (auto name : KindNameList(e.mask)) names.emplace_back(name);
      EXPECT_EQ(json["events"].get<std::vector<std::string>>(), names) << *line;
      EXPECT_EQ(json["path"].get<std::string>(), e.path) << *line;
      EXPECT_EQ(json["cookie"].get<uint32_t>(), e.cookie) << *line;
      EXPECT_EQ(json["source"].get<std::string>(), e.source) << *line;
      const auto attrs = nlohmann::json::parse(e.attrs.empty() ? "{}" : e.attrs);
      for (const auto& [key, value] : attrs.items()) {
        EXPECT_EQ(json[key], value) << key << " in " << *line;
      }
    }
  }

  TempDir dir_;
  bool insecure_ = false;
  std::string endpoint_;
  std::vector<std::string> aggregator_argv_;
  std::optional<Subprocess> aggregator_;
};

TEST_F(PythonSubscribeTest, PrintsReplayedEventsInOrderAndExitsAfterCount) {
  StartAggregator(/*insecure=*/false);
  RawCollector collector = Collector();
  const auto events = Events(40, 0);
  const wire::BatchAck ack = collector.Commit(0, events);
  ASSERT_EQ(ack.last_id - ack.first_id + 1, events.size());

  auto python = Python({"--since", std::to_string(ack.first_id - 1), "--max-count", "40"});
  ExpectPrinted(*python, events, ack.first_id);
  EXPECT_EQ(python->Wait(), 0) << python->stderr_text();
}

TEST_F(PythonSubscribeTest, PrintsLiveEventsAfterReplayedOnes) {
  StartAggregator(/*insecure=*/false);
  RawCollector collector = Collector();
  const auto first = Events(20, 0);
  const wire::BatchAck ack1 = collector.Commit(0, first);
  ASSERT_EQ(ack1.last_id - ack1.first_id + 1, first.size());

  auto python = Python({"--since", std::to_string(ack1.first_id - 1), "--max-count", "45"});
  ExpectPrinted(*python, first, ack1.first_id);
  const auto second = Events(25, 20);
  const wire::BatchAck ack2 = collector.Commit(20, second);
  ASSERT_EQ(ack2.first_id, ack1.last_id + 1);
  ExpectPrinted(*python, second, ack2.first_id);
  EXPECT_EQ(python->Wait(), 0) << python->stderr_text();
}

TEST_F(PythonSubscribeTest, DurableNameResumesAfterTheAcknowledgedId) {
  StartAggregator(/*insecure=*/false);
  RawCollector collector = Collector();
  const auto events = Events(30, 0);
  const wire::BatchAck ack = collector.Commit(0, events);

  auto first = Python({"--name", "archiver", "--since", std::to_string(ack.first_id - 1),
                       "--max-count", "10"});
  ExpectPrinted(*first, std::vector<Event>(events.begin(), events.begin() + 10), ack.first_id);
  ASSERT_EQ(first->Wait(), 0) << first->stderr_text();

  // The aggregator stores durable positions in batches: give it the moment that takes.
  const auto deadline = std::chrono::steady_clock::now() + seconds(10);
  std::optional<std::string> line;
  std::unique_ptr<Subprocess> second;
  while (std::chrono::steady_clock::now() < deadline) {
    second = Python({"--name", "archiver", "--max-count", "1"});
    line = second->ReadLine(seconds(10));
    ASSERT_TRUE(line) << second->stderr_text();
    if (nlohmann::json::parse(*line)["id"].get<uint64_t>() == ack.first_id + 10) break;
    std::this_thread::sleep_for(milliseconds(200));
  }
  ASSERT_TRUE(line);
  EXPECT_EQ(nlohmann::json::parse(*line)["id"].get<uint64_t>(), ack.first_id + 10) << *line;
}

TEST_F(PythonSubscribeTest, NameThatIsNotUtf8IsPrintedAsValidJsonWithItsBytesInPathB64) {
  StartAggregator(/*insecure=*/false);
  RawCollector collector = Collector();
  std::vector<Event> events = Events(1, 0);
  events[0].path = "/data/d\xff\x80-\xe2\x82";
  const wire::BatchAck ack = collector.Commit(0, events);

  auto python = Python({"--since", std::to_string(ack.first_id - 1), "--max-count", "1"});
  auto line = python->ReadLine(seconds(20));
  ASSERT_TRUE(line) << python->stderr_text();
  nlohmann::json json;
  ASSERT_NO_THROW(json = nlohmann::json::parse(*line)) << *line;  // strict: valid UTF-8 only
  EXPECT_EQ(json["path"], "/data/d\xef\xbf\xbd\xef\xbf\xbd-\xef\xbf\xbd") << *line;
  EXPECT_EQ(json["path_b64"], "L2RhdGEvZP+ALeKC") << *line;
  EXPECT_FALSE(json.contains("root_b64")) << *line;
  EXPECT_EQ(python->Wait(), 0) << python->stderr_text();
}

TEST_F(PythonSubscribeTest, PathFilterKeepsOnlyEventsUnderThePrefix) {
  StartAggregator(/*insecure=*/false);
  RawCollector collector = Collector();
  const auto events = Events(40, 0);  // run-0 .. run-3, ten each
  const wire::BatchAck ack = collector.Commit(0, events);

  auto python = Python({"--since", std::to_string(ack.first_id - 1), "--path", "/data/exp/run-2",
                        "-r", "--max-count", "10"});
  ExpectPrinted(*python, std::vector<Event>(events.begin() + 20, events.begin() + 30),
                ack.first_id + 20);
  EXPECT_EQ(python->Wait(), 0) << python->stderr_text();
}

TEST_F(PythonSubscribeTest, ResubscribesFromItsLastIdWhenTheAggregatorRestarts) {
  StartAggregator(/*insecure=*/false);
  const auto first = Events(15, 0);
  const wire::BatchAck ack1 = Collector().Commit(0, first);
  auto python = Python({"--since", std::to_string(ack1.first_id - 1), "--max-count", "35"});
  ExpectPrinted(*python, first, ack1.first_id);

  RestartAggregator();
  const auto second = Events(20, 15);
  const wire::BatchAck ack2 = Collector().Commit(15, second);
  ASSERT_EQ(ack2.first_id, ack1.last_id + 1);
  ExpectPrinted(*python, second, ack2.first_id);
  EXPECT_EQ(python->Wait(), 0) << python->stderr_text();
  EXPECT_NE(python->stderr_text().find("resubscribing (after id " + std::to_string(ack1.last_id) + ")"),
            std::string::npos) << python->stderr_text();
}

TEST_F(PythonSubscribeTest, KeyWithoutTheSubscribeRoleExitsNonZeroNamingTheRefusal) {
  StartAggregator(/*insecure=*/false);
  auto python = Python({"--since", "0", "--max-count", "1"}, "collector");
  EXPECT_EQ(python->Wait(), 2);
  EXPECT_NE(python->stderr_text().find("NotPermitted"), std::string::npos) << python->stderr_text();
}

TEST_F(PythonSubscribeTest, InsecureClientReadsFromInsecureAggregator) {
  StartAggregator(/*insecure=*/true);
  RawCollector collector = Collector();
  const auto events = Events(12, 0);
  const wire::BatchAck ack = collector.Commit(0, events);
  auto python = Python({"--since", std::to_string(ack.first_id - 1), "--max-count", "12"});
  ExpectPrinted(*python, events, ack.first_id);
  EXPECT_EQ(python->Wait(), 0) << python->stderr_text();
}

}  // namespace
}  // namespace fathom

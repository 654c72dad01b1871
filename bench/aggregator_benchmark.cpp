// aggregator_benchmark — events/s committed by `fathom aggregate` (in-process Aggregator over
// tcp loopback into a SQLite file) from 4 collectors, each a raw DEALER socket sending
// 8192-event batches with up to 4 batches awaiting acknowledgement.
// Run: build/aggregator_benchmark [batches-per-collector=64] [full|normal] [curve|insecure]
#include <zmq.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "aggregator/aggregator.h"
#include "security/curve_keys.h"
#include "wire/wire_messages.h"

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kCollectors = 4;
constexpr size_t kBatchEvents = 8192;
constexpr int kWindow = 4;

std::vector<fathom::Event> MakeBatch(int collector, uint64_t start) {
  std::vector<fathom::Event> events(kBatchEvents);
  for (size_t i = 0; i < kBatchEvents; ++i) {
    auto& e = events[i];
    e.ts_ns = fathom::NowNs();
    e.mask = fathom::kind::kCreate;
    e.root = "/lustre";
    e.path = "/lustre/project/c" + std::to_string(collector) + "/dir" +
             std::to_string((start + i) / 100) + "/file" + std::to_string(start + i);
    e.source = "lustre:MDT000" + std::to_string(collector);
  }
  return events;
}

// The frames of one collector's batches, encoded before the clock starts.
std::vector<std::string> EncodeBatches(int index, int batches) {
  const std::string name = "c" + std::to_string(index);
  std::vector<std::string> frames;
  for (int b = 0; b < batches; ++b) {
    frames.push_back(fathom::wire::Encode(fathom::wire::Batch{
        name, uint64_t(b) * kBatchEvents, uint64_t(b + 1) * kBatchEvents,
        MakeBatch(index, uint64_t(b) * kBatchEvents)}));
  }
  return frames;
}

bool Collect(const std::string& endpoint, const std::vector<std::string>& frames,
             const fathom::security::KeyPair* client, const std::string& server_key) {
  const int batches = static_cast<int>(frames.size());
  void* ctx = zmq_ctx_new();
  void* s = zmq_socket(ctx, ZMQ_DEALER);
  if (client != nullptr) {
    zmq_setsockopt(s, ZMQ_CURVE_SERVERKEY, server_key.data(), 40);
    zmq_setsockopt(s, ZMQ_CURVE_PUBLICKEY, client->public_key.data(), 40);
    zmq_setsockopt(s, ZMQ_CURVE_SECRETKEY, client->secret_key.data(), 40);
  }
  zmq_connect(s, endpoint.c_str());
  int sent = 0, acked = 0;
  bool ok = true;
  while (acked < batches && ok) {
    while (sent < batches && sent - acked < kWindow) {
      zmq_send(s, frames[sent].data(), frames[sent].size(), 0);
      ++sent;
    }
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    zmq_msg_recv(&msg, s, 0);
    auto m = fathom::wire::Decode({static_cast<const char*>(zmq_msg_data(&msg)), zmq_msg_size(&msg)});
    zmq_msg_close(&msg);
    ok = m.ok() && std::holds_alternative<fathom::wire::BatchAck>(m.value());
    ++acked;
  }
  zmq_close(s);
  zmq_ctx_term(ctx);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  const int batches = argc > 1 ? std::atoi(argv[1]) : 64;
  const bool sync_full = argc > 2 ? std::string(argv[2]) == "full" : true;
  const bool curve = argc > 3 ? std::string(argv[3]) != "insecure" : true;
  const std::string dir = std::filesystem::temp_directory_path() / "fathom-aggregator-bench";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);

  fathom::aggregator::AggregatorOptions o;
  o.listen = "tcp://127.0.0.1:*";
  o.store.path = dir + "/events.db";
  o.store.sync_full = sync_full;
  o.insecure = !curve;
  auto server = fathom::security::GenerateKeyPair().value();
  auto client = fathom::security::GenerateKeyPair().value();
  if (curve) {
    o.server_keys = server;
    fathom::security::ClientGrant g;
    g.name = "bench";
    g.public_key = client.public_key;
    g.roles = fathom::security::role::kAll;
    o.clients.Add(g);
  }
  auto created = fathom::aggregator::Aggregator::Create(std::move(o));
  if (!created.ok()) {
    std::fprintf(stderr, "%s\n", created.status().message().c_str());
    return 1;
  }
  auto& agg = *created.value();
  std::thread server_thread([&] { (void)agg.Run(); });

  std::vector<std::vector<std::string>> frames;
  for (int c = 0; c < kCollectors; ++c) frames.push_back(EncodeBatches(c, batches));
  const auto start = Clock::now();
  std::atomic<bool> ok{true};
  std::vector<std::thread> collectors;
  for (int c = 0; c < kCollectors; ++c) {
    collectors.emplace_back([&, c] {
      if (!Collect(agg.endpoint(), frames[c], curve ? &client : nullptr, server.public_key)) {
        ok = false;
      }
    });
  }
  for (auto& t : collectors) t.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  auto stats = agg.Stats();
  agg.Stop();
  server_thread.join();
  std::filesystem::remove_all(dir);
  if (!ok) {
    std::fprintf(stderr, "a collector got an answer other than BatchAck\n");
    return 1;
  }
  std::printf("collectors=%d batch=%zu sync=%s %s: %llu events committed in %.2f s = %.0f events/s; "
              "%llu commits, mean commit %llu us, max %llu us\n",
              kCollectors, kBatchEvents, sync_full ? "full" : "normal", curve ? "curve" : "insecure",
              static_cast<unsigned long long>(stats.events_committed), seconds,
              stats.events_committed / seconds, static_cast<unsigned long long>(stats.commits),
              static_cast<unsigned long long>(stats.commit_latency_us_mean),
              static_cast<unsigned long long>(stats.commit_latency_us_max));
  return 0;
}

// aggregator.cpp — Create()/Run()/Stop() and the network thread: routing of collector requests
// to the commit thread, consumer sessions, delivery from the ring or by replay, heartbeats,
// expiry of silent peers, hostile-frame answers.
#include "aggregator/aggregator.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <thread>

#include "aggregator/commit_queue.h"
#include "aggregator/commit_worker.h"
#include "aggregator/consumer_session.h"
#include "aggregator/counters.h"
#include "aggregator/event_ring.h"
#include "aggregator/mailbox.h"
#include "aggregator/replay_worker.h"
#include "core/thread_name.h"
#include "security/zap_handler.h"
#include "security/zmq_handle.h"
#include "store/event_chunk.h"

namespace fathom::aggregator {
namespace {

using Clock = std::chrono::steady_clock;
using security::ZmqFrame;
using security::ZmqSocket;

constexpr size_t kMaxEventsPerMessage = 4096;
constexpr size_t kMaxEventsPerReplay = 1u << 16;  // in the messages of one replay slice
constexpr size_t kMaxScanPerMessage = 1u << 16;
constexpr int kMessagesPerPump = 4;
constexpr size_t kReceivesPerTurn = 512;
constexpr auto kPositionFlushInterval = std::chrono::milliseconds(100);
constexpr auto kSweepInterval = std::chrono::milliseconds(250);
constexpr auto kIdlePoll = std::chrono::milliseconds(100);
constexpr auto kBlockedPoll = std::chrono::milliseconds(5);

enum class SendResult { kSent, kBlocked, kGone };

struct PeerInfo {
  Clock::time_point last_heard;
  std::string collector;  // "" unless the peer sent Hello or Batch
};

struct ClientView {
  std::string name;
  std::string key;  // Z85 public key ("" when insecure)
  uint32_t roles = 0;
  const std::vector<std::string>* grants = nullptr;
};

const std::vector<std::string> kEverything{"/"};

}  // namespace

struct Aggregator::State {
  explicit State(AggregatorOptions o)
      : options(std::move(o)),
        clients(std::move(options.clients)),
        queue(options.commit_queue_events),
        commits(wakeup),
        replays(wakeup),
        admitted(clients.Current()),
        ring(options.ring_capacity, 0) {}

  // Declared first: the context outlives every socket below.
  security::ZmqContext context;
  AggregatorOptions options;
  security::SharedClientList clients;  // replaced by ReplaceClients()
  Counters counters;
  std::unique_ptr<security::ZapHandler> zap;
  ZmqSocket router;
  std::string endpoint;
  Wakeup wakeup;
  CommitQueue queue;
  Mailbox<CommitOutput> commits;
  Mailbox<ReplayResult> replays;
  std::unique_ptr<CommitWorker> commit_worker;
  std::unique_ptr<ReplayWorker> replay_worker;
  std::unique_ptr<EventStore> lookups;  // read-only: oldest id held, for subscriptions
  std::atomic<bool> stop{false};
  bool ran = false;

  // Network thread only.
  std::shared_ptr<const security::ClientList> admitted;  // the list messages are checked by
  uint64_t admitted_version = 0;
  EventRing ring;
  std::map<std::string, uint64_t> durable;        // acknowledged id per durable name
  std::map<std::string, uint64_t> durable_dirty;  // not yet handed to the commit thread
  std::map<std::string, PeerInfo> peers;
  std::map<std::string, ConsumerSession> sessions;  // by peer
  std::map<uint64_t, std::string> session_peers;    // session number -> peer
  uint64_t next_session = 1;
  // Messages made during the current PumpAll() (the ring does not change meanwhile).
  struct MadeMessage {
    uint64_t after_id;
    size_t max_events;
    const ConsumerFilter* filter;
    ConsumerSession::Waiting message;
  };
  std::vector<MadeMessage> made;

  void Serve();
  void ReceiveOne();
  void Handle(const std::string& peer, ZmqFrame& body);
  std::optional<ClientView> Authorize(ZmqFrame& body);
  // Takes up a replaced client list: sessions of keys no longer admitted to subscribe end
  // with NotPermitted, the others keep their connection and get the new grants.
  void AdmitReplacedClients();
  void OnHello(const std::string& peer, const ClientView& client, wire::Hello hello);
  void OnBatch(const std::string& peer, const ClientView& client, wire::Batch batch,
               std::vector<EncodedChunk> chunks);
  void OnSubscribe(const std::string& peer, const ClientView& client, const wire::Subscribe& sub);
  void OnAck(const std::string& peer, const wire::Ack& ack);
  void TakeCommits();
  void TakeReplays();
  // The next Events message for `s` from the ring (at most `max_events` events): made once per
  // PumpAll() for all sessions at the same cursor with the same filter and limit.
  // nullopt when a chunk of the ring does not decode (then the store serves the session).
  std::optional<ConsumerSession::Waiting> NextMessage(const ConsumerSession& s, size_t max_events);
  // Sends what `s` may be sent, up to kMessagesPerPump messages; true when it sent that many
  // (and may have more).
  bool Pump(ConsumerSession& s);
  // Returns how long the next poll may wait: 0 when a session has more to send now,
  // kBlockedPoll when one waits on a full peer queue, else kIdlePoll.
  std::chrono::milliseconds PumpAll();
  void Heartbeats(Clock::time_point now);
  void Sweep(Clock::time_point now);
  void FlushPositions();
  void DropSession(const std::string& peer);
  SendResult Send(const std::string& peer, const std::string& frame);
  void SendError(const std::string& peer, wire::ErrorCode code, uint64_t position,
                 std::string message);
  AggregatorStats Snapshot() const;
};

SendResult Aggregator::State::Send(const std::string& peer, const std::string& frame) {
  if (zmq_send(router.get(), peer.data(), peer.size(), ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0) {
    return zmq_errno() == EAGAIN ? SendResult::kBlocked : SendResult::kGone;
  }
  if (zmq_send(router.get(), frame.data(), frame.size(), ZMQ_DONTWAIT) < 0) {
    return SendResult::kGone;
  }
  return SendResult::kSent;
}

void Aggregator::State::SendError(const std::string& peer, wire::ErrorCode code,
                                  uint64_t position, std::string message) {
  Counters::Add(counters.errors_sent, 1);
  spdlog::debug("error {} to a client: {}", static_cast<uint32_t>(code), message);
  Send(peer, wire::Encode(wire::Error{code, position, std::move(message)}));
}

std::optional<ClientView> Aggregator::State::Authorize(ZmqFrame& body) {
  if (options.insecure) return ClientView{"(insecure)", "", security::role::kAll, &kEverything};
  const security::ClientGrant* grant = admitted->Find(body.property("User-Id"));
  if (grant == nullptr) return std::nullopt;
  return ClientView{grant->name, grant->public_key, grant->roles, &grant->paths};
}

void Aggregator::State::ReceiveOne() {
  ZmqFrame id;
  if (zmq_msg_recv(id.get(), router.get(), ZMQ_DONTWAIT) < 0) return;
  const std::string peer(id.view());
  ZmqFrame body;
  if (!id.more() || zmq_msg_recv(body.get(), router.get(), 0) < 0) return;
  if (body.more()) {
    while (body.more()) {
      ZmqFrame rest;
      if (zmq_msg_recv(rest.get(), router.get(), 0) < 0) break;
      if (!rest.more()) break;
    }
    SendError(peer, wire::ErrorCode::kMalformed, 0,
              "a message is exactly one ZeroMQ frame; this one had several");
    return;
  }
  Handle(peer, body);
}

void Aggregator::State::Handle(const std::string& peer, ZmqFrame& body) {
  auto& info = peers[peer];
  info.last_heard = Clock::now();
  const std::string_view frame = body.view();
  std::vector<EncodedChunk> chunks;  // a Batch's, stored and passed on as they came
  auto decoded = wire::Decode(frame, &chunks);
  if (!decoded.ok()) {
    const bool version = frame.size() >= 3 && static_cast<uint8_t>(frame[0]) == wire::kMagic0 &&
                         static_cast<uint8_t>(frame[1]) == wire::kMagic1 &&
                         !wire::ReadableVersion(static_cast<uint8_t>(frame[2]));
    SendError(peer, version ? wire::ErrorCode::kVersion : wire::ErrorCode::kMalformed, 0,
              decoded.status().message());
    return;
  }
  auto client = Authorize(body);
  if (!client) {
    SendError(peer, wire::ErrorCode::kNotPermitted, 0, "the client's key is not admitted");
    return;
  }
  wire::Message& m = decoded.value();
  if (auto* hello = std::get_if<wire::Hello>(&m)) {
    OnHello(peer, *client, std::move(*hello));
  } else if (auto* batch = std::get_if<wire::Batch>(&m)) {
    OnBatch(peer, *client, std::move(*batch), std::move(chunks));
  } else if (auto* sub = std::get_if<wire::Subscribe>(&m)) {
    OnSubscribe(peer, *client, *sub);
  } else if (auto* ack = std::get_if<wire::Ack>(&m)) {
    OnAck(peer, *ack);
  } else if (std::holds_alternative<wire::StatsRequest>(m)) {
    AggregatorStats stats = Snapshot();
    if (auto first = lookups->FirstId(); first.ok()) stats.first_id = first.value();
    Send(peer, wire::Encode(wire::Stats{stats.ToJson()}));
  } else {
    auto type = wire::PeekType(frame);
    SendError(peer, wire::ErrorCode::kMalformed, 0,
              "message type " + std::to_string(type.ok() ? static_cast<int>(type.value()) : -1) +
                  " is sent by the aggregator, not to it");
  }
}

void Aggregator::State::OnHello(const std::string& peer, const ClientView& client,
                                wire::Hello hello) {
  if ((client.roles & security::role::kCollect) == 0) {
    SendError(peer, wire::ErrorCode::kNotPermitted, 0,
              "client " + client.name + " lacks the collect role (add it to its roles in the "
              "aggregator's client list)");
    return;
  }
  if (hello.collector.empty()) {
    SendError(peer, wire::ErrorCode::kMalformed, 0, "Hello needs a collector name");
    return;
  }
  peers[peer].collector = hello.collector;
  queue.Push(HelloItem{peer, std::move(hello.collector)});
}

void Aggregator::State::OnBatch(const std::string& peer, const ClientView& client,
                                wire::Batch batch, std::vector<EncodedChunk> chunks) {
  if ((client.roles & security::role::kCollect) == 0) {
    SendError(peer, wire::ErrorCode::kNotPermitted, 0,
              "client " + client.name + " lacks the collect role (add it to its roles in the "
              "aggregator's client list)");
    return;
  }
  if (batch.collector.empty() || batch.to_position <= batch.from_position) {
    SendError(peer, wire::ErrorCode::kMalformed, 0,
              "a Batch needs a collector name and to_position > from_position (got " +
                  std::to_string(batch.from_position) + ".." + std::to_string(batch.to_position) +
                  ")");
    return;
  }
  const bool everywhere = std::any_of(client.grants->begin(), client.grants->end(),
                                      [](const std::string& g) { return g == "/" || g.empty(); });
  std::optional<std::string> refused;  // the first path outside the client's grants
  size_t events = 0;
  for (const auto& c : chunks) {
    events += c.count;
    if (everywhere || refused) continue;
    // The chunks were checked whole when the frame was decoded: this walk cannot fail.
    (void)store::ScanChunk(*c.data, [&](std::string_view path) {
      for (const auto& g : *client.grants) {
        if (PathUnder(path, g)) return true;
      }
      refused.emplace(path);
      return false;
    });
  }
  if (refused) {
    SendError(peer, wire::ErrorCode::kNotPermitted, 0,
              "client " + client.name + " may not report events on '" + *refused + "'" +
                  " (outside its granted paths)");
    return;
  }
  peers[peer].collector = batch.collector;
  Counters::Add(counters.events_received, events);
  queue.Push(BatchItem{peer, std::move(batch), std::move(chunks), events});
}

void Aggregator::State::OnSubscribe(const std::string& peer, const ClientView& client,
                                    const wire::Subscribe& sub) {
  if ((client.roles & security::role::kSubscribe) == 0) {
    SendError(peer, wire::ErrorCode::kNotPermitted, 0,
              "client " + client.name + " lacks the subscribe role (add it to its roles in the "
              "aggregator's client list)");
    return;
  }
  ConsumerFilter filter;
  filter.prefix = NormalizePrefix(sub.path_prefix);
  filter.recursive = sub.recursive;
  filter.kinds = sub.kinds;
  filter.grants = *client.grants;
  if (!filter.prefix.empty()) {
    if (filter.prefix.front() != '/') {
      SendError(peer, wire::ErrorCode::kMalformed, 0,
                "path prefix '" + sub.path_prefix + "' is not absolute");
      return;
    }
    bool overlaps = false;
    for (const auto& g : filter.grants) {
      overlaps = overlaps || PathUnder(filter.prefix, g) ||
                 PathUnder(g, filter.prefix);
    }
    if (!overlaps) {
      SendError(peer, wire::ErrorCode::kNotPermitted, 0,
                "client " + client.name + " is granted no path under " + filter.prefix);
      return;
    }
  }
  const uint64_t last = ring.last_id();
  auto first = lookups->FirstId();
  if (!first.ok()) {
    SendError(peer, wire::ErrorCode::kUnavailable, 0,
              "the aggregator cannot read its store: " + first.status().message());
    return;
  }
  const uint64_t first_id = first.value();
  // Without `since`: a known durable name resumes after its acknowledged id; a durable name
  // not known (new, or registered just before a crash) starts at the oldest event held, so
  // that it can only see events again, never miss them; no name: only new events.
  uint64_t start_after = last;
  auto known = durable.find(sub.name);
  if (sub.has_since) {
    start_after = sub.since;
  } else if (known != durable.end()) {
    start_after = known->second;
  } else if (!sub.name.empty()) {
    start_after = first_id == 0 ? last : first_id - 1;
  }
  const uint64_t gone_through =
      first_id == 0 ? (start_after < last ? last : 0) : (start_after + 1 < first_id ? first_id - 1 : 0);
  if (gone_through != 0) {
    SendError(peer, wire::ErrorCode::kPurged, first_id,
              "ids " + std::to_string(start_after + 1) + "–" + std::to_string(gone_through) +
                  " are gone (removed by retention or purge); the oldest id held is " +
                  (first_id == 0 ? std::string("none") : std::to_string(first_id)) +
                  ": subscribe with since " + std::to_string(gone_through) +
                  " to continue from there");
    return;
  }
  DropSession(peer);
  ConsumerSession& s = sessions[peer];
  s.number = next_session++;
  s.peer = peer;
  s.name = sub.name;
  s.client_key = client.key;
  s.filter = std::move(filter);
  s.cursor = start_after;
  s.acked = start_after;
  s.credit = sub.credit;
  s.last_sent = Clock::now();
  session_peers[s.number] = peer;
  if (!s.name.empty() && known == durable.end()) {
    durable[s.name] = start_after;
    durable_dirty[s.name] = start_after;
  }
  Counters::Set(counters.consumers, sessions.size());
  Send(peer, wire::Encode(wire::Subscribed{start_after, first_id, last}));
}

void Aggregator::State::OnAck(const std::string& peer, const wire::Ack& ack) {
  auto it = sessions.find(peer);
  if (it == sessions.end()) {
    SendError(peer, wire::ErrorCode::kUnknownSession, 0,
              "no subscription from this connection (the aggregator may have restarted): "
              "subscribe again with since = the last id received");
    return;
  }
  ConsumerSession& s = it->second;
  s.Acknowledge(ack.id, ack.credit);
  if (!s.name.empty()) {
    uint64_t& known = durable[s.name];
    if (s.acked > known) {
      known = s.acked;
      durable_dirty[s.name] = s.acked;
    }
  }
}

void Aggregator::State::AdmitReplacedClients() {
  admitted_version = clients.version();
  admitted = clients.Current();
  std::vector<std::string> refused;
  for (auto& [peer, s] : sessions) {
    const security::ClientGrant* grant = admitted->Find(s.client_key);
    if (grant == nullptr || (grant->roles & security::role::kSubscribe) == 0) {
      refused.push_back(peer);
      continue;
    }
    s.filter.grants = grant->paths;
  }
  for (const auto& peer : refused) {
    SendError(peer, wire::ErrorCode::kNotPermitted, 0,
              "the client's key is no longer admitted to subscribe (the aggregator's client list "
              "changed)");
    DropSession(peer);
  }
  spdlog::info("client list replaced: {} clients admitted; {} subscriptions ended", admitted->size(),
               refused.size());
}

void Aggregator::State::DropSession(const std::string& peer) {
  auto it = sessions.find(peer);
  if (it == sessions.end()) return;
  session_peers.erase(it->second.number);
  sessions.erase(it);
  Counters::Set(counters.consumers, sessions.size());
}

void Aggregator::State::TakeCommits() {
  for (auto& output : commits.Take()) {
    for (const auto& reply : output.replies) {
      if (reply.error) Counters::Add(counters.errors_sent, 1);
      Send(reply.peer, reply.frame);
    }
    if (output.first_id != 0) ring.Append(output.first_id, std::move(output.chunks));
  }
}

void Aggregator::State::TakeReplays() {
  for (auto& result : replays.Take()) {
    auto peer = session_peers.find(result.session);
    if (peer == session_peers.end()) continue;  // the session ended meanwhile
    ConsumerSession& s = sessions.at(peer->second);
    s.replaying = false;
    if (result.gone) {
      const std::string who = peer->second;
      SendError(who, wire::ErrorCode::kPurged, result.first_held,
                "ids " + std::to_string(result.gone->first) + "–" +
                    std::to_string(result.gone->second) +
                    " are gone (removed by retention or purge, or lost to damage in a "
                    "recovered store) before they could be sent; the next id held is " +
                    std::to_string(result.first_held));
      DropSession(who);
      continue;
    }
    if (!result.status.ok()) {
      const std::string who = peer->second;
      spdlog::warn("replay for a consumer failed: {}", result.status.message());
      SendError(who, wire::ErrorCode::kUnavailable, 0,
                "replay failed: " + result.status.message() + "; subscribe again later");
      DropSession(who);
      continue;
    }
    if (result.after_id != s.cursor || result.messages.empty()) continue;
    s.waiting = std::move(result.messages.front());
    s.replayed.assign(std::make_move_iterator(result.messages.begin() + 1),
                      std::make_move_iterator(result.messages.end()));
  }
}

std::optional<ConsumerSession::Waiting> Aggregator::State::NextMessage(const ConsumerSession& s,
                                                                    size_t max_events) {
  for (const auto& m : made) {
    if (m.after_id == s.cursor && m.max_events == max_events && *m.filter == s.filter) return m.message;
  }
  const uint64_t end = std::min<uint64_t>(ring.last_id(), s.cursor + kMaxScanPerMessage);
  auto message = BuildEventsMessage(ring, s.cursor, end, max_events, s.filter);
  if (message) made.push_back({s.cursor, max_events, &s.filter, *message});
  return message;
}

bool Aggregator::State::Pump(ConsumerSession& s) {
  for (int sent = 0; sent < kMessagesPerPump; ++sent) {
    if (!s.waiting) {
      if (s.gone || s.replaying || s.cursor >= ring.last_id() || s.Available() == 0) return false;
      const size_t max_events = std::min<uint64_t>(s.Available(), kMaxEventsPerMessage);
      if (!s.replayed.empty()) {
        s.waiting = std::move(s.replayed.front());
        s.replayed.pop_front();
      } else if (ring.Holds(s.cursor + 1)) {
        // A chunk the credit cannot take whole yet but will: wait for acknowledgements rather
        // than decode it to send it in parts.
        const EventRing::Chunk& next = ring.At(ring.IndexOf(s.cursor + 1));
        if (next.first_id == s.cursor + 1 && next.chunk.count > max_events &&
            next.chunk.count <= s.credit && s.filter.MatchesEverything()) {
          return false;
        }
        s.waiting = NextMessage(s, max_events);
      }
      if (!s.waiting) {
        s.replaying = true;
        replay_worker->Request(ReplayRequest{
            s.number, s.cursor, ring.Holds(s.cursor + 1) ? ring.last_id() : ring.first_id() - 1,
            max_events, std::min<uint64_t>(s.Available(), kMaxEventsPerReplay), s.filter});
        return false;
      }
    }
    switch (Send(s.peer, *s.waiting->frame)) {
      case SendResult::kBlocked:
        return false;
      case SendResult::kGone:
        s.waiting.reset();
        s.gone = true;
        return false;
      case SendResult::kSent:
        s.Sent(s.waiting->through_id, s.waiting->last_event_id, s.waiting->count);
        Counters::Add(counters.events_sent, s.waiting->count);
        s.waiting.reset();
        s.last_sent = Clock::now();
        break;
    }
  }
  return true;  // it may have more to send
}

std::chrono::milliseconds Aggregator::State::PumpAll() {
  bool blocked = false, more = false;
  std::vector<std::string> gone;
  for (auto& [peer, s] : sessions) {
    more = Pump(s) || more;
    if (s.gone) gone.push_back(peer);
    blocked = blocked || s.waiting.has_value();
  }
  made.clear();
  for (const auto& peer : gone) {
    DropSession(peer);
    peers.erase(peer);
  }
  return more ? std::chrono::milliseconds(0) : blocked ? kBlockedPoll : kIdlePoll;
}

void Aggregator::State::Heartbeats(Clock::time_point now) {
  std::vector<std::string> gone;
  for (auto& [peer, s] : sessions) {
    if (s.waiting || now - s.last_sent < options.heartbeat_interval) continue;
    if (Send(peer, wire::Encode(wire::Heartbeat{s.cursor})) == SendResult::kGone) {
      gone.push_back(peer);
    } else {
      s.last_sent = now;
    }
  }
  for (const auto& peer : gone) {
    DropSession(peer);
    peers.erase(peer);
  }
}

void Aggregator::State::Sweep(Clock::time_point now) {
  uint64_t collectors = 0;
  for (auto it = peers.begin(); it != peers.end();) {
    if (now - it->second.last_heard > options.session_timeout) {
      DropSession(it->first);
      it = peers.erase(it);
      continue;
    }
    if (!it->second.collector.empty()) ++collectors;
    ++it;
  }
  Counters::Set(counters.collectors, collectors);
}

void Aggregator::State::FlushPositions() {
  if (durable_dirty.empty()) return;
  ConsumerPositionsItem item;
  item.positions.assign(durable_dirty.begin(), durable_dirty.end());
  durable_dirty.clear();
  queue.Push(std::move(item));
}

void Aggregator::State::Serve() {
  auto next_flush = Clock::now() + kPositionFlushInterval;
  auto next_sweep = Clock::now() + kSweepInterval;
  auto next_stats = Clock::now() + options.stats_interval;
  auto timeout = kIdlePoll;
  while (!stop.load()) {
    zmq_pollitem_t items[2] = {{nullptr, wakeup.fd(), ZMQ_POLLIN, 0},
                               {router.get(), 0, ZMQ_POLLIN, 0}};
    const bool reading = !queue.Full();
    if (zmq_poll(items, reading ? 2 : 1, static_cast<long>(timeout.count())) < 0 &&
        zmq_errno() == ETERM) {
      break;
    }
    if (items[0].revents & ZMQ_POLLIN) wakeup.Clear();
    if (clients.version() != admitted_version) AdmitReplacedClients();
    TakeCommits();
    TakeReplays();
    if (reading && (items[1].revents & ZMQ_POLLIN)) {
      for (size_t i = 0; i < kReceivesPerTurn && !queue.Full(); ++i) {
        int events = 0;
        size_t size = sizeof(events);
        zmq_getsockopt(router.get(), ZMQ_EVENTS, &events, &size);
        if ((events & ZMQ_POLLIN) == 0) break;
        ReceiveOne();
      }
    }
    timeout = PumpAll();
    const auto now = Clock::now();
    Heartbeats(now);
    if (now >= next_flush) {
      FlushPositions();
      next_flush = now + kPositionFlushInterval;
    }
    if (now >= next_sweep) {
      Sweep(now);
      next_sweep = now + kSweepInterval;
    }
    if (options.stats_interval.count() > 0 && now >= next_stats) {
      spdlog::info("stats {}", Snapshot().ToJson());
      next_stats = now + options.stats_interval;
    }
  }
}

AggregatorStats Aggregator::State::Snapshot() const {
  AggregatorStats s;
  s.events_received = Counters::Get(counters.events_received);
  s.events_committed = Counters::Get(counters.events_committed);
  s.duplicate_events = Counters::Get(counters.duplicate_events);
  s.events_sent = Counters::Get(counters.events_sent);
  s.batches_committed = Counters::Get(counters.batches_committed);
  s.commits = Counters::Get(counters.commits);
  s.commit_failures = Counters::Get(counters.commit_failures);
  s.commit_latency_us_last = Counters::Get(counters.commit_us_last);
  s.commit_latency_us_max = Counters::Get(counters.commit_us_max);
  s.commit_latency_us_mean = s.commits == 0 ? 0 : Counters::Get(counters.commit_us_total) / s.commits;
  s.collectors = Counters::Get(counters.collectors);
  s.consumers = Counters::Get(counters.consumers);
  s.refused_clients = zap ? zap->refused() : 0;
  s.errors_sent = Counters::Get(counters.errors_sent);
  s.last_id = Counters::Get(counters.last_id);
  s.queued_events = s.events_received > s.events_committed ? s.events_received - s.events_committed : 0;
  return s;
}

Result<std::unique_ptr<Aggregator>> Aggregator::Create(AggregatorOptions options) {
  if (!options.insecure && (!security::IsZ85Key(options.server_keys.public_key) ||
                            !security::IsZ85Key(options.server_keys.secret_key))) {
    return Status::Error(
        "the aggregator needs a CURVE server key pair (make one with `fathom keygen -o server`), "
        "or explicitly --insecure");
  }
  auto state = std::make_unique<State>(std::move(options));
  AggregatorOptions& o = state->options;
  FATHOM_ASSIGN_OR_RETURN(state->wakeup, Wakeup::Open());

  FATHOM_ASSIGN_OR_RETURN(std::unique_ptr<EventStore> writer, EventStore::Open(o.store));
  FATHOM_ASSIGN_OR_RETURN(auto consumer_positions, writer->ConsumerPositions());
  FATHOM_ASSIGN_OR_RETURN(uint64_t last_id, writer->LastId());
  StoreOptions read_only = o.store;
  read_only.read_only = true;
  FATHOM_ASSIGN_OR_RETURN(std::unique_ptr<EventStore> reader, EventStore::Open(read_only));
  FATHOM_ASSIGN_OR_RETURN(state->lookups, EventStore::Open(read_only));
  state->ring = EventRing(o.ring_capacity, last_id);
  Counters::Set(state->counters.last_id, last_id);
  state->durable.insert(consumer_positions.begin(), consumer_positions.end());
  state->commit_worker =
      std::make_unique<CommitWorker>(std::move(writer), state->queue, state->commits,
                                     state->counters, o.purge_acknowledged, consumer_positions);
  state->replay_worker = std::make_unique<ReplayWorker>(std::move(reader), state->replays);

  const std::string what = "the aggregator's socket on " + o.listen;
  FATHOM_ASSIGN_OR_RETURN(state->router, ZmqSocket::Open(state->context.get(), ZMQ_ROUTER, what));
  ZmqSocket& r = state->router;
  FATHOM_RETURN_IF_ERROR(r.SetInt(ZMQ_ROUTER_MANDATORY, 1, what));
  const int64_t max_frame = static_cast<int64_t>(o.max_frame_bytes);
  FATHOM_RETURN_IF_ERROR(r.Set(ZMQ_MAXMSGSIZE, &max_frame, sizeof(max_frame), what));
  FATHOM_RETURN_IF_ERROR(r.SetInt(ZMQ_SNDHWM, 10000, what));
  if (o.insecure) {
    spdlog::warn("--insecure: clients connect without CURVE keys and every client may collect "
                 "and subscribe to every path");
  } else {
    FATHOM_ASSIGN_OR_RETURN(state->zap,
                            security::ZapHandler::Start(state->context.get(), state->clients));
    FATHOM_RETURN_IF_ERROR(r.SetInt(ZMQ_CURVE_SERVER, 1, what));
    FATHOM_RETURN_IF_ERROR(r.SetString(ZMQ_CURVE_SECRETKEY, o.server_keys.secret_key, what));
    FATHOM_RETURN_IF_ERROR(r.SetString(ZMQ_ZAP_DOMAIN, "fathom", what));
  }
  if (zmq_bind(r.get(), o.listen.c_str()) != 0) {
    return security::ZmqError("binding " + o.listen +
                              " (is another aggregator listening there, or is the address wrong?)");
  }
  char bound[256] = {};
  size_t size = sizeof(bound);
  zmq_getsockopt(r.get(), ZMQ_LAST_ENDPOINT, bound, &size);
  state->endpoint = bound;
  return std::unique_ptr<Aggregator>(new Aggregator(std::move(state)));
}

Aggregator::Aggregator(std::unique_ptr<State> state) : state_(std::move(state)) {}

Aggregator::~Aggregator() {
  // Sockets close before the context terminates (State's member order).
  state_->router.Close();
  state_->zap.reset();
}

const std::string& Aggregator::endpoint() const { return state_->endpoint; }

void Aggregator::Stop() {
  state_->stop = true;
  state_->wakeup.Signal();
}

AggregatorStats Aggregator::Stats() const { return state_->Snapshot(); }

void Aggregator::ReplaceClients(security::ClientList clients) {
  if (state_->options.insecure) return;  // every client is admitted, no list applies
  state_->clients.Replace(std::move(clients));
  state_->wakeup.Signal();
}

Status Aggregator::Run() {
  State& s = *state_;
  if (s.ran) return Status::Error("Aggregator::Run() called twice");
  s.ran = true;
  spdlog::info("aggregating on {} into {}", s.endpoint, s.options.store.path);
  std::thread committer([&s] {
    NameThisThread("commit");
    s.commit_worker->Run();
  });
  std::thread replayer([&s] {
    NameThisThread("replay");
    s.replay_worker->Run();
  });
  s.Serve();
  s.FlushPositions();
  s.queue.Close();
  committer.join();
  s.replay_worker->Close();
  replayer.join();
  s.TakeCommits();  // acknowledgements of the last commits
  spdlog::info("aggregator stopped: {}", s.Snapshot().ToJson());
  return Status::Ok();
}

}  // namespace fathom::aggregator

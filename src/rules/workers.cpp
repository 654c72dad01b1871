// workers.cpp — Workers: lease, perform, record; renew leases.
#include "rules/workers.h"

#include <algorithm>
#include <chrono>

#include "rules/actions/endpoint.h"
#include "rules/actions/event_json.h"

namespace fathom::rules {
namespace {

Outcome ToOutcome(const ActionOutcome& a) {
  Outcome o;
  o.message = a.message;
  o.retry_after_ns = a.retry_after_ns;
  switch (a.kind) {
    case ActionOutcome::kSuccess: o.kind = Outcome::kSuccess; break;
    case ActionOutcome::kRetry: o.kind = Outcome::kRetry; break;
    case ActionOutcome::kPermanent:
    case ActionOutcome::kDisable: o.kind = Outcome::kPermanent; break;
  }
  return o;
}

}  // namespace

Workers::Workers(const RuleSet& set, Outbox& outbox, const RunnerOptions& options, RunnerCounters& counters,
                 ActionProcesses& processes)
    : set_(set), outbox_(outbox), options_(options), counters_(counters), processes_(processes) {
  for (const Rule& r : set_.rules) {
    const auto* hook = std::get_if<WebhookAction>(&r.action);
    if (hook == nullptr) continue;
    const std::string endpoint = EndpointOf(hook->url);
    endpoint_of_[r.name] = endpoint;
    const size_t bound = r.endpoint_concurrency != 0 ? r.endpoint_concurrency : set_.endpoint_concurrency;
    const auto [at, added] = endpoint_limit_.emplace(endpoint, bound);
    if (!added) at->second = std::min(at->second, bound);
  }
}

Workers::~Workers() { Stop(); }

int64_t Workers::Now() const { return options_.clock ? options_.clock() : NowNs(); }

void Workers::Start(size_t count) {
  for (size_t i = 0; i < count; ++i) threads_.emplace_back([this] { Work(); });
  threads_.emplace_back([this] { KeepLeases(); });
}

void Workers::Wake() {
  std::lock_guard<std::mutex> lock(mu_);
  ++wakes_;
  wake_.notify_all();
}

void Workers::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    wake_.notify_all();
  }
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

void Workers::SetPaused(std::set<std::string> rules) {
  std::lock_guard<std::mutex> lock(mu_);
  paused_ = std::move(rules);
}

void Workers::Pause(const std::string& rule) {
  std::lock_guard<std::mutex> lock(mu_);
  paused_.insert(rule);
}

size_t Workers::running() {
  std::lock_guard<std::mutex> lock(mu_);
  return running_.size();
}

void Workers::Work() {
  for (;;) {
    uint64_t seen = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return;
      seen = wakes_;
    }
    // Takes one delivery whose rule is not paused and under its concurrency, and whose endpoint
    // is under its bound; counted as running at once.
    auto leased = outbox_.Lease(1, Now(), set_.lease_ns, [&](const Delivery& d) {
      std::lock_guard<std::mutex> lock(mu_);
      if (paused_.count(d.rule) != 0) return false;
      return TakeLocked(d);
    });
    if (!leased.ok() && options_.log) options_.log("rules: cannot take a delivery: " + leased.status().message());
    if (leased.ok() && !leased->empty()) {
      Perform(leased->front());
      Release(leased->front());
      continue;
    }
    std::unique_lock<std::mutex> lock(mu_);
    wake_.wait_for(lock, options_.wait, [&] { return stopping_ || wakes_ != seen; });
  }
}

bool Workers::TakeLocked(const Delivery& d) {
  const Rule* rule = set_.Find(d.rule);
  size_t& n = per_rule_[d.rule];
  if (rule != nullptr && n >= rule->concurrency) return false;
  const auto endpoint = endpoint_of_.find(d.rule);
  if (endpoint != endpoint_of_.end() && per_endpoint_[endpoint->second] >= endpoint_limit_.at(endpoint->second)) {
    return false;
  }
  ++n;
  if (endpoint != endpoint_of_.end()) ++per_endpoint_[endpoint->second];
  running_.insert(d.id);
  return true;
}

void Workers::Release(const Delivery& d) {
  std::lock_guard<std::mutex> lock(mu_);
  --per_rule_[d.rule];
  if (const auto endpoint = endpoint_of_.find(d.rule); endpoint != endpoint_of_.end()) --per_endpoint_[endpoint->second];
  running_.erase(d.id);
}

std::optional<ActionOutcome> Workers::Disabled(const Rule& rule) {
  const auto* hook = std::get_if<WebhookAction>(&rule.action);
  if (hook == nullptr) return std::nullopt;
  auto disabled = outbox_.DisabledEndpointOf(rule.name, hook->url);
  if (!disabled.ok()) return ActionOutcome{ActionOutcome::kRetry, disabled.status().message(), std::nullopt};
  if (!disabled->has_value()) return std::nullopt;
  return ActionOutcome{ActionOutcome::kPermanent,
                       "the webhook " + hook->url + " is disabled (" + (*disabled)->reason + "): `fathom rules enable " +
                           rule.name + "` enables it, then `fathom rules replay --rule " + rule.name +
                           " --all` runs this delivery again",
                       std::nullopt};
}

void Workers::Perform(const Delivery& d) {
  const Rule* rule = set_.Find(d.rule);
  ActionOutcome result;
  std::optional<ActionOutcome> disabled = rule != nullptr ? Disabled(*rule) : std::nullopt;
  auto events = ParseEventsJson(d.payload);
  if (rule == nullptr) {
    result = {ActionOutcome::kPermanent, "rule " + d.rule + " is no longer in " + set_.source, std::nullopt};
  } else if (disabled) {
    result = std::move(*disabled);
  } else if (!events.ok()) {
    result = {ActionOutcome::kPermanent, "the delivery's events cannot be read: " + events.status().message(),
              std::nullopt};
  } else {
    DeliveryContext context;
    context.delivery_id = d.id;
    context.attempt = d.attempts;
    context.rule = d.rule;
    context.events = std::move(*events);
    pid_t group = 0;
    context.on_process = [&](pid_t pid) {
      group = pid;
      processes_.Started(pid, {d.rule, d.id, d.depth}, NowNs());
    };
    result = RunAction(rule->action, context);
    if (group > 0) processes_.Ended(group, NowNs());
    if (result.kind == ActionOutcome::kDisable) {
      const auto& hook = std::get<WebhookAction>(rule->action);
      Status s = outbox_.DisableEndpoint({d.rule, hook.url, result.message, Now()});
      if (options_.log) {
        options_.log("rules: rule " + d.rule + ": " + result.message + ": its webhook " + hook.url + " is disabled" +
                     (s.ok() ? " until `fathom rules enable " + d.rule + "`" : " for now; " + s.message()));
      }
    }
  }
  const RetryPolicy policy = rule != nullptr ? rule->retry : RetryPolicy{};
  Status finished = outbox_.Finish(d.id, ToOutcome(result), policy, Now(), d.attempts);
  if (!finished.ok()) {
    if (options_.log) options_.log("rules: " + finished.message());
    return;
  }
  auto now = outbox_.Get(d.id);
  const DeliveryState state = now.ok() && now->has_value() ? (*now)->state : DeliveryState::kWaiting;
  if (state == DeliveryState::kSucceeded) ++counters_.succeeded;
  if (state == DeliveryState::kWaiting) ++counters_.retried;
  if (state == DeliveryState::kDead) {
    ++counters_.dead;
    if (options_.log) options_.log("rules: delivery " + d.id + " of rule " + d.rule + " is dead: " + result.message);
  }
}

void Workers::KeepLeases() {
  const auto every = std::chrono::nanoseconds(std::max<int64_t>(set_.lease_ns / 3, 1'000'000));
  std::unique_lock<std::mutex> lock(mu_);
  while (!wake_.wait_for(lock, every, [&] { return stopping_; })) {
    std::vector<std::string> ids(running_.begin(), running_.end());
    if (ids.empty()) continue;
    lock.unlock();
    Status s = outbox_.Heartbeat(ids, Now() + set_.lease_ns);
    if (!s.ok() && options_.log) options_.log("rules: " + s.message());
    lock.lock();
  }
}

}  // namespace fathom::rules

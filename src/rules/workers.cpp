// workers.cpp — Workers: lease, perform, record; renew leases.
#include "rules/workers.h"

#include <chrono>

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
    : set_(set), outbox_(outbox), options_(options), counters_(counters), processes_(processes) {}

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
    // Takes one delivery whose rule is under its concurrency; counted as running at once.
    auto leased = outbox_.Lease(1, Now(), set_.lease_ns, [&](const Delivery& d) {
      const Rule* rule = set_.Find(d.rule);
      std::lock_guard<std::mutex> lock(mu_);
      if (paused_.count(d.rule) != 0) return false;
      size_t& n = per_rule_[d.rule];
      if (rule != nullptr && n >= rule->concurrency) return false;
      ++n;
      running_.insert(d.id);
      return true;
    });
    if (!leased.ok() && options_.log) options_.log("rules: cannot take a delivery: " + leased.status().message());
    if (leased.ok() && !leased->empty()) {
      Perform(leased->front());
      std::lock_guard<std::mutex> lock(mu_);
      --per_rule_[leased->front().rule];
      running_.erase(leased->front().id);
      continue;
    }
    std::unique_lock<std::mutex> lock(mu_);
    wake_.wait_for(lock, options_.wait, [&] { return stopping_ || wakes_ != seen; });
  }
}

void Workers::Perform(const Delivery& d) {
  const Rule* rule = set_.Find(d.rule);
  ActionOutcome result;
  bool disabled = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    disabled = disabled_.count(d.rule) != 0;
  }
  auto events = ParseEventsJson(d.payload);
  if (rule == nullptr) {
    result = {ActionOutcome::kPermanent, "rule " + d.rule + " is no longer in " + set_.source, std::nullopt};
  } else if (disabled) {
    result = {ActionOutcome::kPermanent, "the rule's endpoint asked to be called no more (HTTP 410 Gone)", std::nullopt};
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
    result = std::visit(
        [&](const auto& action) {
          if constexpr (std::is_same_v<std::decay_t<decltype(action)>, CommandAction>) {
            return RunCommandAction(action, context);
          } else {
            return RunWebhookAction(action, context);
          }
        },
        rule->action);
    if (group > 0) processes_.Ended(group, NowNs());
    if (result.kind == ActionOutcome::kDisable) {
      std::lock_guard<std::mutex> lock(mu_);
      disabled_.insert(d.rule);
      if (options_.log) options_.log("rules: rule " + d.rule + ": " + result.message + ": its webhook is disabled");
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

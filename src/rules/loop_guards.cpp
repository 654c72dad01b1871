// loop_guards.cpp — LoopGuards: causes from attrs and outputs; windows per path and per rule.
#include "rules/loop_guards.h"

#include <algorithm>
#include <charconv>
#include <string_view>

namespace fathom::rules {
namespace {

// The whole number after `"key":` in a flat JSON object, or 0.
pid_t Member(std::string_view attrs, std::string_view key) {
  const size_t at = attrs.find(key);
  if (at == std::string_view::npos) return 0;
  const char* p = attrs.data() + at + key.size();
  pid_t value = 0;
  auto [_, ec] = std::from_chars(p, attrs.data() + attrs.size(), value);
  return ec == std::errc() ? value : 0;
}

}  // namespace

Writer WriterOf(const Event& event) {
  if (event.attrs.empty()) return {};
  return {Member(event.attrs, "\"pid\":"), Member(event.attrs, "\"pgid\":")};
}

LoopGuards::LoopGuards(const RuleSet& set, const ActionProcesses& processes)
    : set_(set), processes_(processes), breakers_(set.rules.size()), tripped_(set.rules.size()) {
  for (const Rule& r : set.rules) {
    auto& globs = outputs_.emplace_back();
    for (const std::string& g : r.guard.outputs) globs.push_back(condition::Glob::Compile(g, condition::Glob::Mode::kPath));
  }
}

std::optional<EventCause> LoopGuards::CauseOf(const Event& event) const {
  const Writer w = WriterOf(event);
  if (w.pid > 0) {
    if (auto action = processes_.Find(w.pid, w.pgid, event.ts_ns)) {
      if (const Rule* r = set_.Find(action->rule)) {
        return EventCause{static_cast<size_t>(r - set_.rules.data()), action->depth, action->delivery};
      }
    }
  }
  for (size_t r = 0; r < outputs_.size(); ++r) {
    for (const condition::Glob& g : outputs_[r]) {
      if (g.Matches(event.path)) return EventCause{r, 0, ""};
    }
  }
  return std::nullopt;
}

bool LoopGuards::Ignores(size_t rule, const EventCause& cause) const {
  return cause.rule == rule && set_.rules[rule].guard.ignore_own;
}

void LoopGuards::SetPaused(size_t rule, bool paused) {
  if (tripped_[rule] && !paused) breakers_[rule] = {};
  tripped_[rule] = paused;
}

LoopGuards::Admission LoopGuards::Admit(size_t rule, const std::string& path, int depth, int64_t now_ns) {
  Admission a;
  const Rule& r = set_.rules[rule];
  if (depth > set_.max_cascade) {
    a.dead_reason = "not run: the event was caused by an action " + std::to_string(depth) +
                    " actions deep, past max_cascade " + std::to_string(set_.max_cascade) +
                    " (a loop of rules?); `fathom rules replay` runs it";
  }
  if (r.guard.rate_max > 0) {
    // GCRA: deliveries are spaced per/max apart on average, with a burst of max at once.
    const int64_t spacing = std::max<int64_t>(r.guard.rate_per_ns / static_cast<int64_t>(r.guard.rate_max), 1);
    const int64_t tolerance = r.guard.rate_per_ns - spacing;
    int64_t& due = rates_[{rule, path}];
    due = std::max(due, now_ns);
    if (due - tolerance > now_ns) a.not_before_ns = due - tolerance;
    due += spacing;
    if (rates_.size() > 100000) std::erase_if(rates_, [&](const auto& kv) { return kv.second < now_ns; });
  }
  if (r.guard.breaker_max > 0) {
    Window& w = breakers_[rule];
    if (now_ns >= w.start_ns + r.guard.breaker_per_ns || now_ns < w.start_ns) w = {now_ns, 0};
    if (++w.count > r.guard.breaker_max && !tripped_[rule]) {
      tripped_[rule] = true;
      a.trip = "more than " + std::to_string(r.guard.breaker_max) + " deliveries within " +
               std::to_string(r.guard.breaker_per_ns / 1'000'000'000) + " s (breaker); its deliveries wait for "
               "`fathom rules resume " + r.name + "`";
    }
  }
  return a;
}

}  // namespace fathom::rules

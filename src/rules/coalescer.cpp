// coalescer.cpp — Coalescer: settle, max_wait, sentinel, cancel, collapse, batch.
#include "rules/coalescer.h"

#include <algorithm>

namespace fathom::rules {
namespace {

constexpr uint32_t kAppears = kind::kCreate | kind::kMovedTo;
constexpr uint32_t kGoes = kind::kDelete | kind::kMovedFrom;
constexpr uint32_t kSentinelKinds = kind::kCreate | kind::kCloseWrite | kind::kMovedTo;

std::string_view DirectoryOf(std::string_view path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return "";
  return slash == 0 ? path.substr(0, 1) : path.substr(0, slash);
}

std::string_view NameOf(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

void AddIds(std::vector<uint64_t>& to, const std::vector<uint64_t>& from) {
  const size_t middle = to.size();
  to.insert(to.end(), from.begin(), from.end());
  std::inplace_merge(to.begin(), to.begin() + static_cast<std::ptrdiff_t>(middle), to.end());
}

}  // namespace

Coalescer::Coalescer(std::vector<Coalescing> rules, size_t max_held) : rules_(std::move(rules)), max_held_(max_held) {
  for (const Coalescing& c : rules_) {
    sentinels_.push_back(c.sentinel.empty() ? std::nullopt
                                            : std::optional(condition::Glob::Compile(c.sentinel, condition::Glob::Mode::kName)));
  }
}

void Coalescer::Add(size_t rule, const Event& event) {
  const bool by_directory = sentinels_[rule].has_value();
  Key key{rule, std::string(by_directory ? DirectoryOf(event.path) : std::string_view(event.path))};
  auto [it, added] = held_.try_emplace(key);
  Held& h = it->second;
  if (added) {
    h.group.rule = rule;
    h.group.key = key.second;
    h.first_ns = event.ts_ns;
  }
  h.last_ns = std::max(h.last_ns, event.ts_ns);
  std::vector<Event>& events = h.group.events;
  if ((event.mask & kGoes) != 0) {
    // Created (or moved in) while held, and gone again: nothing happened to deliver.
    const bool appeared = std::any_of(events.begin(), events.end(), [&](const Event& e) {
      return e.path == event.path && (e.mask & kAppears) != 0;
    });
    if (appeared) {
      std::vector<Event> rest;
      for (Event& e : events) {
        if (e.path != event.path) rest.push_back(std::move(e));
      }
      cancelled_ += events.size() - rest.size() + 1;
      if (rest.empty()) {
        held_.erase(it);
        return;
      }
      // A directory's group keeps its other paths; the cancelled ids go with them (they are
      // consumed: the cursor may pass them once the group is delivered).
      events = std::move(rest);
      h.group.ids.push_back(event.id);
      return;
    }
  }
  auto same = std::find_if(events.begin(), events.end(), [&](const Event& e) {
    return e.path == event.path && (e.mask & kind::kAll) == (event.mask & kind::kAll);
  });
  if (same != events.end()) events.erase(same);  // collapsed into the newest
  events.push_back(event);
  h.group.ids.push_back(event.id);
  if (by_directory && (event.mask & kSentinelKinds) != 0 && sentinels_[rule]->Matches(NameOf(event.path))) {
    h.sentinel_seen = true;
  }
}

bool Coalescer::Ready(const Held& h, int64_t now_ns) const {
  const Coalescing& c = rules_[h.group.rule];
  if (c.max_wait_ns > 0 && now_ns - h.first_ns >= c.max_wait_ns) return true;
  if (sentinels_[h.group.rule]) return h.sentinel_seen;
  return now_ns - h.last_ns >= c.settle_ns;
}

void Coalescer::Release(Held&& h, int64_t now_ns, std::vector<Group>& out) {
  const Coalescing& c = rules_[h.group.rule];
  if (c.batch_max <= 1) {
    out.push_back(std::move(h.group));
    return;
  }
  auto [it, added] = batches_.try_emplace(h.group.rule);
  Batch& b = it->second;
  if (added) {
    b.group = std::move(h.group);
    b.first_ns = now_ns;
  } else {
    b.group.events.insert(b.group.events.end(), h.group.events.begin(), h.group.events.end());
    AddIds(b.group.ids, h.group.ids);
  }
  if (++b.groups >= c.batch_max) {
    out.push_back(std::move(b.group));
    batches_.erase(it);
  }
}

void Coalescer::TakeReady(int64_t now_ns, std::vector<Group>& out) {
  // Ready groups, and past max_held the oldest, in the order of their first id.
  std::vector<std::map<Key, Held>::iterator> ready;
  for (auto it = held_.begin(); it != held_.end(); ++it) {
    if (Ready(it->second, now_ns)) ready.push_back(it);
  }
  if (held_.size() - ready.size() > max_held_) {
    std::vector<std::map<Key, Held>::iterator> waiting;
    for (auto it = held_.begin(); it != held_.end(); ++it) {
      if (!Ready(it->second, now_ns)) waiting.push_back(it);
    }
    const size_t early = waiting.size() - max_held_;
    std::partial_sort(waiting.begin(), waiting.begin() + static_cast<std::ptrdiff_t>(early), waiting.end(),
                      [](auto a, auto b) { return a->second.group.ids.front() < b->second.group.ids.front(); });
    ready.insert(ready.end(), waiting.begin(), waiting.begin() + static_cast<std::ptrdiff_t>(early));
  }
  std::sort(ready.begin(), ready.end(),
            [](auto a, auto b) { return a->second.group.ids.front() < b->second.group.ids.front(); });
  for (auto it : ready) {
    std::sort(it->second.group.events.begin(), it->second.group.events.end(),
              [](const Event& a, const Event& b) { return a.id < b.id; });
    Release(std::move(it->second), now_ns, out);
    held_.erase(it);
  }
  // Batches whose time is up.
  for (auto it = batches_.begin(); it != batches_.end();) {
    if (now_ns - it->second.first_ns >= rules_[it->first].batch_wait_ns) {
      out.push_back(std::move(it->second.group));
      it = batches_.erase(it);
    } else {
      ++it;
    }
  }
}

std::optional<uint64_t> Coalescer::HeldFrom() const {
  std::optional<uint64_t> from;
  auto consider = [&](const Group& g) {
    if (!g.ids.empty() && (!from || g.ids.front() < *from)) from = g.ids.front();
  };
  for (const auto& [key, h] : held_) consider(h.group);
  for (const auto& [rule, b] : batches_) consider(b.group);
  return from;
}

std::optional<int64_t> Coalescer::NextDue() const {
  std::optional<int64_t> due;
  auto consider = [&](int64_t t) {
    if (!due || t < *due) due = t;
  };
  for (const auto& [key, h] : held_) {
    const Coalescing& c = rules_[h.group.rule];
    if (c.max_wait_ns > 0) consider(h.first_ns + c.max_wait_ns);
    if (!sentinels_[h.group.rule]) consider(h.last_ns + c.settle_ns);
  }
  for (const auto& [rule, b] : batches_) consider(b.first_ns + rules_[rule].batch_wait_ns);
  return due;
}

}  // namespace fathom::rules

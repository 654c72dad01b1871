// rules_match_benchmark: how many events per second one core matches against 1, 100 and
// 10,000 rules, through RuleIndex and by trying every rule (the way a rule engine without an
// index works: Ripple's agent, incron's table). Rules are per-project trees
// (/lab/pN/raw/**.h5 on CLOSE_WRITE and MOVED_TO, one in ten ignoring **/*.tmp) and three
// that watch everything (**/*.done on CLOSE_WRITE, DELETE anywhere, /lab/*/inbox/** on
// CREATE); events fall in twice as many projects as there are rules, at depths 3 to 6.
// Run: build/rules_match_benchmark
#include <benchmark/benchmark.h>

#include <random>

#include "condition/glob.h"
#include "fathom/rules.h"

namespace {

using fathom::Event;
using fathom::rules::RuleIndex;
using fathom::rules::Trigger;
namespace kind = fathom::kind;

std::vector<Trigger> Rules(size_t n) {
  std::vector<Trigger> rules;
  const size_t per_project = n > 3 ? n - 3 : n;
  for (size_t i = 0; i < per_project; ++i) {
    Trigger t;
    t.kinds = kind::kCloseWrite | kind::kMovedTo;
    t.paths = {"/lab/p" + std::to_string(i) + "/raw/**.h5"};
    if (i % 10 == 0) t.ignore = {"**/*.tmp"};
    rules.push_back(std::move(t));
  }
  if (n > 3) {
    Trigger done;
    done.kinds = kind::kCloseWrite;
    done.paths = {"**/*.done"};
    Trigger deleted;
    deleted.kinds = kind::kDelete;
    Trigger inbox;
    inbox.kinds = kind::kCreate;
    inbox.paths = {"/lab/*/inbox/**"};
    rules.push_back(std::move(done));
    rules.push_back(std::move(deleted));
    rules.push_back(std::move(inbox));
  }
  return rules;
}

std::vector<Event> Events(size_t rules, size_t count) {
  std::mt19937 rng(42);
  auto pick = [&](size_t k) { return std::uniform_int_distribution<size_t>(0, k - 1)(rng); };
  const char* dirs[] = {"raw", "inbox", "out", "tmp", "run1", "run2"};
  const char* files[] = {"a.h5", "b.h5", "c.tmp", "log.txt", "x.done", "frame.dat"};
  const uint32_t kinds[] = {kind::kCloseWrite, kind::kCloseWrite, kind::kMovedTo, kind::kCreate, kind::kModify,
                            kind::kDelete};
  std::vector<Event> events(count);
  for (Event& e : events) {
    e.path = "/lab/p" + std::to_string(pick(2 * rules));
    const size_t depth = 1 + pick(4);
    for (size_t d = 0; d < depth; ++d) e.path += std::string("/") + dirs[pick(6)];
    e.path += std::string("/") + files[pick(6)];
    e.mask = kinds[pick(6)];
  }
  return events;
}

std::vector<const Trigger*> Pointers(const std::vector<Trigger>& rules) {
  std::vector<const Trigger*> out;
  for (const Trigger& t : rules) out.push_back(&t);
  return out;
}

void BM_RuleIndex(benchmark::State& state) {
  const auto rules = Rules(static_cast<size_t>(state.range(0)));
  const auto events = Events(rules.size(), 100000);
  RuleIndex index(Pointers(rules));
  std::vector<size_t> out;
  size_t matched = 0;
  for (auto _ : state) {
    for (const Event& e : events) {
      out.clear();
      index.Candidates(e, out);
      matched += out.size();
    }
  }
  benchmark::DoNotOptimize(matched);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * events.size()));
  state.counters["matches_per_event"] =
      static_cast<double>(matched) / static_cast<double>(state.iterations() * events.size());
}
BENCHMARK(BM_RuleIndex)->Arg(1)->Arg(100)->Arg(10000)->Unit(benchmark::kMillisecond);

// Every rule tried on every event: kinds first, then its globs and ignore globs.
void BM_EveryRule(benchmark::State& state) {
  using fathom::condition::Glob;
  const auto rules = Rules(static_cast<size_t>(state.range(0)));
  const auto events = Events(rules.size(), state.range(0) >= 10000 ? 2000 : 100000);
  std::vector<std::vector<Glob>> globs, ignore;
  for (const Trigger& t : rules) {
    globs.emplace_back();
    ignore.emplace_back();
    for (const auto& p : t.paths) globs.back().push_back(Glob::Compile(p, Glob::Mode::kPath));
    for (const auto& p : t.ignore) ignore.back().push_back(Glob::Compile(p, Glob::Mode::kPath));
  }
  size_t matched = 0;
  for (auto _ : state) {
    for (const Event& e : events) {
      for (size_t i = 0; i < rules.size(); ++i) {
        if ((rules[i].kinds & e.mask) == 0) continue;
        bool in = globs[i].empty();
        for (const Glob& g : globs[i]) in = in || g.Matches(e.path);
        for (const Glob& g : ignore[i]) in = in && !g.Matches(e.path);
        matched += in;
      }
    }
  }
  benchmark::DoNotOptimize(matched);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * events.size()));
}
BENCHMARK(BM_EveryRule)->Arg(1)->Arg(100)->Arg(10000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

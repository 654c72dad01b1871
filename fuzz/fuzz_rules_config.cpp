// fuzz_rules_config — the rules file's loader on arbitrary YAML: it must either fail with a
// message naming the source, or give rules whose index, conditions and coalescing take events
// without failing (and every rule a version of 32 hexadecimal digits).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "rules/coalescer.h"
#include "rules/matcher.h"
#include "rules/rule_set.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto set = fathom::rules::ParseRuleSet(text, "fuzz.yaml");
  if (!set.ok()) {
    if (set.status().message().rfind("fuzz.yaml", 0) != 0) {
      std::fprintf(stderr, "fuzz_rules_config: an error without its source: %s\n", set.status().message().c_str());
      std::abort();
    }
    return 0;
  }
  std::vector<fathom::rules::Coalescing> coalescing;
  for (const fathom::rules::Rule& r : set->rules) {
    if (r.version.size() != 32) std::abort();
    coalescing.push_back(r.coalescing);
  }
  fathom::rules::Matcher matcher(*set, nullptr);
  fathom::rules::Coalescer coalescer(std::move(coalescing));
  std::vector<size_t> taken;
  std::vector<fathom::rules::Group> ready;
  uint64_t id = 0;
  for (const char* path : {"/lab/raw/a.h5", "/lab/raw/x.done", "/", "/a/b/c/d"}) {
    for (uint32_t mask : {fathom::kind::kCreate, fathom::kind::kCloseWrite, fathom::kind::kDelete}) {
      fathom::Event e;
      e.id = ++id;
      e.ts_ns = static_cast<int64_t>(id) * 1000000000;
      e.mask = mask;
      e.path = path;
      taken.clear();
      matcher.Match(e, 1800000000000000000, taken);
      for (size_t r : taken) coalescer.Add(r, e);
      for (size_t r = 0; r < set->rules.size(); ++r) (void)matcher.Explain(e, r, 1800000000000000000);
    }
  }
  coalescer.TakeReady(INT64_MAX / 2, ready);
  return 0;
}

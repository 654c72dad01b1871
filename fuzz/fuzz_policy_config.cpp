// fuzz_policy_config — the policy configuration's loader on arbitrary YAML: it must either
// fail with a message naming the source, or give file classes, policies and alerts that every
// subject can be decided and tested against (no class defined through itself, every class
// named defined).
#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fathom/policy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto config = fathom::policy::ParsePolicyConfig(text, "fuzz.yaml");
  if (!config.ok()) {
    if (config.status().message().rfind("fuzz.yaml", 0) != 0) {
      std::fprintf(stderr, "fuzz_policy_config: an error without its source: %s\n", config.status().message().c_str());
      std::abort();
    }
    return 0;
  }
  fathom::catalog::Attrs file;
  file.mode = S_IFREG | 0644;
  file.size = 4096;
  file.mtime_ns = file.atime_ns = file.ctime_ns = 1700000000000000000;
  fathom::condition::Subject s;
  s.path = "/scratch/a/b.tmp";
  s.attrs = &file;
  for (const std::string& name : config->fileclasses.Names()) {
    (void)config->fileclasses.Contains(name, s, 1800000000000000000);
    fathom::catalog::Selection selection;
    config->fileclasses.Narrow(name, selection, 1800000000000000000);
  }
  for (const fathom::policy::Policy& p : config->policies) {
    (void)fathom::policy::Decide(p, config->fileclasses, s, 1800000000000000000);
  }
  for (const fathom::policy::AlertRule& a : config->alerts) {
    if (a.condition) (void)a.condition->Matches(s, 1800000000000000000);
  }
  return 0;
}

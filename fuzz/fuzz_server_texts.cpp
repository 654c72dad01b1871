// fuzz_server_texts — the sampler's other readers on arbitrary input: /proc/diskstats,
// /proc/self/mountstats and lctl get_param's output (the first byte chooses). Never a crash
// or a read outside the input; every problem names a line of it; every target has a name and
// every parameter a name; a parameter's value holds nothing that was not in the input.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "iotrace/servers/lctl_output.h"
#include "iotrace/servers/local_stats_text.h"
#include "stats_text_checks.h"

using fathom::fuzz::Violated;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 3) {
    case 0:
    case 1: {
      const fathom::io::LocalStats s =
          data[0] % 3 == 0 ? fathom::io::ParseDiskstats(text) : fathom::io::ParseMountstats(text);
      fathom::fuzz::ProblemsNameLinesOf(text, s.problems);
      for (const auto& [target, counters] : s.targets) {
        if (target.find(':') == std::string::npos) Violated("a target without its kind");
        for (const auto& [name, c] : counters) {
          if (name.empty()) Violated("a counter without a name");
          if (c.unit != "bytes" && c.unit != "usecs") Violated("a counter of an unknown unit");
        }
      }
      break;
    }
    case 2: {
      size_t kept = 0;
      for (const auto& p : fathom::io::SplitLctlOutput(text)) {
        if (p.name.empty()) Violated("a parameter without a name");
        if (p.name.find('\n') != std::string::npos) Violated("a name across lines");
        kept += p.name.size() + 1 + p.value.size();
      }
      if (kept > text.size()) Violated("more text out than in");
      break;
    }
  }
  return 0;
}

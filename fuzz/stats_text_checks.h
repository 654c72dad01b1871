// stats_text_checks.h — what the fuzzers of Lustre's statistics text check alike: a violated
// property aborts with its name, and every problem reported names a line of the input.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "framed_input.h"
#include "lustre/stats_text.h"

namespace fathom::fuzz {

inline void ProblemsNameLinesOf(std::string_view text,
                                const std::vector<lustre::TextProblem>& problems) {
  size_t lines = 1;
  for (char c : text) lines += c == '\n' ? 1 : 0;
  for (const auto& p : problems) {
    if (p.line == 0 || p.line > lines) Violated("a problem outside the text's lines");
  }
}

}  // namespace fathom::fuzz

// fuzz_condition — the condition language's parser on arbitrary text, then what it accepts
// printed, parsed again and evaluated.
//
// Parse() must either fail with a message naming a line and a column, or give a condition
// whose canonical form (ToString) parses back to the same canonical form; an accepted
// condition is evaluated on a file and a directory with every optional fact known, and
// narrowed into a catalog selection.
#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fathom/condition.h"

namespace {

using fathom::catalog::Attrs;
using fathom::condition::Condition;
using fathom::condition::Subject;

void Fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_condition: %s: %s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto parsed = Condition::Parse(text, "fuzz");
  if (!parsed.ok()) {
    if (parsed.status().message().find(": line ") == std::string::npos) Fail("an error without a line", parsed.status().message());
    return 0;
  }
  const std::string canonical = parsed->ToString();
  auto again = Condition::Parse(canonical, "canonical");
  if (!again.ok()) Fail("the canonical form does not parse", canonical + " -> " + again.status().message());
  if (again->ToString() != canonical) Fail("the canonical form changed", canonical + " -> " + again->ToString());

  Attrs file;
  file.mode = S_IFREG | 0640;
  file.uid = 1000;
  file.gid = 100;
  file.nlink = 2;
  file.size = 4096;
  file.blocks = 8;
  file.atime_ns = file.mtime_ns = file.ctime_ns = 1700000000000000000;
  file.projid = 7;
  file.lustre = fathom::catalog::LustreInfo{"[0x200000400:0x1:0x0]", 1, 2, 1048576, "fast", {0, 3}};
  Attrs dir = file;
  dir.mode = S_IFDIR | 0755;
  Subject s;
  s.depth = 3;
  s.dircount = 12;
  s.creation_ns = 1600000000000000000;
  s.rm_time_ns = 1750000000000000000;
  s.xattr = [](std::string_view name) -> std::optional<std::string> {
    return name.size() % 2 ? std::optional<std::string>("value") : std::nullopt;
  };
  s.in_class = [](std::string_view name) { return name.size() % 2 == 0; };
  s.user_name = [](uint32_t) -> std::optional<std::string> { return std::string("user"); };
  s.group_name = [](uint32_t) -> std::optional<std::string> { return std::nullopt; };
  for (const Attrs* attrs : {&file, &dir}) {
    s.attrs = attrs;
    s.path = attrs == &file ? "/fs/a b/c.h5" : "/fs/a b";
    (void)parsed->Matches(s, 1800000000000000000);
  }
  fathom::catalog::Selection selection;
  parsed->Narrow(selection, 1800000000000000000);
  for (const auto& test : selection.name_tests) (void)test("c.h5");
  return 0;
}

// fuzz_find_expression — find's command-line parser on arbitrary arguments, then the parsed
// expression evaluated on a few synthetic entries.
//
// Input: arguments separated by NUL bytes. Parse() must either fail with a message or give
// an expression with a root; an accepted expression that neither runs commands nor deletes
// is evaluated on a file, a directory and a symbolic link (printing into memory). Reference
// files resolve to fixed attributes; output files are in memory.
#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "catalog/find/expression.h"
#include "core/account_names.h"
#include "catalog/find/parser.h"

namespace {

using fathom::catalog::Attrs;
using fathom::catalog::Node;
namespace find = fathom::catalog::find;

Attrs MakeAttrs(uint32_t mode, int64_t size, const char* target) {
  Attrs a;
  a.dev = 1;
  a.ino = static_cast<uint64_t>(mode) + 7;
  a.mode = mode;
  a.uid = 1;
  a.gid = 4;
  a.nlink = 2;
  a.size = size;
  a.blocks = (size + 511) / 512;
  a.mtime_ns = 1700000000123456789LL;
  a.atime_ns = a.mtime_ns - 86400000000000LL;
  a.ctime_ns = a.mtime_ns + 1;
  a.symlink = target;
  return a;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> args;
  std::string current;
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      args.push_back(current);
      current.clear();
    } else {
      current += static_cast<char>(data[i]);
    }
  }
  args.push_back(current);
  if (args.size() > 64) return 0;

  fathom::NameCache names;
  find::ParseEnvironment env;
  env.now_ns = 1700000000000000000LL;
  env.names = &names;
  env.reference = [](std::string_view path) -> fathom::Result<Attrs> {
    if (path.empty() || path[0] == 'x') return fathom::Status::Error("no such reference");
    return MakeAttrs(S_IFREG | 0644, 10, "");
  };
  env.open_output = [](const std::string&) -> fathom::Result<std::shared_ptr<std::ostream>> {
    return std::shared_ptr<std::ostream>(std::make_shared<std::ostringstream>());
  };
  std::vector<std::string> warnings;
  auto expr = find::Parse(args, env, &warnings);
  if (!expr.ok()) {
    if (expr.status().message().empty()) {
      std::fprintf(stderr, "property violated: a refused command line without a message\n");
      std::abort();
    }
    return 0;
  }
  if (!expr->root || expr->starts.empty()) {
    std::fprintf(stderr, "property violated: an accepted expression without a root or a start\n");
    std::abort();
  }
  for (find::Predicate* p : expr->predicates) {
    std::string_view n = p->Name();
    if (n == "-exec" || n == "-execdir" || n == "-ok" || n == "-okdir" || n == "-delete") return 0;
  }
  std::ostringstream out, err;
  find::EvalContext ctx;
  ctx.names = &names;
  ctx.out = &out;
  ctx.err = &err;
  ctx.dir_is_empty = [](const Node& n) -> fathom::Result<bool> { return n.attrs.size == 0; };
  ctx.stat_follow = [](std::string_view) { return find::Followed{MakeAttrs(S_IFDIR | 0755, 4096, ""), false}; };
  const Node nodes[] = {
      {2, 1, "file name", MakeAttrs(S_IFREG | 04755, 1048577, "")},
      {3, 1, "dir", MakeAttrs(S_IFDIR | 01777, 0, "")},
      {4, 1, "link", MakeAttrs(S_IFLNK | 0777, 7, "../target")},
  };
  const std::string paths[] = {"./start/file name", "./start/dir", "./start/link"};
  for (int i = 0; i < 3; ++i) {
    find::Entry e{nodes[i], paths[i], "/abs/start/x", "./start", i + 1};
    find::Evaluate(*expr->root, e, ctx);
  }
  (void)find::FinishAll(*expr, ctx);
  return 0;
}

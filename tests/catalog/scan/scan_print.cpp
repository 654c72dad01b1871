// scan_print — scans a tree with the catalog scanner and prints one record per name in the
// format of `find ROOT -printf '%p\t%i\t%s\t%m\t%U\t%G\t%n\t%T@\t%D\t%l\0'`, so that the tests
// can compare the scanner with GNU find record for record (also as another user, through
// setpriv). Problems go to stderr as "problem\t<errno>\t<path>" lines.
//
// Usage: scan_print [--cross] [--threads N] [--chunk N] ROOT...
#include <sys/stat.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "catalog/scan/scanner.h"

namespace {

using fathom::scan::ScanChunk;
using fathom::scan::ScanProblem;

void PrintRecord(const std::string& path, const fathom::catalog::Attrs& a) {
  std::printf("%s\t%" PRIu64 "\t%" PRId64 "\t%o\t%u\t%u\t%" PRIu64 "\t%" PRId64 ".%09" PRId64
              "0\t%" PRIu64 "\t%s",
              path.c_str(), a.ino, a.size, a.mode & 07777u, a.uid, a.gid, a.nlink,
              a.mtime_ns / 1'000'000'000, a.mtime_ns % 1'000'000'000, a.dev, a.symlink.c_str());
  std::fputc('\0', stdout);
}

class PrintSink : public fathom::scan::ScanSink {
 public:
  void OnChunk(ScanChunk&& chunk) override {
    if (chunk.first && chunk.parent_token == 0) PrintRecord(chunk.path, chunk.attrs);
    for (const auto& e : chunk.entries) {
      PrintRecord(chunk.path == "/" ? "/" + e.name : chunk.path + "/" + e.name, e.attrs);
    }
  }
  void OnProblem(ScanProblem&& p) override {
    std::fprintf(stderr, "problem\t%d\t%s\n", p.error, p.path.c_str());
  }
};

}  // namespace

int main(int argc, char** argv) {
  fathom::scan::ScanOptions options;
  std::vector<std::string> roots;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--cross") == 0) {
      options.cross_devices = true;
    } else if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      options.threads = static_cast<unsigned>(std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--chunk") == 0 && i + 1 < argc) {
      options.chunk_entries = static_cast<size_t>(std::atoi(argv[++i]));
    } else {
      roots.emplace_back(argv[i]);
    }
  }
  PrintSink sink;
  fathom::scan::Scanner scanner(options);
  fathom::Status st = scanner.Run(roots, sink);
  if (!st.ok()) {
    std::fprintf(stderr, "scan_print: %s\n", st.message().c_str());
    return 1;
  }
  return 0;
}

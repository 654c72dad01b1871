#include "synthetic_catalog.h"

#include <sys/stat.h>

#include <cstdlib>
#include <vector>

namespace fathom::bench {
namespace {

using catalog::Attrs;
using catalog::Catalog;
using catalog::EntryId;
using catalog::Observation;

constexpr int kFanOut = 100;
constexpr int64_t kEntriesPerCommit = 100000;

Attrs MakeAttrs(uint64_t ino, bool dir) {
  Attrs a;
  a.dev = 2049;
  a.ino = ino;
  a.mode = dir ? (S_IFDIR | 0755) : (S_IFREG | 0644);
  a.uid = 1000 + static_cast<uint32_t>(ino % 7);
  a.gid = 100;
  a.nlink = dir ? 2 : 1;
  a.size = dir ? 4096 : static_cast<int64_t>((ino * 2654435761u) % (1 << 20));
  a.blocks = (a.size + 511) / 512;
  a.atime_ns = a.mtime_ns = a.ctime_ns = 1700000000000000000 + static_cast<int64_t>(ino) * 1000;
  return a;
}

}  // namespace

void PutSyntheticTree(Catalog& catalog, int64_t total, const std::string& root) {
  const Observation seen{1700000000000000000, 1};
  auto batch = catalog.Begin().value();
  uint64_t ino = 1;
  int64_t in_batch = 0;
  std::vector<EntryId> level{batch->PutRoot(root, MakeAttrs(ino++, true), seen).value()};
  int64_t done = 1;
  auto put = [&](EntryId parent, const std::string& name, bool dir) {
    EntryId id = batch->Put(parent, name, MakeAttrs(ino++, dir), seen).value();
    if (++in_batch == kEntriesPerCommit) {
      if (!batch->Commit().ok()) abort();
      batch = catalog.Begin().value();
      in_batch = 0;
    }
    ++done;
    return id;
  };
  while (done < total && !level.empty()) {
    std::vector<EntryId> next;
    for (EntryId dir : level) {
      for (int f = 0; f < kFanOut && done < total; ++f) put(dir, "file-" + std::to_string(f) + ".dat", false);
      for (int d = 0; d < kFanOut && done < total; ++d) next.push_back(put(dir, "dir-" + std::to_string(d), true));
    }
    level = std::move(next);
  }
  if (!batch->Commit().ok()) abort();
}

}  // namespace fathom::bench

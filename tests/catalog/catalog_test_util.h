// catalog_test_util.h — attributes of made-up objects and a catalog in a test directory,
// shared by the catalog tests. Header-only; one thread.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <memory>
#include <string>

#include "fathom/catalog.h"

namespace fathom::testing {

inline catalog::Attrs FileAttrs(uint64_t ino, int64_t size, uint32_t uid = 1000,
                                uint64_t nlink = 1, int64_t mtime_ns = 1000) {
  catalog::Attrs a;
  a.dev = 42;
  a.ino = ino;
  a.mode = S_IFREG | 0644;
  a.uid = uid;
  a.gid = 100;
  a.nlink = nlink;
  a.size = size;
  a.blocks = (size + 511) / 512;
  a.mtime_ns = mtime_ns;
  return a;
}

inline catalog::Attrs DirAttrs(uint64_t ino, uint32_t uid = 1000, int64_t mtime_ns = 1000) {
  catalog::Attrs a = FileAttrs(ino, 4096, uid, 2, mtime_ns);
  a.mode = S_IFDIR | 0755;
  a.blocks = 8;
  return a;
}

inline catalog::Attrs SymlinkAttrs(uint64_t ino, const std::string& target) {
  catalog::Attrs a = FileAttrs(ino, static_cast<int64_t>(target.size()));
  a.mode = S_IFLNK | 0777;
  a.blocks = 0;
  a.symlink = target;
  return a;
}

inline catalog::Observation At(int64_t time_ns, uint64_t generation = 0) {
  return catalog::Observation{time_ns, generation};
}

inline std::unique_ptr<catalog::Catalog> OpenCatalogOrDie(const std::string& path,
                                                          bool read_only = false) {
  catalog::CatalogOptions options;
  options.uri = path;
  options.read_only = read_only;
  auto opened = catalog::Catalog::Open(options);
  EXPECT_TRUE(opened.ok()) << opened.status().message();
  return opened.ok() ? std::move(opened.value()) : nullptr;
}

// Unwraps a Result in a test, failing it with the error's message.
#define FATHOM_TEST_VALUE(expr)                                            \
  ([&] {                                                                   \
    auto fathom_test_result_ = (expr);                                     \
    EXPECT_TRUE(fathom_test_result_.ok()) << fathom_test_result_.status().message(); \
    return std::move(fathom_test_result_).value();                         \
  }())

}  // namespace fathom::testing

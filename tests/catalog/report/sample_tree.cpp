#include "catalog/report/sample_tree.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stdexcept>
#include <vector>

namespace fathom::testing {
namespace {

void Check(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error(what + ": " + std::to_string(errno));
}

void Dir(const std::string& path) { Check(mkdir(path.c_str(), 0755) == 0, "mkdir " + path); }

// A file of `size` bytes of data written at `offset` (a hole before it), or only a length
// (`sparse`: no block at all).
void File(const std::string& path, int64_t size, bool sparse = false, int64_t offset = 0) {
  int fd = open(path.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
  Check(fd >= 0, "open " + path);
  if (sparse) {
    Check(ftruncate(fd, size) == 0, "ftruncate " + path);
  } else if (size > 0) {
    std::vector<char> data(static_cast<size_t>(size));
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>('a' + i % 26);
    Check(pwrite(fd, data.data(), data.size(), offset) == static_cast<ssize_t>(data.size()),
          "write " + path);
  }
  Check(close(fd) == 0, "close " + path);
}

void Owner(const std::string& path, uint32_t uid, uint32_t gid) {
  Check(lchown(path.c_str(), uid, gid) == 0, "lchown " + path);
}

void Age(const std::string& path, int64_t now, int days) {
  timespec times[2];
  times[0].tv_sec = now - (days + 1) * 86400;  // atime
  times[0].tv_nsec = 0;
  times[1].tv_sec = now - days * 86400;         // mtime
  times[1].tv_nsec = 0;
  Check(utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW) == 0, "utimensat " + path);
}

}  // namespace

void MakeSampleTree(const std::string& root, int64_t now) {
  Dir(root);
  const std::string docs = root + "/docs";
  Dir(docs);
  File(docs + "/readme.txt", 100);
  File(docs + "/report final.pdf", 5000);
  File(docs + "/notes.md", 1023);
  File(docs + "/main.c", 2000);
  File(docs + "/util.c", 300);
  for (const char* name : {"", "/readme.txt", "/report final.pdf", "/notes.md", "/main.c",
                           "/util.c"}) {
    Owner(docs + name, kSampleUserA, kSampleGroupA);
  }
  Age(docs + "/readme.txt", now, 400);
  Age(docs + "/report final.pdf", now, 40);
  Age(docs + "/notes.md", now, 3);
  Age(docs + "/main.c", now, 100);
  Age(docs + "/util.c", now, 10);

  const std::string data = root + "/data";
  Dir(data);
  File(data + "/big.bin", 200000);
  File(data + "/sparse.img", 10 * 1024 * 1024, true);
  File(data + "/holey.dat", 1, false, 1024 * 1024);
  File(data + "/exact4k", 4096);
  File(data + "/one", 1);
  File(data + "/zero", 0);
  File(data + "/k1025", 1025);
  File(data + "/hard-a", 3000);
  Check(link((data + "/hard-a").c_str(), (data + "/hard-b").c_str()) == 0, "link");
  File(data + "/data.tar.gz", 40000);
  for (const char* name : {"", "/big.bin", "/sparse.img", "/holey.dat", "/exact4k", "/one",
                           "/zero", "/k1025", "/hard-a", "/data.tar.gz"}) {
    Owner(data + name, kSampleUserB, kSampleGroupB);
  }
  Age(data + "/big.bin", now, 700);
  Age(data + "/sparse.img", now, 200);
  Age(data + "/holey.dat", now, 50);
  Age(data + "/exact4k", now, 20);
  Age(data + "/one", now, 5);
  Age(data + "/zero", now, 2);
  Age(data + "/k1025", now, 1);
  Age(data + "/hard-a", now, 30);
  Age(data + "/data.tar.gz", now, 60);

  Dir(root + "/deep");
  Dir(root + "/deep/a");
  Dir(root + "/deep/a/b");
  Dir(root + "/deep/a/b/c");
  File(root + "/deep/a/b/c/leaf.txt", 3000);
  Age(root + "/deep/a/b/c/leaf.txt", now, 90);
  Dir(root + "/empty");
  Dir(root + "/deep/a/empty too");
  Age(root + "/empty", now, 300);
  Age(root + "/deep/a/empty too", now, 30);

  Dir(root + "/line\nbreak");
  File(root + "/line\nbreak/inner.txt", 10);
  Age(root + "/line\nbreak/inner.txt", now, 8);
  File(root + "/\xff\xfe latin", 2048);
  Age(root + "/\xff\xfe latin", now, 15);

  Dir(root + "/links");
  Check(symlink("../docs/readme.txt", (root + "/links/to-readme").c_str()) == 0, "symlink");
  Check(symlink("nowhere", (root + "/links/dangling").c_str()) == 0, "symlink");

  const std::string sizes = root + "/sizes";
  Dir(sizes);
  for (int64_t size : {1023, 1024, 1025, 10239, 10240, 10241, 1048575, 1048576, 1048577,
                       10 * 1048576 + 1}) {
    File(sizes + "/s" + std::to_string(size), size, true);
    Age(sizes + "/s" + std::to_string(size), now, 6);
  }
}

}  // namespace fathom::testing

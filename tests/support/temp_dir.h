// temp_dir.h — a fresh directory for one test, removed with everything in it on destruction.
#pragma once

#include <string>

namespace fathom::testing {

class TempDir {
 public:
  // Creates <base>/fathom-test-XXXXXX; base defaults to $FATHOM_TEST_TMPDIR or /tmp.
  explicit TempDir(const std::string& base = "");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // path() + "/" + rel
  std::string operator/(const std::string& rel) const { return path_ + "/" + rel; }

 private:
  std::string path_;
};

// Removes `path` and everything below it; missing paths are fine.
void RemoveTree(const std::string& path);

}  // namespace fathom::testing

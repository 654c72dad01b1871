// dir_reader.h — read one open directory's names in chunks with getdents64(2), so that a
// directory of any width is listed with a fixed-size buffer.
//
// Owns nothing but its buffer (the directory descriptor stays the caller's). One thread.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "fathom/status.h"

namespace fathom::scan {

class DirReader {
 public:
  // `fd` is an open directory; `buffer_bytes` the size of each getdents64 read.
  explicit DirReader(int fd, size_t buffer_bytes = 32 * 1024);

  // Appends up to `max` names (never "." or "..") to `names`. Returns the number appended;
  // 0 means the directory is exhausted. An error carries getdents64's errno.
  Result<size_t> Next(std::vector<std::string>& names, size_t max);

 private:
  int fd_;
  std::vector<char> buf_;
  size_t pos_ = 0;  // next unread byte of buf_
  size_t end_ = 0;  // bytes of buf_ filled by the last read
  bool eof_ = false;
};

}  // namespace fathom::scan

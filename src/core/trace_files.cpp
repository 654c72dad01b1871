// trace_files.cpp — see trace_files.h.
#include "core/trace_files.h"

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fathom {

Result<std::string> ReadWholeFile(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::FromErrno(errno, "cannot open the " + what + " " + path);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) return Status::FromErrno(errno, "cannot read the " + what + " " + path);
  return bytes.str();
}

Result<std::vector<std::string>> FilesWithExtension(const std::string& path,
                                                    const std::string& extension) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec) return Status::Error("cannot read " + path + ": " + ec.message(), ec);
  std::vector<std::string> files;
  if (!fs::is_directory(status)) {
    files.push_back(path);
    return files;
  }
  for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file() && it->path().extension() == extension) files.push_back(it->path().string());
  }
  if (ec) return Status::Error("cannot list " + path + ": " + ec.message(), ec);
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace fathom

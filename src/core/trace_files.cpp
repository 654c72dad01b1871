// trace_files.cpp — see trace_files.h.
#include "core/trace_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/unique_fd.h"

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

Status CheckTraceHeader(std::string_view bytes, const std::string& name, const TraceFileKind& kind) {
  const std::string what(kind.what);
  if (bytes.size() < kind.header_size || bytes.size() < kind.magic.size() + 4 || bytes.substr(0, kind.magic.size()) != kind.magic) {
    return Status::Error(name + " is not a fathom " + what + " (no " + std::string(kind.magic) +
                         " header); traces are the *" + std::string(kind.extension) + " files `" +
                         std::string(kind.command) + "` writes");
  }
  const auto* v = reinterpret_cast<const unsigned char*>(bytes.data() + kind.magic.size());
  const uint32_t version = v[0] | (v[1] << 8) | (v[2] << 16) | (static_cast<uint32_t>(v[3]) << 24);
  if (version != kind.version) {
    return Status::Error(name + " is an " + what + " of format version " + std::to_string(version) +
                         ", which this fathom does not read (it reads version " + std::to_string(kind.version) +
                         "); read it with the fathom that wrote it");
  }
  return Status::Ok();
}

Result<std::vector<std::string>> FindTraceFilesOf(const std::string& path, const TraceFileKind& kind) {
  FATHOM_ASSIGN_OR_RETURN(std::vector<std::string> files, FilesWithExtension(path, std::string(kind.extension)));
  if (files.empty()) {
    return Status::Error("no " + std::string(kind.what) + "s (*" + std::string(kind.extension) + ") under " + path +
                         "; `" + std::string(kind.command) + " --out " + path + " -- COMMAND` writes them");
  }
  return files;
}

Result<std::string> ReadTraceRange(const std::string& path, uint64_t begin, uint64_t end) {
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return Status::FromErrno(errno, "cannot open trace file " + path);
  std::string data(end - begin, '\0');
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = pread(fd.get(), data.data() + done, data.size() - done, static_cast<off_t>(begin + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::FromErrno(errno, "cannot read trace file " + path);
    if (n == 0) {
      return Status::Error("trace file " + path + " is shorter than before (" + std::to_string(begin + done) +
                           " bytes, " + std::to_string(end) + " were there)");
    }
    done += static_cast<size_t>(n);
  }
  return data;
}

}  // namespace fathom

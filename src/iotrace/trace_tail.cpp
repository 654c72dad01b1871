// trace_tail.cpp — TraceTail: the whole, checked frames of a growing trace file.
#include "iotrace/trace_tail.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "core/unique_fd.h"
#include "iotrace/trace_format.h"

namespace fathom::iotrace {
namespace {

namespace f = format;

// Reads exactly `size` bytes at `offset`; false on a short read (the file is shorter).
Result<bool> ReadAt(int fd, uint8_t* out, size_t size, uint64_t offset, const std::string& path) {
  size_t done = 0;
  while (done < size) {
    const ssize_t n = pread(fd, out + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::FromErrno(errno, "cannot read trace file " + path);
    if (n == 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

TraceKind IoTraceKind() {
  return {std::string_view(f::kFileMagic, sizeof(f::kFileMagic)), {f::kFrameMagic, f::kMaxFramePayload}};
}

Result<uint64_t> TraceTail::SafeEnd(bool run_over) {
  UniqueFd fd(open(path_.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return Status::FromErrno(errno, "cannot open trace file " + path_);
  struct stat st {};
  if (fstat(fd.get(), &st) != 0) return Status::FromErrno(errno, "cannot stat trace file " + path_);
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (run_over) return size;

  if (verified_ == 0) {
    uint8_t header[f::kFileHeaderSize];
    if (size < sizeof(header)) return verified_;
    FATHOM_ASSIGN_OR_RETURN(const bool whole, ReadAt(fd.get(), header, sizeof(header), 0, path_));
    if (!whole || std::string_view(reinterpret_cast<const char*>(header), kind_.file_magic.size()) != kind_.file_magic) {
      return verified_;
    }
    verified_ = sizeof(header);
  }
  std::vector<uint8_t> payload;
  while (verified_ + f::kFrameHeaderSize <= size) {
    uint8_t header[f::kFrameHeaderSize];
    FATHOM_ASSIGN_OR_RETURN(bool whole, ReadAt(fd.get(), header, sizeof(header), verified_, path_));
    if (!whole) break;
    const uint32_t length = f::GetU32(header + 4);
    if (f::GetU32(header) != kind_.frames.magic || length > kind_.frames.max_payload) break;
    const uint64_t end = verified_ + sizeof(header) + length;
    if (end > size) break;
    payload.resize(length);
    FATHOM_ASSIGN_OR_RETURN(
        whole, ReadAt(fd.get(), payload.data(), length, verified_ + sizeof(header), path_));
    if (!whole || f::Crc32(payload.data(), length) != f::GetU32(header + 8)) break;
    verified_ = end;
  }
  return verified_;
}

}  // namespace fathom::iotrace

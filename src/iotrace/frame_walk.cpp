// frame_walk.cpp — see frame_walk.h.
#include "iotrace/frame_walk.h"

#include "iotrace/trace_format.h"

namespace fathom::iotrace {
namespace {

namespace f = format;

bool FrameAt(const uint8_t* data, size_t size, size_t at, FrameKind kind) {
  if (size - at < f::kFrameHeaderSize || f::GetU32(data + at) != kind.magic) return false;
  const uint32_t length = f::GetU32(data + at + 4);
  return length <= kind.max_payload && size - at - f::kFrameHeaderSize >= length &&
         f::Crc32(data + at + f::kFrameHeaderSize, length) == f::GetU32(data + at + 8);
}

}  // namespace

uint64_t WalkFrames(std::string_view bytes, size_t start, const std::string& name, FrameKind kind,
                    std::vector<std::string>& problems,
                    const std::function<void(const uint8_t*, size_t, size_t)>& decode, uint64_t base) {
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  const size_t size = bytes.size();
  uint64_t frames = 0;
  size_t at = start;
  while (at < size) {
    if (!FrameAt(data, size, at, kind)) {
      // Damage: the next frame that checks, if any, is where reading goes on.
      size_t next = at + 1;
      while (next < size && !FrameAt(data, size, next, kind)) ++next;
      const bool cut = size - at < f::kFrameHeaderSize ||
                       (f::GetU32(data + at) == kind.magic &&
                        size - at - f::kFrameHeaderSize < f::GetU32(data + at + 4));
      if (next >= size) {
        problems.push_back(name + (cut ? " ends inside the frame at offset " : " is damaged from offset ") +
                           std::to_string(base + at) + (cut ? " (the process was killed while writing)" : "") +
                           "; the rest of the file is not read");
        break;
      }
      problems.push_back("bytes " + std::to_string(base + at) + " to " + std::to_string(base + next) + " of " + name +
                         " are not a frame that checks (damaged) and are skipped");
      at = next;
      continue;
    }
    const uint32_t length = f::GetU32(data + at + 4);
    decode(data + at + f::kFrameHeaderSize, length, base + at + f::kFrameHeaderSize);
    ++frames;
    at += f::kFrameHeaderSize + length;
  }
  return frames;
}

}  // namespace fathom::iotrace

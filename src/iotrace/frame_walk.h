// frame_walk.h — the frames of a trace file after its header (the I/O tracer's and the HDF5
// tracer's: u32le magic, u32le payload length, u32le CRC-32 of the payload, payload).
// Pure function; any thread.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::iotrace {

struct FrameKind {
  uint32_t magic = 0;
  uint32_t max_payload = 0;
};

// Calls `decode(payload, length, offset of the payload in the file)` for every frame from
// `start` on whose checksum holds, and returns how many. Damage is never hidden: bytes that are
// not a frame that checks are skipped up to the next frame that does, and said in `problems`
// ("bytes A to B of NAME are not a frame that checks (damaged) and are skipped"); a file that
// ends inside a frame, or whose damage runs to its end, ends the walk with a problem saying so.
// `base` is the offset in the file of bytes[0] (for a part of a file): offsets given to `decode`
// and in `problems` are the file's.
uint64_t WalkFrames(std::string_view bytes, size_t start, const std::string& name, FrameKind kind,
                    std::vector<std::string>& problems,
                    const std::function<void(const uint8_t*, size_t, size_t)>& decode, uint64_t base = 0);

}  // namespace fathom::iotrace

// trace_tail.h — which bytes of a trace file that a process may still be appending to are whole:
// the 16-byte header and then whole frames (a frame header's length says where the frame ends)
// whose payload's CRC-32 checks, up to the first frame that is not yet whole or does not check.
// The tracers only append, so a byte once verified never changes; each call reads only what was
// appended since the previous one. Once the run is over, the whole file counts, whatever it
// ends with. Serves the I/O traces' publisher (what may be sent) and `fathom h5 events
// --follow` (what may be decoded); the kind says whose files they are.
// One thread per object; the file is opened for each call and closed again.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "fathom/status.h"
#include "iotrace/frame_walk.h"

namespace fathom::iotrace {

// A trace file's magic (its first 8 bytes) and its frames.
struct TraceKind {
  std::string_view file_magic;
  FrameKind frames;
};
// The I/O tracer's files (iotrace/trace_format.h).
TraceKind IoTraceKind();

class TraceTail {
 public:
  TraceTail(std::string path, TraceKind kind) : path_(std::move(path)), kind_(kind) {}

  // The end of the header and the whole, checked frames while the file may still grow
  // (`run_over` false), else the file's size. An error names the file.
  Result<uint64_t> SafeEnd(bool run_over);

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  TraceKind kind_;
  uint64_t verified_ = 0;  // the end of the header and whole, checked frames read so far
};

}  // namespace fathom::iotrace

// trace_tail.h — which bytes of a trace file that a process may still be appending to are safe
// to send: the 16-byte header and then whole frames (a frame header's length says where the
// frame ends) whose payload's CRC-32 checks, up to the first frame that is not yet whole or
// does not check. The tracer only appends, so a byte once verified never changes; each call
// reads only what was appended since the previous one. Once the run is over, the whole file
// is sent, whatever it ends with.
// One thread per object; the file is opened for each call and closed again.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "fathom/status.h"

namespace fathom::iotrace::transport {

class TraceTail {
 public:
  explicit TraceTail(std::string path) : path_(std::move(path)) {}

  // The end of what may be sent now: the verified prefix while the file may still grow
  // (`run_over` false), else the file's size. An error names the file.
  Result<uint64_t> SendableEnd(bool run_over);

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  uint64_t verified_ = 0;  // the end of the header and whole, checked frames read so far
};

}  // namespace fathom::iotrace::transport

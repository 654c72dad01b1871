// trace_frames.h — decoding an HDF5 trace a part at a time, for a trace still being written
// (`fathom h5 events --follow`): the frames of a part of the file decoded into a Trace that
// keeps what earlier parts held. Private to fathom_h5prov. Pure; any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "core/trace_files.h"
#include "fathom/h5prov.h"
#include "iotrace/trace_tail.h"

namespace fathom::h5prov {

// Decodes the frames in `bytes`, the part of trace.file that starts at `offset` (after the
// header), into `trace`, after what it already holds (its objects, calls and problems).
// `after_frame(end)`, when given, is called after each frame with the offset in the file where
// that frame ends.
void DecodeTraceFrames(std::string_view bytes, uint64_t offset, Trace& trace,
                       const std::function<void(uint64_t)>& after_frame = {});

// The HDF5 traces' file magic and frames (for iotrace::TraceTail), and what is checked of and
// said about their files.
iotrace::TraceKind H5TraceKind();
const TraceFileKind& H5TraceFiles();

}  // namespace fathom::h5prov

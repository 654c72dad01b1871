// provenance_follow.cpp — ProvenanceFollower: the events of HDF5 traces still being written
// (fathom/h5prov.h says what it gives and when).
#include <algorithm>
#include <filesystem>
#include <optional>

#include "core/trace_files.h"
#include "fathom/h5prov.h"
#include "h5prov/h5_format.h"
#include "h5prov/link_moves.h"
#include "h5prov/trace_frames.h"
#include "iotrace/trace_tail.h"

namespace fathom::h5prov {
namespace {

constexpr std::string_view kSourcePrefix = "h5prov:";

// A call the trace has not described the object or place of yet.
bool Unplaced(const Trace& trace, const Call& c) {
  auto unknown = [&trace](uint64_t id) { return id != 0 && trace.objects.count(id) == 0; };
  return c.parent == 0 && !c.failed && (unknown(c.object) || unknown(c.location));
}

}  // namespace

struct ProvenanceFollower::File {
  explicit File(const std::string& path) : tail(path, H5TraceKind()) { trace.file = path; }

  // A call held back, and where its frame starts.
  struct Waiting {
    Call call;
    uint64_t frame_start;
  };

  iotrace::TraceTail tail;
  Trace trace;                          // objects, process, closed records; calls of one poll
  std::map<uint64_t, uint64_t> opened;  // when each object was first used (for H5Lmove)
  std::vector<Waiting> waiting;
  uint64_t decoded = 0;                 // the file is decoded up to here (0: nothing yet)
  std::optional<uint64_t> delivered;    // the position stored before this process began
  uint64_t position = 0;                // the position last given
  bool done = false;                    // ended and read to its end
};

ProvenanceFollower::ProvenanceFollower(std::vector<std::string> paths) : paths_(std::move(paths)) {}
ProvenanceFollower::~ProvenanceFollower() = default;
ProvenanceFollower::ProvenanceFollower(ProvenanceFollower&&) noexcept = default;
ProvenanceFollower& ProvenanceFollower::operator=(ProvenanceFollower&&) noexcept = default;

size_t ProvenanceFollower::files() const { return files_.size(); }

size_t ProvenanceFollower::ended() const {
  return static_cast<size_t>(std::count_if(files_.begin(), files_.end(), [](const auto& f) { return f.second->trace.ended; }));
}

ProvenanceFollower::Pass ProvenanceFollower::Poll(const std::function<uint64_t(const std::string&)>& delivered,
                                                 bool to_the_end) {
  Pass pass;
  for (const std::string& path : paths_) {
    // A directory the run has not made yet holds no trace yet.
    std::error_code ec;
    if (!std::filesystem::exists(path, ec) && !ec) continue;
    auto found = FilesWithExtension(path, std::string(H5TraceFiles().extension));
    if (!found.ok()) {
      pass.problems.push_back(found.status().message());
      continue;
    }
    for (const std::string& file : *found) {
      if (!files_.count(file)) files_.emplace(file, std::make_unique<File>(file));
    }
  }
  for (auto& [name, file] : files_) {
    File& f = *file;
    if (f.done) continue;
    const std::string source = std::string(kSourcePrefix) + name;
    if (!f.delivered) {
      f.delivered = delivered(source);
      f.position = *f.delivered;
    }
    const bool over = f.trace.ended || to_the_end;
    auto end = f.tail.SafeEnd(over);
    if (!end.ok()) {
      pass.problems.push_back(end.status().message());
      continue;
    }
    if (f.decoded == 0 && *end > 0) {
      // The header (SafeEnd passes only one with the right magic while the file grows).
      auto header = ReadTraceRange(name, 0, std::min<uint64_t>(*end, format::kFileHeaderSize));
      if (!header.ok()) {
        pass.problems.push_back(header.status().message());
        continue;
      }
      if (Status s = CheckTraceHeader(*header, name, H5TraceFiles()); !s.ok()) {
        pass.problems.push_back(s.message());
        f.done = true;
        continue;
      }
      f.decoded = format::kFileHeaderSize;
    }
    if (*end <= f.decoded) continue;
    auto bytes = ReadTraceRange(name, f.decoded, *end);
    if (!bytes.ok()) {
      pass.problems.push_back(bytes.status().message());
      continue;
    }
    // Decode, noting where each frame ends: calls of frames that end at or before the stored
    // position were given by an earlier process.
    const size_t problems_before = f.trace.problems.size();
    std::vector<std::pair<size_t, uint64_t>> frame_calls;  // per frame: (its first call, its start)
    uint64_t frame_start = f.decoded;
    size_t frame_first_call = 0, first_new = 0;
    DecodeTraceFrames(*bytes, f.decoded, f.trace, [&](uint64_t frame_end) {
      frame_calls.emplace_back(frame_first_call, frame_start);
      if (frame_end <= *f.delivered) first_new = f.trace.calls.size();
      frame_first_call = f.trace.calls.size();
      frame_start = frame_end;
    });
    f.decoded = *end;
    pass.problems.insert(pass.problems.end(), f.trace.problems.begin() + static_cast<std::ptrdiff_t>(problems_before),
                         f.trace.problems.end());
    ApplyLinkMoves(f.trace, f.opened);

    // The calls to give: those waiting whose object is now known, then the new ones in order;
    // what is still unplaced waits (until the trace ends: then it is given up, as a whole
    // trace's reading gives nothing for it).
    std::vector<Call> calls;
    std::vector<File::Waiting> still;
    for (File::Waiting& w : f.waiting) {
      if (Unplaced(f.trace, w.call) && !over && !f.trace.ended) {
        still.push_back(std::move(w));
      } else {
        calls.push_back(std::move(w.call));
      }
    }
    size_t frame = 0;
    for (size_t i = first_new; i < f.trace.calls.size(); ++i) {
      while (frame + 1 < frame_calls.size() && frame_calls[frame + 1].first <= i) ++frame;
      Call& c = f.trace.calls[i];
      if (Unplaced(f.trace, c) && !over && !f.trace.ended) {
        still.push_back({std::move(c), frame_calls.empty() ? f.decoded : frame_calls[frame].second});
      } else {
        calls.push_back(std::move(c));
      }
    }
    f.waiting = std::move(still);
    f.trace.calls = std::move(calls);
    std::vector<Event> events = ProvenanceEvents(f.trace);
    f.trace.calls.clear();
    pass.events.insert(pass.events.end(), std::make_move_iterator(events.begin()), std::make_move_iterator(events.end()));

    uint64_t position = std::max(f.decoded, *f.delivered);
    for (const File::Waiting& w : f.waiting) position = std::min(position, std::max(w.frame_start, *f.delivered));
    if (position != f.position) {
      f.position = position;
      pass.positions.emplace_back(source, position);
    }
    if ((f.trace.ended || to_the_end) && f.waiting.empty()) {
      // Read to the end: what the process wrote after its end record (nothing, normally).
      auto size = f.tail.SafeEnd(true);
      f.done = size.ok() && *size == f.decoded;
    }
  }
  return pass;
}

}  // namespace fathom::h5prov

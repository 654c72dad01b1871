// fuzz_event_chunk — the store's chunk decoder on arbitrary blobs, and encode/decode round
// trips of events built from the input.
//
// A damaged blob must give an error, never a read outside it; the scan (ScanChunk) must accept
// exactly the blobs decoding accepts and summarise what decoding builds; events encoded then
// decoded must come back field for field with contiguous ids.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "store/event_chunk.h"

namespace {

[[noreturn]] void Violated(const char* what) {
  std::fprintf(stderr, "property violated: %s\n", what);
  std::abort();
}

// DecodeChunk and ScanChunk on the same blob: the same verdict, the same events summarised.
void ScanAgreesWithDecode(std::string_view blob) {
  fathom::store::ChunkSummary want;
  std::vector<std::string> paths;
  const fathom::Status decoded = fathom::store::DecodeChunk(blob, 1, [&](const fathom::Event& e) {
    want.min_ts = want.count == 0 ? e.ts_ns : std::min(want.min_ts, e.ts_ns);
    want.max_ts = want.count == 0 ? e.ts_ns : std::max(want.max_ts, e.ts_ns);
    want.string_bytes += e.root.size() + e.path.size() + e.source.size() + e.attrs.size();
    want.kindless += (e.mask & fathom::kind::kAll) == 0 ? 1 : 0;
    ++want.count;
    paths.push_back(e.path);
    return true;
  });
  size_t seen = 0;
  const auto scanned = fathom::store::ScanChunk(blob, [&](std::string_view path) {
    if (seen >= paths.size() || paths[seen] != path) Violated("the scan rebuilds another path");
    ++seen;
    return true;
  });
  if (scanned.ok() != decoded.ok()) Violated("the scan and decoding disagree on the blob");
  if (!decoded.ok()) return;
  const auto& got = scanned.value();
  if (got.count != want.count || got.min_ts != want.min_ts || got.max_ts != want.max_ts ||
      got.string_bytes != want.string_bytes || got.kindless != want.kindless || seen != paths.size()) {
    Violated("the scan's summary differs from the decoded events");
  }
  const auto unpathed = fathom::store::ScanChunk(blob);
  if (!unpathed.ok() || unpathed.value().string_bytes != want.string_bytes) {
    Violated("the scan without paths differs");
  }
}

// Splits the input into events: each takes up to four short strings and a few integers.
std::vector<fathom::Event> EventsFrom(std::string_view in) {
  std::vector<fathom::Event> events;
  size_t pos = 0;
  auto take = [&](size_t n) {
    std::string_view s = in.substr(pos, n);
    pos += s.size();
    return s;
  };
  while (pos < in.size() && events.size() < 64) {
    fathom::Event e;
    const auto lens = take(4);
    if (lens.size() < 4) break;
    e.root = std::string(take(static_cast<uint8_t>(lens[0]) % 8));
    e.path = std::string(take(static_cast<uint8_t>(lens[1]) % 32));
    e.source = std::string(take(static_cast<uint8_t>(lens[2]) % 8));
    // Attrs are split at commas: make them common.
    e.attrs = std::string(take(static_cast<uint8_t>(lens[3]) % 24));
    for (char& c : e.attrs) c = static_cast<uint8_t>(c) % 5 == 0 ? ',' : c;
    const auto ints = take(8);
    for (char c : ints) e.ts_ns = static_cast<int64_t>(static_cast<uint64_t>(e.ts_ns) * 257 + static_cast<uint8_t>(c));
    e.mask = static_cast<uint32_t>(e.ts_ns >> 7);
    e.cookie = static_cast<uint32_t>(e.ts_ns >> 23);
    events.push_back(std::move(e));
  }
  return events;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  ScanAgreesWithDecode(in);

  const auto events = EventsFrom(in);
  std::string blob;
  fathom::store::EncodeChunk(events, blob);
  ScanAgreesWithDecode(blob);
  size_t i = 0;
  fathom::Status s = fathom::store::DecodeChunk(blob, 100, [&](const fathom::Event& e) {
    const fathom::Event& want = events[i];
    if (e.id != 100 + i || e.ts_ns != want.ts_ns || e.mask != want.mask ||
        e.cookie != want.cookie || e.root != want.root || e.path != want.path ||
        e.source != want.source || e.attrs != want.attrs) {
      std::fprintf(stderr, "property violated: event %zu does not round-trip\n", i);
      std::abort();
    }
    ++i;
    return true;
  });
  if (!s.ok() || i != events.size()) {
    std::fprintf(stderr, "property violated: %zu of %zu events decoded (%s)\n", i, events.size(),
                 s.message().c_str());
    std::abort();
  }
  return 0;
}

// fuzz_event_chunk — the store's chunk decoder on arbitrary blobs, and encode/decode round
// trips of events built from the input.
//
// A damaged blob must give an error, never a read outside it; events encoded then decoded
// must come back field for field with contiguous ids.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "store/event_chunk.h"

namespace {

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
  uint64_t decoded = 0;
  (void)fathom::store::DecodeChunk(in, 1, [&](const fathom::Event&) {
    ++decoded;
    return true;
  });

  const auto events = EventsFrom(in);
  std::string blob;
  fathom::store::EncodeChunk(events, blob);
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

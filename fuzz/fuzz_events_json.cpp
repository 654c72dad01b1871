// fuzz_events_json — a delivery's events read back from JSON (what the outbox keeps and an
// action receives) on arbitrary text: either an error, or events that written again and read
// again are the same events.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "rules/actions/event_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto events = fathom::rules::ParseEventsJson(text);
  if (!events.ok()) return 0;
  const std::string again = fathom::rules::EventsJson(*events);
  auto back = fathom::rules::ParseEventsJson(again);
  if (!back.ok() || *back != *events) {
    std::fprintf(stderr, "fuzz_events_json: events written and read again differ: %s\n", again.c_str());
    std::abort();
  }
  return 0;
}

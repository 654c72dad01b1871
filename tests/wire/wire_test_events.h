// wire_test_events.h — realistic and edge-case events for the wire codec tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fathom/event.h"

namespace fathom::wire::testing {

// `n` events as a Lustre or inotify source produces them: a few roots and sources, paths
// sharing directories, renames with cookies, some attrs; ids first_id, first_id + 1, ...
inline std::vector<Event> TypicalEvents(size_t n, uint64_t first_id = 1) {
  std::vector<Event> events(n);
  for (size_t i = 0; i < n; ++i) {
    Event& e = events[i];
    e.id = first_id + i;
    e.ts_ns = 1'700'000'000'000'000'000 + static_cast<int64_t>(i) * 1'250;
    e.mask = (i % 5 == 0) ? kind::kCreate : (i % 5 == 1 ? kind::kCloseWrite : kind::kModify);
    if (i % 7 == 3) e.mask |= kind::kIsDir;
    e.cookie = (i % 11 == 0) ? static_cast<uint32_t>(i + 1) : 0;
    e.root = (i % 3 == 0) ? "/lustre/scratch" : "/lustre/project";
    e.source = (i % 2 == 0) ? "lustre:scratch-MDT0000" : "lustre:scratch-MDT0001";
    e.path = e.root + "/users/u" + std::to_string(i % 40) + "/run" + std::to_string(i / 97) +
             "/out." + std::to_string(i) + ".dat";
    if (i % 4 == 0) e.attrs = R"({"fid":"[0x200000401:0x)" + std::to_string(i) + R"(:0x0]"})";
  }
  return events;
}

// Events at the limits: empty strings, binary and unicode paths, extreme integers.
inline std::vector<Event> EdgeEvents() {
  std::vector<Event> events;
  Event empty;
  events.push_back(empty);
  Event extremes;
  extremes.ts_ns = INT64_MIN;
  extremes.mask = UINT32_MAX;
  extremes.cookie = UINT32_MAX;
  extremes.root = "/";
  extremes.path = std::string("/bin\xff\xfe\x01\x7f/a", 10);
  extremes.source = "fanotify";
  events.push_back(extremes);
  Event unicode;
  unicode.ts_ns = INT64_MAX;
  unicode.root = "/data/\xc3\xa9t\xc3\xa9";
  unicode.path = "/data/\xc3\xa9t\xc3\xa9/\xe6\x97\xa5\xe6\x9c\xac/\xf0\x9f\x93\x81 file";
  unicode.source = "inotify";
  unicode.attrs = R"({"uid":0,"note":"quote \" and \\ backslash","nested":{"a":[1,2]}})";
  events.push_back(unicode);
  Event negative;
  negative.ts_ns = -1;
  negative.path = std::string(5000, 'x');
  negative.attrs = std::string(300, '{');
  events.push_back(negative);
  return events;
}

// `events` with ids cleared (a Batch carries no ids).
inline std::vector<Event> WithoutIds(std::vector<Event> events) {
  for (Event& e : events) e.id = 0;
  return events;
}

}  // namespace fathom::wire::testing

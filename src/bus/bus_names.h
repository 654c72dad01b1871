// bus_names.h — how fathom names things on a NATS bus: endpoints, subjects, message ids.
//
// A collector's subject is "<subject_prefix>.<token>" where the token is the collector name
// with every byte outside [A-Za-z0-9_-] written as "%HH" (upper-case hex): "mdt.0 x" becomes
// "mdt%2E0%20x". The mapping is one-to-one, so distinct collectors never share a subject, and
// the token never holds '.', '*', '>' or white space. Pure functions; any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fathom/status.h"

namespace fathom::bus::internal {

// "nats://h1:4222,nats://h2:4222" -> {"nats://h1:4222", "nats://h2:4222"}; an error names
// the part that is not a nats:// URL.
Result<std::vector<std::string>> ParseServers(std::string_view endpoint);

std::string SubjectToken(std::string_view collector);
std::string CollectorSubject(std::string_view subject_prefix, std::string_view collector);
// "<prefix>.>": every collector's subject.
std::string AllCollectorsSubject(std::string_view subject_prefix);
// "<token>:<to_position>": the stream drops a second message with the same id.
std::string BatchMessageId(std::string_view collector, uint64_t to_position);

}  // namespace fathom::bus::internal

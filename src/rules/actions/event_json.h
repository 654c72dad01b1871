// event_json.h — events as the JSON a rule's action gets, and back: what a delivery keeps in
// the outbox (its events, as JSON text) is what its action receives, and the placeholders of a
// command are read from the same events after a restart.
//
// Each event: {"id","ts_ns","kinds":[...],"path","root","source","cookie"} plus "attrs" (the
// event's attrs object) when it has members; a path or root that is not UTF-8 is written
// lossily and its exact bytes given in base64 beside it ("path_b64", "root_b64"), as everywhere
// in fathom (fathom/format.h). Pure functions, any thread.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fathom/event.h"
#include "fathom/status.h"

namespace fathom::rules {

// Appends one event's JSON object to `out`.
void AppendEventJson(const Event& event, std::string& out);
// A JSON array of `events`.
std::string EventsJson(std::span<const Event> events);
// The events of a JSON array EventsJson wrote; an error says what is wrong where.
Result<std::vector<Event>> ParseEventsJson(std::string_view json);

}  // namespace fathom::rules

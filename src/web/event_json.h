// event_json.h — an event as the API shows it (docs/api.md): its id, time (ns and ISO 8601),
// kinds, whether it is about a directory, path, root, source, cookie and the source's extra
// attributes as an object. File names that are not UTF-8 get a KEY_b64 companion with their
// bytes, as in the json output format. Free functions; any thread.
#pragma once

#include <string>

#include "fathom/event.h"

namespace fathom::web {

void AppendEventJson(const Event& e, std::string& out);

}  // namespace fathom::web

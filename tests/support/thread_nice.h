// thread_nice.h — the nice value of one of this process's threads, found by its name.
#pragma once

#include <optional>
#include <string_view>

namespace fathom::testing {

// The nice value of the first thread of this process named `name` (as /proc/self/task/*/comm
// shows it), or nullopt when no thread has that name.
std::optional<int> NiceOfThread(std::string_view name);

}  // namespace fathom::testing

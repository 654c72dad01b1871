// run_command.h — running a policy's commands (an action's, and the pre- and post-run
// commands) without a shell: argv as given, a time limit, the exit status checked.
//
// Contract: the command's stdout and stderr go to this process's stderr (so that a runner's
// own report on stdout stays clean). Past `timeout_ns` the command is killed (SIGKILL) and
// that is an error. `extra_env` ("NAME=VALUE") is added to the environment; `input`, when
// given, is written to the command's stdin (else stdin is /dev/null). Threading: any thread;
// the call blocks until the command ends.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "fathom/status.h"

namespace fathom::policy {

Status RunCommand(const std::vector<std::string>& argv, int64_t timeout_ns,
                  const std::vector<std::string>& extra_env = {}, std::optional<std::string_view> input = {});

}  // namespace fathom::policy

// run_command.cpp — RunCommand on RunChild (core/child_process.h): how the command ended, as
// the policy's messages say it.
#include "policy/run_command.h"

#include <cstring>

#include "core/child_process.h"

namespace fathom::policy {

Status RunCommand(const std::vector<std::string>& argv, int64_t timeout_ns, const std::vector<std::string>& extra_env,
                  std::optional<std::string_view> input) {
  ChildSpec spec;
  spec.argv = argv;
  spec.timeout_ns = timeout_ns;
  spec.extra_env = extra_env;
  spec.input = input;
  FATHOM_ASSIGN_OR_RETURN(const ChildExit exit, RunChild(spec));
  if (!exit.started) {
    return Status::Error("cannot run " + argv[0] + ": " + std::strerror(exit.start_errno),
                         std::error_code(exit.start_errno, std::generic_category()));
  }
  if (exit.timed_out) {
    return Status::Error("command `" + ShownArgv(argv) + "` did not finish within " +
                         std::to_string(timeout_ns / 1'000'000'000) + " s: killed");
  }
  if (exit.signal != 0) {
    return Status::Error("command `" + ShownArgv(argv) + "` was killed by signal " + std::to_string(exit.signal));
  }
  if (exit.exit_code != 0) {
    return Status::Error("command `" + ShownArgv(argv) + "` exited with status " + std::to_string(exit.exit_code));
  }
  return Status::Ok();
}

}  // namespace fathom::policy

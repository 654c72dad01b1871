// traced_child.h — starting a command with a tracer's environment (`fathom io run`,
// `fathom h5 run`) and waiting for it.
#pragma once

#include <string>
#include <vector>

namespace fathom::cli {

// Starts `command` (argv[0] looked up in PATH) with the environment `additions` (NAME=VALUE)
// put over this process's, and waits for it; the terminal's ^C and ^\ go to the program while
// fathom waits. Returns its wait status, or -1 when it cannot be started (said on stderr as
// "fathom <what>: cannot start ...").
int SpawnAndWait(const std::vector<std::string>& command, const std::vector<std::string>& additions,
                 const char* what);

// The exit status a shell gives for a wait status (128 + the signal's number when killed; 127
// when the program could not be started: -1).
int ExitStatusOf(int wait_status);

}  // namespace fathom::cli

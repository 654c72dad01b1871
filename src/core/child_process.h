// child_process.h — running one program without a shell and reporting how it ended.
//
// Contract: argv is executed as given (no shell, no word splitting). The child's stdout and
// stderr go to this process's stderr (a caller's own report on stdout stays clean), or its
// stdout is read into `output` when one is given; its stdin
// is `input` through a pipe, or /dev/null; no other descriptor of this process reaches it.
// The environment is this process's plus `extra_env` ("NAME=VALUE"), or, with `replace_env`,
// exactly `extra_env` (argv[0] without a '/' is then looked up in that environment's PATH).
// With `credentials` the child drops to that user (setgroups, setgid, setuid, in that order)
// before exec. Past `timeout_ns` the child (with `own_process_group`, its whole process group)
// is killed with SIGKILL. The outcome is a value: exit status, terminating signal, timed out,
// or the errno that prevented exec (or the change of user).
//
// The child is started as vfork does (it shares this process's memory until its program
// runs, so starting it costs no copy of the page tables, whatever this process's size); only
// plain system calls happen between clone and exec.
//
// Ownership: nothing is kept after the call. Threading: any thread; the call blocks until the
// child ends.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fathom/status.h"

namespace fathom {

struct ChildCredentials {
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;  // supplementary groups (setgroups)
};

struct ChildSpec {
  std::vector<std::string> argv;
  int64_t timeout_ns = 0;  // 0: no limit
  std::vector<std::string> extra_env;
  bool replace_env = false;
  std::optional<std::string_view> input;
  std::optional<ChildCredentials> credentials;
  bool own_process_group = false;
  // When set, the child's stdout is collected here (all of it, until the child closes it).
  std::string* output = nullptr;
  // Called in the parent once the child's program started (or failed to), with its pid (its
  // process group's id too when own_process_group); not called when no process was made.
  std::function<void(pid_t)> on_started;
};

struct ChildExit {
  bool started = true;      // false: exec (or the change of user) failed, see start_errno
  int start_errno = 0;
  bool timed_out = false;   // killed by SIGKILL after timeout_ns
  int exit_code = -1;       // the exit status when it exited
  int signal = 0;           // the terminating signal when it was killed
};

// Errors: only failures to create the pipes or the process; how the child ended is a ChildExit.
Result<ChildExit> RunChild(const ChildSpec& spec);

// "a b c": argv as one line for messages.
std::string ShownArgv(const std::vector<std::string>& argv);

}  // namespace fathom

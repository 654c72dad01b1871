// actions.h — find's actions: printing (-print, -print0, -printf, -ls and their -f forms),
// -prune, -quit, -delete and running commands (-exec, -execdir, -ok, -okdir; ';' and '+').
//
// Contract: printing goes to the context's output or to a file opened at parse time (GNU:
// the file is created even when nothing is printed to it). Actions that change the file
// system first lstat the entry's path and go ahead only when it is still the object the
// catalog describes (same st_dev, st_ino and type); otherwise they warn, naming the path,
// and are false. Commands inherit the process's stdout: the context's output is flushed
// before each one. Threading: one thread at a time.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "catalog/find/expression.h"
#include "catalog/find/output_format.h"

namespace fathom::catalog::find {

// `file` null: the context's output.
std::unique_ptr<Predicate> PrintAction(std::string name, std::shared_ptr<std::ostream> file, char terminator);
std::unique_ptr<Predicate> PrintfAction(std::string name, std::shared_ptr<std::ostream> file, PrintfFormat format);
std::unique_ptr<Predicate> LsAction(std::string name, std::shared_ptr<std::ostream> file, int64_t now_ns);
std::unique_ptr<Predicate> PruneAction();
std::unique_ptr<Predicate> QuitAction();
std::unique_ptr<Predicate> DeleteAction();

struct ExecSpec {
  std::string name;                 // -exec, -execdir, -ok, -okdir
  std::vector<std::string> argv;    // with "{}" where the path goes
  bool batch = false;               // terminated by '+': many paths per command
  bool in_dir = false;              // -execdir/-okdir: run in the entry's directory on ./NAME
  bool ask = false;                 // -ok/-okdir: ask on stderr, read the answer from stdin
};
std::unique_ptr<Predicate> ExecAction(ExecSpec spec);

// Whether the live object at `abs_path` still is the one `attrs` describes; otherwise
// writes a warning naming `path` to the context's error stream.
bool StillTheSame(const Entry& entry, EvalContext& ctx, std::string_view action);

}  // namespace fathom::catalog::find

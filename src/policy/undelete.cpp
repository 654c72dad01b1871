// undelete.cpp — Trashed, Restore, AddRestorable.
#include "policy/undelete.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "fathom/event.h"

namespace fathom::policy {
namespace {

bool StillThere(const JournalAction& a) {
  struct stat st {};
  return lstat(a.destination.c_str(), &st) == 0 && static_cast<uint64_t>(st.st_dev) == a.dev &&
         static_cast<uint64_t>(st.st_ino) == a.ino;
}

}  // namespace

Result<std::optional<JournalAction>> Trashed(ActionJournal& journal, const std::string& path_or_fid) {
  ActionQuery q;
  q.path = path_or_fid;
  q.action = "move";
  q.state = JournalAction::State::kDone;
  std::optional<JournalAction> found;
  FATHOM_RETURN_IF_ERROR(journal.Actions(q, [&](const JournalAction& a) {
    if (!StillThere(a)) return true;
    found = a;
    return false;
  }));
  return found;
}

Result<std::string> Restore(ActionJournal& journal, const std::string& path_or_fid, const std::string& to) {
  FATHOM_ASSIGN_OR_RETURN(std::optional<JournalAction> trashed, Trashed(journal, path_or_fid));
  if (!trashed) {
    return Status::Error("no trashed copy of " + path_or_fid +
                         " to restore: no move policy put it in a trash that still holds it (see `fathom policy log`)");
  }
  std::string target = to.empty() ? trashed->path : to;
  struct stat st {};
  if (!to.empty() && stat(to.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    target = to + (to.ends_with("/") ? "" : "/") + trashed->path.substr(trashed->path.rfind('/') + 1);
  }
  const std::string parent = target.substr(0, target.rfind('/'));
  if (!parent.empty() && stat(parent.c_str(), &st) != 0) {
    return Status::Error("cannot restore to " + target + ": its directory " + parent +
                         " does not exist; make it, or give another place with --to DIR");
  }
  RunRecord run;
  run.policy = "undelete";
  run.user = std::to_string(getuid());
  run.started_ns = NowNs();
  FATHOM_RETURN_IF_ERROR(journal.BeginRun(run));
  JournalAction a = *trashed;
  a.run = run.id;
  a.policy = "undelete";
  a.rule = "";
  a.action = "restore";
  a.path = trashed->destination;
  a.destination = target;
  a.state = JournalAction::State::kStarted;
  a.result.clear();
  a.started_ns = NowNs();
  FATHOM_RETURN_IF_ERROR(journal.Started(std::span(&a, 1)));
  Status moved = Status::Ok();
  if (renameat2(AT_FDCWD, trashed->destination.c_str(), AT_FDCWD, target.c_str(), RENAME_NOREPLACE) != 0) {
    moved = errno == EEXIST ? Status::Error("cannot restore to " + target + ": something is there; give --to DEST")
                            : Status::FromErrno(errno, "cannot restore " + trashed->destination + " to " + target);
  }
  a.state = moved.ok() ? JournalAction::State::kDone : JournalAction::State::kFailed;
  a.result = moved.ok() ? "" : moved.message();
  a.finished_ns = NowNs();
  FATHOM_RETURN_IF_ERROR(journal.Finished(std::span(&a, 1)));
  run.finished_ns = NowNs();
  run.state = moved.ok() ? RunRecord::State::kDone : RunRecord::State::kFailed;
  run.actions = moved.ok() ? 1 : 0;
  run.failed = moved.ok() ? 0 : 1;
  run.volume = moved.ok() ? a.size : 0;
  run.message = moved.ok() ? "" : moved.message();
  FATHOM_RETURN_IF_ERROR(journal.UpdateRun(run));
  if (!moved.ok()) return moved;
  return target;
}

Status AddRestorable(catalog::report::Table& removed, ActionJournal& journal) {
  size_t path_column = 0;
  while (path_column < removed.columns.size() && removed.columns[path_column].name != "path") ++path_column;
  if (path_column == removed.columns.size()) return Status::Error("the table has no path column");
  removed.columns.push_back(catalog::report::NameColumn("restorable"));
  for (auto& row : removed.rows) {
    FATHOM_ASSIGN_OR_RETURN(std::optional<JournalAction> t, Trashed(journal, row[path_column].raw));
    row.push_back(catalog::report::TextCell(t ? "trash" : "no"));
  }
  return Status::Ok();
}

}  // namespace fathom::policy

// perform.cpp — delete, rmdir, move, copy (with SHA-256 verification), command and log.
#include "policy/perform.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "core/file_copy.h"
#include "policy/run_command.h"

namespace fathom::policy {
namespace {

Status Errno(const std::string& what) { return Status::FromErrno(errno, what); }

bool SameObject(const struct stat& st, const JournalAction& r) {
  return static_cast<uint64_t>(st.st_dev) == r.dev && static_cast<uint64_t>(st.st_ino) == r.ino;
}

// The entry must still be the object decided upon.
Status CheckIdentity(LiveEntry& e, const JournalAction& r) {
  FATHOM_RETURN_IF_ERROR(Restat(e));
  if (e.absent != LiveEntry::Absent::kNo) return Status::Error(e.path + " is gone");
  if (!SameObject(e.st, r)) return Status::Error(e.path + " is now another object");
  return Status::Ok();
}

bool Exists(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0;
}

std::string Replaced(std::string arg, const JournalAction& r) {
  const size_t slash = r.path.rfind('/');
  const std::string name = r.path.substr(slash + 1);
  const std::string parent = slash == 0 ? "/" : r.path.substr(0, slash);
  const std::pair<const char*, std::string> fields[] = {
      {"{path}", r.path}, {"{fid}", r.fid}, {"{uid}", std::to_string(r.uid)}, {"{gid}", std::to_string(r.gid)},
      {"{size}", std::to_string(r.size)}, {"{name}", name}, {"{parent}", parent}};
  for (const auto& [key, value] : fields) {
    for (size_t at = arg.find(key); at != std::string::npos; at = arg.find(key, at + value.size())) {
      arg.replace(at, std::strlen(key), value);
    }
  }
  return arg;
}

Result<std::string> Copy(LiveEntry& e, const JournalAction& r, bool verify) {
  if (!S_ISREG(e.st.st_mode)) return Status::Error(e.path + " is not a regular file: copy takes regular files");
  UniqueFd in(openat(e.parent.get(), e.name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!in.valid()) return Errno("cannot open " + e.path);
  FileCopy copy;
  copy.source_fd = in.get();
  if (fstat(in.get(), &copy.source_stat) != 0) return Errno("cannot read the attributes of " + e.path);
  if (!SameObject(copy.source_stat, r)) return Status::Error(e.path + " is now another object");
  copy.source = e.path;
  copy.destination = r.destination;
  copy.verify = verify;
  FATHOM_ASSIGN_OR_RETURN(CopiedFile copied, CopyFileVerified(copy));
  return "sha256:" + copied.sha256;
}

}  // namespace

std::string_view ActionName(Action::Kind kind) {
  switch (kind) {
    case Action::Kind::kDelete: return "delete";
    case Action::Kind::kRmdir: return "rmdir";
    case Action::Kind::kMove: return "move";
    case Action::Kind::kCopy: return "copy";
    case Action::Kind::kCommand: return "command";
    case Action::Kind::kLog: return "log";
  }
  return "log";
}

std::string DestinationOf(const Action& action, const std::string& path) {
  if (action.kind != Action::Kind::kMove && action.kind != Action::Kind::kCopy) return {};
  const std::string base = ReplicaPath(action.destination, path);
  if (action.kind == Action::Kind::kCopy || !Exists(base)) return base;
  for (int n = 1;; ++n) {
    std::string candidate = base + "." + std::to_string(n);
    if (!Exists(candidate)) return candidate;
  }
}

Result<std::string> Perform(const Action& action, LiveEntry& e, const JournalAction& r) {
  switch (action.kind) {
    case Action::Kind::kLog:
      return std::string();
    case Action::Kind::kDelete:
    case Action::Kind::kRmdir: {
      FATHOM_RETURN_IF_ERROR(CheckIdentity(e, r));
      const bool dir = S_ISDIR(e.st.st_mode);
      if (action.kind == Action::Kind::kRmdir && !dir) return Status::Error(e.path + " is not a directory: rmdir takes directories");
      if (unlinkat(e.parent.get(), e.name.c_str(), dir ? AT_REMOVEDIR : 0) != 0) {
        if (errno == ENOTEMPTY || errno == EEXIST) return Status::Error(e.path + " is not empty: left in place");
        return Errno("cannot remove " + e.path);
      }
      return std::string();
    }
    case Action::Kind::kMove: {
      FATHOM_RETURN_IF_ERROR(CheckIdentity(e, r));
      FATHOM_RETURN_IF_ERROR(MakeParentDirs(r.destination));
      if (renameat2(e.parent.get(), e.name.c_str(), AT_FDCWD, r.destination.c_str(), RENAME_NOREPLACE) != 0) {
        if (errno == EXDEV) {
          return Status::Error("cannot move " + e.path + " to " + r.destination +
                               ": another file system; give a destination on the same file system as the entries");
        }
        if (errno == EEXIST) return Status::Error("cannot move " + e.path + ": " + r.destination + " already exists");
        return Errno("cannot move " + e.path + " to " + r.destination);
      }
      return std::string();
    }
    case Action::Kind::kCopy:
      return Copy(e, r, action.verify);
    case Action::Kind::kCommand: {
      FATHOM_RETURN_IF_ERROR(CheckIdentity(e, r));
      std::vector<std::string> argv;
      for (const std::string& a : action.argv) argv.push_back(Replaced(a, r));
      FATHOM_RETURN_IF_ERROR(RunCommand(argv, action.timeout_ns,
                                        {"FATHOM_ACTION_ID=" + std::to_string(r.id), "FATHOM_POLICY=" + r.policy,
                                         "FATHOM_RULE=" + r.rule}));
      return std::string();
    }
  }
  return Status::Error("unknown action");
}

Settled SettleStarted(const JournalAction& r) {
  struct stat st {};
  const bool at_path = lstat(r.path.c_str(), &st) == 0 && SameObject(st, r);
  if (r.action == "delete" || r.action == "rmdir") return at_path ? Settled::kNotDone : Settled::kDone;
  if (r.action == "move") {
    struct stat dst {};
    if (lstat(r.destination.c_str(), &dst) == 0 && SameObject(dst, r)) return Settled::kDone;
    return at_path ? Settled::kNotDone : Settled::kUnknown;
  }
  if (r.action == "command") return Settled::kUnknown;
  return Settled::kNotDone;  // copy, log: doing them again is harmless
}

}  // namespace fathom::policy

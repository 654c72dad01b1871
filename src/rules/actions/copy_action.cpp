// copy_action.cpp — RunCopyAction: each event's file opened without following a symbolic
// link and copied by CopyFileVerified (core/file_copy.h), never replacing anything; the
// files' outcomes combined into the delivery's.
#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <set>

#include "core/file_copy.h"
#include "core/unique_fd.h"
#include "rules/actions/action.h"

namespace fathom::rules {
namespace {

struct FileOutcome {
  ActionOutcome::Kind kind = ActionOutcome::kSuccess;
  std::string message;
  bool already_there = false;
};

// Failures that another attempt cannot mend (errno values, as Status::FromErrno keeps them);
// anything else (no space, I/O, a copy that differs from what was read) may pass.
bool Permanent(const std::error_code& code) {
  if (code.category() != std::generic_category()) return false;
  switch (code.value()) {
    case EEXIST:
    case ENOENT:
    case ELOOP:
    case EACCES:
    case EPERM:
    case EROFS:
    case ENOTDIR:
    case EISDIR:
    case ENAMETOOLONG:
      return true;
    default:
      return false;
  }
}

FileOutcome CopyOne(const CopyAction& action, const std::string& path) {
  const std::string destination = ReplicaPath(action.to, path);
  UniqueFd in(open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!in.valid()) {
    const int err = errno;
    if (err == ENOENT) return {ActionOutcome::kPermanent, path + " is gone (no such file): nothing to copy"};
    if (err == ELOOP) return {ActionOutcome::kPermanent, path + " is a symbolic link: copy takes regular files"};
    const Status s = Status::FromErrno(err, "cannot open " + path);
    return {Permanent(s.code()) ? ActionOutcome::kPermanent : ActionOutcome::kRetry, s.message()};
  }
  FileCopy copy;
  copy.source_fd = in.get();
  if (fstat(in.get(), &copy.source_stat) != 0) {
    return {ActionOutcome::kRetry, Status::FromErrno(errno, "cannot read the attributes of " + path).message()};
  }
  if (!S_ISREG(copy.source_stat.st_mode)) {
    return {ActionOutcome::kPermanent, path + " is not a regular file: copy takes regular files"};
  }
  copy.source = path;
  copy.destination = destination;
  copy.verify = action.verify;
  copy.replace = false;
  Result<CopiedFile> copied = CopyFileVerified(copy);
  if (!copied.ok()) {
    return {Permanent(copied.status().code()) ? ActionOutcome::kPermanent : ActionOutcome::kRetry,
            copied.status().message()};
  }
  return {ActionOutcome::kSuccess,
          "copied " + path + " to " + destination + " (sha256:" + copied->sha256 +
              (copied->already_there ? ", already there)" : ")"),
          copied->already_there};
}

}  // namespace

ActionOutcome RunCopyAction(const CopyAction& action, const DeliveryContext& context) {
  std::set<std::string> seen;
  std::vector<FileOutcome> outcomes;
  for (const Event& e : context.events) {
    if (seen.insert(e.path).second) outcomes.push_back(CopyOne(action, e.path));
  }
  if (outcomes.empty()) return {ActionOutcome::kSuccess, "no file to copy", std::nullopt};
  if (outcomes.size() == 1) return {outcomes[0].kind, outcomes[0].message, std::nullopt};
  size_t copied = 0, already = 0;
  bool permanent = false;
  std::string failures;
  for (const FileOutcome& o : outcomes) {
    if (o.kind == ActionOutcome::kSuccess) {
      ++copied;
      already += o.already_there;
      continue;
    }
    permanent = permanent || o.kind == ActionOutcome::kPermanent;
    failures += "; " + o.message;
  }
  std::string message = "copied " + std::to_string(copied) + " of " + std::to_string(outcomes.size()) +
                        " files to " + action.to + " (" + std::to_string(already) + " already there)";
  if (failures.empty()) return {ActionOutcome::kSuccess, message, std::nullopt};
  return {permanent ? ActionOutcome::kPermanent : ActionOutcome::kRetry, message + failures, std::nullopt};
}

}  // namespace fathom::rules

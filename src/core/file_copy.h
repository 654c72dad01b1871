// file_copy.h — copying a regular file so that its destination holds either nothing or the
// whole, checked copy (a policy's copy action, a rule's copy action).
//
// Contract: the copy is written to the destination's name plus ".fathom-copy", with the
// source's mode bits, owner (when permitted) and times, synced to disk, read back and its
// SHA-256 compared with that of what was read from the source (when `verify`), and only then
// renamed to the destination. Whatever fails, the temporary file is removed and the
// destination left as it was. With `replace` false the rename never replaces anything
// (renameat2 RENAME_NOREPLACE): a destination already there with the same content is a
// success that changes nothing (`already_there`), one with other content an error whose code
// is EEXIST. Errors carry the errno of the call that failed (none for a checksum that
// differs) and name the file.
//
// Ownership: the caller owns the source descriptor; nothing is kept after a call. Threading:
// any thread; two copies to the same destination at once are the caller's to avoid.
#pragma once

#include <sys/stat.h>

#include <string>
#include <string_view>

#include "fathom/status.h"

namespace fathom {

// mkdir -p of the directories above `path` (mode 0700: a copy or a trash may hold other
// users' data); existing ones are left as they are.
Status MakeParentDirs(const std::string& path);

// The absolute `path` under directory `dir`: ("/archive/", "/lab/a") -> "/archive/lab/a", so
// that the original place can be read back from it.
std::string ReplicaPath(std::string_view dir, std::string_view path);

// The SHA-256 (64 hexadecimal digits) of what is left to read from `fd`; `path` names it in
// errors.
Result<std::string> Sha256OfFile(int fd, const std::string& path);

struct FileCopy {
  int source_fd = -1;             // a regular file open for reading, at offset 0
  struct stat source_stat {};     // fstat of source_fd
  std::string source;             // its path, for messages
  std::string destination;
  bool verify = true;             // read the copy back and compare checksums
  bool replace = true;            // false: never replace an existing destination
};

struct CopiedFile {
  std::string sha256;          // of what was read from the source
  bool already_there = false;  // !replace: the destination held the same content already
};

Result<CopiedFile> CopyFileVerified(const FileCopy& copy);

}  // namespace fathom

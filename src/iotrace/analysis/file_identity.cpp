// file_identity.cpp — which file an object is, and which files the analysis leaves out.
#include "iotrace/analysis/job_pieces.h"

namespace fathom::iotrace::analysis {

// System files, left out as Darshan leaves them out unless --all-files, and the MPI
// runtime's own session files (Open MPI's ompi.HOST.UID directory).
bool SystemPath(const std::string& path) {
  static const char* const kPrefixes[] = {"/etc/", "/dev/", "/usr/", "/bin/", "/boot/", "/lib/", "/lib32/",
                                          "/lib64/", "/opt/", "/sbin/", "/sys/", "/proc/", "/run/", "/var/"};
  if (path.find("/ompi.") != std::string::npos) return true;
  if (path.rfind("/var/tmp/", 0) == 0) return false;
  for (const char* prefix : kPrefixes) {
    if (path.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

// A file is its (dev, ino) and the path it was opened by: an inode number the file system
// gives again to a new file after the old one was removed is another file.
std::string FileKey(const Object& o) {
  if (o.dev != 0 || o.ino != 0) return "f:" + std::to_string(o.dev) + ":" + std::to_string(o.ino) + ":" + o.path;
  return "n:" + o.path;
}

}  // namespace fathom::iotrace::analysis

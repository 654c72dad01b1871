// lfs changelog / lfs changelog_clear.
#include <getopt.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "lustre/changelog_text.h"
#include "lustre_sim/tools/lfs_commands.h"
#include "lustre_sim/tools/tool_target.h"

namespace fathom::lustre_sim::tools {

int LfsChangelog(int argc, char** argv) {
  static const option kLong[] = {{"follow", no_argument, nullptr, 'f'},
                                 {"mask", required_argument, nullptr, 'm'},
                                 {"user", required_argument, nullptr, 'u'},
                                 {nullptr, 0, nullptr, 0}};
  bool follow = false;
  optind = 0;
  int c;
  while ((c = getopt_long(argc, argv, "fm:u:", kLong, nullptr)) != -1) {
    switch (c) {
      case 'f':
        follow = true;
        break;
      case 'm':
      case 'u':
        break;
      default:
        fprintf(stderr, "lfs changelog: unrecognized option '%s'\n", argv[optind - 1]);
        return kCmdHelp;
    }
  }
  if (optind >= argc) {
    fprintf(stderr, "lfs changelog: mdtname must be specified\n");
    return kCmdHelp;
  }
  const char* mdd = argv[optind++];
  long long startrec = 0, endrec = 0;
  if (argc > optind) {
    errno = 0;
    startrec = strtoll(argv[optind++], nullptr, 10);
    if (errno != 0 || startrec < 0) {
      fprintf(stderr, "lfs changelog: bad startrec\n");
      return kCmdHelp;
    }
  }
  if (argc > optind) {
    errno = 0;
    endrec = strtoll(argv[optind++], nullptr, 10);
    if (errno != 0 || endrec < 0) {
      fprintf(stderr, "lfs changelog: bad endrec\n");
      return kCmdHelp;
    }
  }
  auto target = OpenTarget(mdd);
  if (!target.ok() || target->mdt < 0) {
    fprintf(stderr, "lfs changelog: cannot start changelog: %s\n", strerror(ENOENT));
    return -ENOENT;
  }
  uint64_t next = static_cast<uint64_t>(startrec);
  std::vector<lustre::ChangelogRecord> batch;
  for (;;) {
    batch.clear();
    Status st = target->state->Read(target->mdt, next, 1024, batch);
    if (!st.ok()) {
      int err = ErrnoOr(st, EIO);
      fprintf(stderr, "lfs changelog: cannot access changelog: %s\n", strerror(err));
      return -err;
    }
    for (const auto& rec : batch) {
      if (endrec != 0 && rec.index > static_cast<uint64_t>(endrec)) return 0;
      printf("%s\n", lustre::FormatRecordText(rec).c_str());
      next = rec.index + 1;
    }
    if (!batch.empty()) continue;
    if (!follow) return 0;
    fflush(stdout);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

int LfsChangelogClear(int argc, char** argv) {
  if (argc != 4) return kCmdHelp;
  errno = 0;
  long long endrec = strtoll(argv[3], nullptr, 10);
  if (errno != 0 || endrec < 0) {
    fprintf(stderr, "%s: bad endrec '%s'\n", argv[0], argv[3]);
    return kCmdHelp;
  }
  auto target = OpenTarget(argv[1]);
  int rc = 0;
  if (!target.ok() || target->mdt < 0) {
    rc = -ENOENT;
  } else {
    bool known = false;
    auto users = target->state->Users(target->mdt);
    if (users.ok()) {
      for (const auto& u : *users) known = known || u.name == argv[2];
    }
    auto last = target->state->LastIndex(target->mdt);
    if (!known) {
      fprintf(stderr, "%s: no changelog user: %s\n", argv[0], argv[2]);
      return -ENOENT;
    }
    if (last.ok() && static_cast<uint64_t>(endrec) > *last) {
      fprintf(stderr, "%s: record out of range: %llu\n", argv[0], endrec);
      return -EINVAL;
    }
    Status st = target->state->Clear(target->mdt, argv[2], static_cast<uint64_t>(endrec));
    if (!st.ok()) rc = -ErrnoOr(st, EIO);
  }
  if (rc == -EINVAL) {
    fprintf(stderr, "%s: record out of range: %llu\n", argv[0], endrec);
  } else if (rc == -ENOENT) {
    fprintf(stderr, "%s: no changelog user: %s\n", argv[0], argv[2]);
  } else if (rc != 0) {
    fprintf(stderr, "%s error: %s\n", argv[0], strerror(-rc));
  }
  return rc;
}

}  // namespace fathom::lustre_sim::tools

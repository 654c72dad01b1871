// lctl changelog_register / changelog_deregister.
#include <getopt.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "lustre/changelog_record.h"
#include "lustre_sim/fuse/control_xattr.h"
#include "lustre_sim/tools/lctl_commands.h"
#include "lustre_sim/tools/lfs_commands.h"
#include "lustre_sim/tools/tool_target.h"

namespace fathom::lustre_sim::tools {

int LctlChangelogRegister(const char* device, int argc, char** argv) {
  static const option kLong[] = {{"help", no_argument, nullptr, 'h'},
                                 {"mask", required_argument, nullptr, 'm'},
                                 {"nameonly", no_argument, nullptr, 'n'},
                                 {nullptr, 0, nullptr, 0}};
  const char* mask_text = nullptr;
  bool name_only = false;
  optind = 0;
  int c;
  while ((c = getopt_long(argc, argv, "hm:n", kLong, nullptr)) != -1) {
    switch (c) {
      case 'm':
        mask_text = optarg;
        break;
      case 'n':
        name_only = true;
        break;
      default:
        return kCmdHelp;
    }
  }
  auto target = OpenTarget(device);
  if (!target.ok()) {
    fprintf(stderr, "error: changelog_register: %s\n", strerror(ENODEV));
    return -ENODEV;
  }
  uint64_t mask = CHANGELOG_DEFMASK;
  if (mask_text != nullptr) {
    auto parsed = lustre::ApplyMaskExpression(CHANGELOG_DEFMASK, mask_text);
    if (!parsed.ok()) {
      fprintf(stderr, "error: changelog_register: %s\n", strerror(EINVAL));
      return -EINVAL;
    }
    mask = *parsed;
  }
  auto user = target->state->RegisterUser(target->mdt, mask);
  if (!user.ok()) {
    int err = ErrnoOr(user.status(), EIO);
    fprintf(stderr, "error: changelog_register: %s\n", err == EEXIST ? "User exists" : strerror(err));
    return -err;
  }
  if (name_only) {
    printf("%s\n", user->c_str());
  } else {
    printf("%s: Registered changelog userid '%s'\n", device, user->c_str());
  }
  return 0;
}

int LctlChangelogDeregister(const char* device, int argc, char** argv) {
  static const option kLong[] = {{"help", no_argument, nullptr, 'h'}, {nullptr, 0, nullptr, 0}};
  optind = 0;
  int c;
  while ((c = getopt_long(argc, argv, "h", kLong, nullptr)) != -1) return kCmdHelp;
  if (optind != 1 || argc != 2) return kCmdHelp;
  int id = atoi(argv[1]);
  if (id == 0) sscanf(argv[1], "cl%d", &id);
  if (id <= 0) {
    fprintf(stderr, "error: %s: expect <ID> or cl<ID>[-name] got '%s'\n", strerror(EINVAL), argv[1]);
    return kCmdHelp;
  }
  auto target = OpenTarget(device);
  if (!target.ok()) {
    fprintf(stderr, "error: changelog_deregister: %s\n", strerror(ENODEV));
    return -ENODEV;
  }
  std::string name = "cl" + std::to_string(id);
  bool known = false;
  auto users = target->state->Users(target->mdt);
  if (users.ok()) {
    for (const auto& u : *users) known = known || u.name == name;
  }
  Status st = known ? target->state->DeregisterUser(target->mdt, name)
                    : Status::Error("no user " + name, std::make_error_code(std::errc::no_such_file_or_directory));
  if (!st.ok()) {
    int err = ErrnoOr(st, EIO);
    fprintf(stderr, "error: changelog_deregister: %s\n", err == ENOENT ? "User not found" : strerror(err));
    return -err;
  }
  printf("%s: Deregistered changelog user #%d\n", device, id);
  return 0;
}

}  // namespace fathom::lustre_sim::tools

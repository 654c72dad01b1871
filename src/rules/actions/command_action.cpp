// command_action.cpp — RunCommandAction: the argv expanded, a minimal environment, the user
// to run as, RunChild (core/child_process.h), and CommandOutcome.
#include <pwd.h>
#include <grp.h>
#include <unistd.h>

#include <cstring>

#include "core/child_process.h"
#include "rules/actions/action.h"
#include "rules/actions/outcome.h"

namespace fathom::rules {
namespace {

struct Account {
  bool found = false;
  std::string name;
  std::string home;
  gid_t gid = 0;
};

Account LookUp(uid_t uid) {
  Account a;
  std::vector<char> buf(16384);
  passwd pw{};
  passwd* found = nullptr;
  if (getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) == 0 && found != nullptr) {
    a = {true, pw.pw_name, pw.pw_dir, pw.pw_gid};
  }
  return a;
}

std::vector<gid_t> SupplementaryGroups(const Account& account, gid_t gid) {
  if (!account.found) return {gid};
  std::vector<gid_t> groups(64);
  int n = static_cast<int>(groups.size());
  if (getgrouplist(account.name.c_str(), gid, groups.data(), &n) < 0) {
    groups.resize(static_cast<size_t>(n));
    if (getgrouplist(account.name.c_str(), gid, groups.data(), &n) < 0) return {gid};
  }
  groups.resize(static_cast<size_t>(n));
  return groups;
}

ActionOutcome Permanent(std::string message) { return {ActionOutcome::kPermanent, std::move(message), std::nullopt}; }

}  // namespace

ActionOutcome RunCommandAction(const CommandAction& action, const DeliveryContext& context) {
  if (Status ok = CheckCommandTemplate(action.argv); !ok.ok()) return Permanent(ok.message());
  ChildSpec spec;
  spec.argv = ExpandArgv(action.argv, context);
  spec.timeout_ns = action.timeout_ns;
  spec.replace_env = true;
  spec.own_process_group = true;
  spec.on_started = context.on_process;
  const std::string payload = context.payload_json.empty() ? DeliveryPayload(context) : std::string();
  spec.input = context.payload_json.empty() ? std::string_view(payload) : std::string_view(context.payload_json);
  const uid_t uid = action.run_as_uid.value_or(geteuid());
  const Account account = LookUp(uid);
  std::string as;
  if (action.run_as_uid || action.run_as_gid) {
    if (uid == 0 && action.run_as_uid && !action.allow_root) {
      return Permanent("refused to run the command as uid 0 (root): allow_root permits it");
    }
    if (!action.run_as_gid && !account.found) {
      return Permanent("uid " + std::to_string(uid) + " has no entry in the user database: set run_as_gid");
    }
    const gid_t gid = action.run_as_gid.value_or(account.gid);
    spec.credentials = ChildCredentials{uid, gid, SupplementaryGroups(account, gid)};
    as = " as uid " + std::to_string(uid);
  }
  spec.extra_env = {"PATH=/usr/local/bin:/usr/bin:/bin",
                    "LANG=C.UTF-8",
                    "HOME=" + (account.found && !account.home.empty() ? account.home : std::string("/")),
                    "FATHOM_DELIVERY_ID=" + context.delivery_id,
                    "FATHOM_ATTEMPT=" + std::to_string(context.attempt),
                    "FATHOM_RULE=" + context.rule};
  Result<ChildExit> exit = RunChild(spec);
  if (!exit.ok()) return {ActionOutcome::kRetry, exit.status().message(), std::nullopt};
  if (!exit->started) {
    return Permanent("cannot run " + spec.argv[0] + as + ": " + std::strerror(exit->start_errno));
  }
  return CommandOutcome(*exit, action.retry_exit_codes, action.timeout_ns, action.permanent_exit_codes);
}

}  // namespace fathom::rules

// `fathom store verify|recover` — check a store file for damage, and copy every readable event
// of a damaged one into a new store (the work is fathom/store_check.h's; docs/store.md).
#include <cstdio>
#include <memory>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "fathom/store_check.h"

namespace fathom::cli {
namespace {

struct StoreArgs {
  std::string store;
  std::string to;
};

int RunVerify(const StoreArgs& args) {
  auto file = StoreFile(args.store);
  if (!file.ok()) return Fail("store verify", file.status().message(), kExitUsage);
  auto check = VerifyStore(file.value());
  if (!check.ok()) return Fail("store verify", check.status().message(), kExitFailure);
  std::fputs(FormatStoreCheck(check.value()).c_str(), stdout);
  std::fflush(stdout);
  return check.value().sound() ? kExitOk : kExitFailure;
}

int RunRecover(const StoreArgs& args) {
  auto from = StoreFile(args.store);
  if (!from.ok()) return Fail("store recover", from.status().message(), kExitUsage);
  auto to = StoreFile(args.to);
  if (!to.ok()) return Fail("store recover", to.status().message(), kExitUsage);
  auto recovery = RecoverStore(from.value(), to.value());
  if (!recovery.ok()) return Fail("store recover", recovery.status().message(), kExitFailure);
  std::fputs(FormatStoreCheck(recovery.value().check).c_str(), stdout);
  std::fputs(FormatStoreRecovery(recovery.value(), to.value()).c_str(), stdout);
  std::fflush(stdout);
  return kExitOk;
}

}  // namespace

CommandRunner AddStoreCommand(CLI::App& app) {
  auto args = std::make_shared<StoreArgs>();
  CLI::App* cmd = app.add_subcommand(
      "store", "Check a store file for damage, or save what is readable of a damaged one");
  cmd->require_subcommand(1);
  CLI::App* verify = cmd->add_subcommand(
      "verify",
      "Check every page and every chunk of a store; exit 0 if it is sound, 1 (with a report of "
      "what is damaged and which ids are lost) if not");
  verify->add_option("FILE", args->store, "The store's SQLite file")->required();
  CLI::App* recover = cmd->add_subcommand(
      "recover",
      "Copy every readable event of a (damaged) store into a new store, keeping their ids, and "
      "report the ids lost");
  recover->add_option("FILE", args->store, "The damaged store's SQLite file")->required();
  recover->add_option("--to", args->to, "The new store to write (must not exist)")
      ->required()
      ->type_name("NEW");
  return [args, verify, recover] {
    if (verify->parsed()) return RunVerify(*args);
    if (recover->parsed()) return RunRecover(*args);
    return kExitUsage;
  };
}

}  // namespace fathom::cli

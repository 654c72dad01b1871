// `fathom undelete --list` — the objects the catalog saw removed, newest first (the work is
// catalog/report/removed_report.h's; docs/catalog-queries.md).
#include <cstdio>
#include <ctime>
#include <memory>

#include "catalog/report/query_path.h"
#include "catalog/report/removed_report.h"
#include "cli/catalog_args.h"
#include "cli/cli_util.h"
#include "cli/commands.h"

namespace fathom::cli {
namespace {

struct UndeleteArgs {
  std::string catalog;
  std::string as_user;
  bool list = false;
  std::string path = "/";
  std::string since;
  bool csv = false, json = false, no_header = false;
};

int RunUndelete(const UndeleteArgs& args) {
  if (!args.list) {
    return Fail("undelete",
                "only --list is available: restoring needs a copy of the data, which a trash or "
                "copy policy will keep",
                kExitUsage);
  }
  auto since = ParseSince(args.since);
  if (!since.ok()) return Fail("undelete", since.status().message(), kExitUsage);
  auto catalog = OpenCatalogForQueries(args.catalog, args.as_user);
  if (!catalog.ok()) return Fail("undelete", catalog.status().message(), kExitFailure);
  std::string path = catalog::LexicalPath(catalog::report::CurrentDirectory(), args.path);
  auto table = catalog::report::RemovedList(*catalog.value(), path, since.value());
  if (!table.ok()) return Fail("undelete", table.status().message(), kExitFailure);
  catalog::report::TableFormat format = args.json  ? catalog::report::TableFormat::kJson
                                        : args.csv ? catalog::report::TableFormat::kCsv
                                                   : catalog::report::TableFormat::kText;
  std::string text = catalog::report::Render(table.value(), format, !args.no_header);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  return kExitOk;
}

}  // namespace

CommandRunner AddUndeleteCommand(CLI::App& app) {
  auto args = std::make_shared<UndeleteArgs>();
  CLI::App* cmd = app.add_subcommand(
      "undelete", "List what the catalog saw removed: when, its last path, type, size, owner, "
                  "and who removed it where the source says");
  cmd->footer(
      "Restoring is not available yet: it needs a copy of the data, which a trash or copy "
      "policy (or an HSM) will keep. Removed entries are kept for the catalog's retention "
      "period (30 days by default).\n\n"
      "Examples:\n"
      "  fathom undelete --catalog scratch.db --list\n"
      "  fathom undelete --list /scratch/alice --since 7d\n"
      "  fathom undelete --list /scratch --since '2026-11-20 14:00' --csv");
  AddCatalogOption(*cmd, args->catalog);
  AddAsUserOption(*cmd, args->as_user);
  cmd->add_flag("-L,--list", args->list, "List removed entries, newest first");
  cmd->add_option("PATH", args->path, "Only entries whose last path is PATH or below it (default /)");
  cmd->add_option("--since", args->since,
                  "Only entries removed at or after TIME: a date (2026-11-20, 2026-11-20 14:30) "
                  "or an age (7d, 12h)")
      ->type_name("TIME");
  auto* csv = cmd->add_flag("-c,--csv", args->csv, "Comma-separated values, raw numbers");
  cmd->add_flag("--json", args->json, "One JSON object")->excludes(csv);
  cmd->add_flag("-q,--no-header", args->no_header, "No column header nor total");
  return [args] { return RunUndelete(*args); };
}

}  // namespace fathom::cli

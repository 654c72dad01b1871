// `fathom undelete --list | --restore` — the objects the catalog saw removed, newest first,
// and whether a trash holds them (catalog/report/removed_report.h, policy/undelete.h;
// docs/catalog-queries.md, docs/policies.md); bringing a trashed entry back.
#include <cstdio>
#include <ctime>
#include <memory>

#include "catalog/report/query_path.h"
#include "catalog/report/removed_report.h"
#include "cli/catalog_args.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "policy/undelete.h"

namespace fathom::cli {
namespace {

struct UndeleteArgs {
  std::string catalog;
  std::string as_user;
  bool list = false;
  std::string restore;
  std::string to;
  std::string path = "/";
  std::string since;
  bool csv = false, json = false, no_header = false;
};

int RunRestore(const UndeleteArgs& args) {
  auto journal = policy::ActionJournal::Open(args.catalog, false);
  if (!journal.ok()) return Fail("undelete", journal.status().message(), kExitFailure);
  const std::string what = args.restore.starts_with("[") ? args.restore
                                                         : catalog::LexicalPath(catalog::report::CurrentDirectory(), args.restore);
  const std::string to = args.to.empty() ? "" : catalog::LexicalPath(catalog::report::CurrentDirectory(), args.to);
  auto restored = policy::Restore(**journal, what, to);
  if (!restored.ok()) return Fail("undelete", restored.status().message(), kExitFailure);
  std::printf("restored %s\n", restored->c_str());
  return kExitOk;
}

int RunUndelete(const UndeleteArgs& args) {
  if (!args.restore.empty()) return RunRestore(args);
  if (!args.list) return Fail("undelete", "give --list [PATH] or --restore PATH|FID", kExitUsage);
  auto since = ParseSince(args.since);
  if (!since.ok()) return Fail("undelete", since.status().message(), kExitUsage);
  auto catalog = OpenCatalogForQueries(args.catalog, args.as_user);
  if (!catalog.ok()) return Fail("undelete", catalog.status().message(), kExitFailure);
  std::string path = catalog::LexicalPath(catalog::report::CurrentDirectory(), args.path);
  auto table = catalog::report::RemovedList(*catalog.value(), path, since.value());
  if (!table.ok()) return Fail("undelete", table.status().message(), kExitFailure);
  auto journal = policy::ActionJournal::Open(args.catalog, true);
  if (!journal.ok()) return Fail("undelete", journal.status().message(), kExitFailure);
  Status marked = policy::AddRestorable(*table, **journal);
  if (!marked.ok()) return Fail("undelete", marked.message(), kExitFailure);
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
      "undelete", "List what the catalog saw removed (when, its last path, type, size, owner, who "
                  "removed it where the source says, whether a trash holds it), and restore from a trash");
  cmd->footer(
      "An entry can be restored when a move policy put it in a trash ({move: DIR}) that still "
      "holds it; the journal in the catalog says where. Removed entries are kept for the "
      "catalog's retention period (30 days by default).\n\n"
      "Examples:\n"
      "  fathom undelete --catalog scratch.db --list\n"
      "  fathom undelete --list /scratch/alice --since 7d\n"
      "  fathom undelete --list /scratch --since '2026-11-20 14:00' --csv\n"
      "  fathom undelete --restore /scratch/alice/run3/out.h5\n"
      "  fathom undelete --restore '[0x200000400:0x1f:0x0]' --to /scratch/alice/recovered");
  AddCatalogOption(*cmd, args->catalog);
  AddAsUserOption(*cmd, args->as_user);
  auto* list = cmd->add_flag("-L,--list", args->list, "List removed entries, newest first");
  cmd->add_option("--restore", args->restore, "Bring back the trashed entry whose path (or Lustre FID) was this")
      ->type_name("PATH|FID")
      ->excludes(list);
  cmd->add_option("--to", args->to, "Restore there (a directory, or a new path) instead of its old path")
      ->type_name("DEST");
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

// `fathom report` — Robinhood's rbh-report statistics from the catalog, never from the file
// system (the work is catalog/report/reports.h's; docs/catalog-queries.md).
#include <cctype>
#include <cstdio>
#include <ctime>
#include <memory>

#include "catalog/report/owners.h"
#include "catalog/report/query_path.h"
#include "catalog/report/reports.h"
#include "fathom/policy.h"
#include "policy/policy_tables.h"
#include "cli/catalog_args.h"
#include "cli/cli_util.h"
#include "cli/commands.h"

namespace fathom::cli {
namespace {

namespace report = catalog::report;

constexpr size_t kDefaultTop = 20;  // Robinhood's

struct ReportArgs {
  std::string catalog;
  std::string as_user;
  bool fs_info = false;
  std::string user_info, group_info;
  std::string top_users, top_groups, top_dirs, top_size, oldest_files, oldest_empty_dirs;
  std::string entry_info;
  bool dump = false;
  std::string age_histogram;
  bool size_log2 = false;
  bool extensions = false;
  std::string big_dirs;
  std::string filter_path;
  uint64_t count_min = 0;
  bool size_profile = false;
  bool by_count = false, by_size = false;
  bool csv = false, json = false, no_header = false;
  std::string config, class_info, policy_info;
  // Options with an optional value: whether they were given.
  CLI::Option *class_opt = nullptr, *policy_opt = nullptr;
  CLI::Option *user_opt = nullptr, *group_opt = nullptr, *top_users_opt = nullptr,
              *top_groups_opt = nullptr, *top_dirs_opt = nullptr, *top_size_opt = nullptr,
              *oldest_files_opt = nullptr, *oldest_empty_opt = nullptr;
};

// An optional count ("" when given without a value: Robinhood's 20).
Result<size_t> TopCount(const std::string& text) {
  if (text.empty()) return kDefaultTop;
  if (text.find_first_not_of("0123456789") != std::string::npos || text.size() > 9) {
    return Status::Error("'" + text + "' is not a count");
  }
  return static_cast<size_t>(std::stoul(text));
}

// --big-dirs: a size with a unit (K, M, G, T, P, E: powers of 1024; B: bytes) is a volume, a
// plain number a count of entries.
Status ParseBigDirs(const std::string& text, std::optional<int64_t>& bytes,
                    std::optional<uint64_t>& entries) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  std::string unit = text.substr(digits);
  if (digits == 0 || digits > 15) {
    return Status::Error("--big-dirs '" + text +
                         "': give a size with a unit (500M, 2G, 100B) or a count of entries "
                         "(10000)");
  }
  int64_t n = std::stoll(text.substr(0, digits));
  if (unit.empty()) {
    entries = static_cast<uint64_t>(n);
    return Status::Ok();
  }
  static const std::string kUnits = "BKMGTPE";
  size_t power = unit.size() == 1 ? kUnits.find(static_cast<char>(std::toupper(unit[0])))
                                  : std::string::npos;
  if (power == std::string::npos || (power > 0 && n > (INT64_MAX >> (10 * power)))) {
    return Status::Error("--big-dirs '" + text + "': the unit must be B, K, M, G, T, P or E");
  }
  bytes = n << (10 * power);
  return Status::Ok();
}

int RunReport(const ReportArgs& args) {
  report::TableFormat format = args.json  ? report::TableFormat::kJson
                               : args.csv ? report::TableFormat::kCsv
                                          : report::TableFormat::kText;
  report::ReportOptions options;
  std::string cwd = report::CurrentDirectory();
  if (!args.filter_path.empty()) {
    options.filter_path = catalog::LexicalPath(cwd, args.filter_path);
  }
  options.count_min = args.count_min;
  options.size_profile = args.size_profile;
  options.by_count = args.by_count;
  options.by_size = args.by_size;
  options.now_ns = NowNs();

  policy::PolicyConfig config;
  // Every report asked for, in rbh-report's order; usage errors found before any output.
  std::vector<std::function<Result<report::Table>(catalog::Catalog&)>> reports;
  auto optional_owner = [](const std::string& text, report::Owner owner)
      -> Result<std::optional<uint32_t>> {
    if (text.empty()) return std::optional<uint32_t>();
    FATHOM_ASSIGN_OR_RETURN(uint32_t id, owner == report::Owner::kUser ? report::UserId(text)
                                                                      : report::GroupId(text));
    return std::optional<uint32_t>(id);
  };
  auto add_top = [&](CLI::Option* opt, const std::string& text,
                     std::function<Result<report::Table>(catalog::Catalog&, size_t)> fn) -> Status {
    if (opt->count() == 0) return Status::Ok();
    FATHOM_ASSIGN_OR_RETURN(size_t n, TopCount(text));
    reports.push_back([fn, n](catalog::Catalog& c) { return fn(c, n); });
    return Status::Ok();
  };
  auto plan = [&]() -> Status {
    if (args.fs_info) reports.push_back([&](catalog::Catalog& c) { return report::FsInfo(c, options); });
    for (auto [opt, text, owner] : {std::tuple{args.user_opt, &args.user_info, report::Owner::kUser},
                                    std::tuple{args.group_opt, &args.group_info, report::Owner::kGroup}}) {
      if (opt->count() == 0) continue;
      FATHOM_ASSIGN_OR_RETURN(std::optional<uint32_t> id, optional_owner(*text, owner));
      reports.push_back([&options, owner = owner, id](catalog::Catalog& c) {
        return report::OwnerInfo(c, options, owner, id);
      });
    }
    FATHOM_RETURN_IF_ERROR(add_top(args.top_dirs_opt, args.top_dirs, [&](catalog::Catalog& c, size_t n) {
      return report::TopDirs(c, options, n);
    }));
    FATHOM_RETURN_IF_ERROR(add_top(args.top_size_opt, args.top_size, [&](catalog::Catalog& c, size_t n) {
      return report::TopSize(c, options, n);
    }));
    FATHOM_RETURN_IF_ERROR(add_top(args.top_users_opt, args.top_users, [&](catalog::Catalog& c, size_t n) {
      return report::TopOwners(c, options, report::Owner::kUser, n);
    }));
    FATHOM_RETURN_IF_ERROR(add_top(args.top_groups_opt, args.top_groups, [&](catalog::Catalog& c, size_t n) {
      return report::TopOwners(c, options, report::Owner::kGroup, n);
    }));
    FATHOM_RETURN_IF_ERROR(add_top(args.oldest_files_opt, args.oldest_files, [&](catalog::Catalog& c, size_t n) {
      return report::OldestFiles(c, options, n);
    }));
    FATHOM_RETURN_IF_ERROR(add_top(args.oldest_empty_opt, args.oldest_empty_dirs,
                                   [&](catalog::Catalog& c, size_t n) {
                                     return report::OldestEmptyDirs(c, options, n);
                                   }));
    if (args.dump) reports.push_back([&](catalog::Catalog& c) { return report::Dump(c, options); });
    if (!args.big_dirs.empty()) {
      std::optional<int64_t> bytes;
      std::optional<uint64_t> entries;
      FATHOM_RETURN_IF_ERROR(ParseBigDirs(args.big_dirs, bytes, entries));
      reports.push_back([&options, bytes, entries](catalog::Catalog& c) {
        return report::BigDirs(c, options, bytes, entries);
      });
    }
    if (!args.age_histogram.empty()) {
      bool atime = args.age_histogram == "atime";
      reports.push_back([&options, atime](catalog::Catalog& c) {
        return report::AgeHistogram(c, options, atime);
      });
    }
    if (args.size_log2) reports.push_back([&](catalog::Catalog& c) { return report::SizeLog2(c, options); });
    if (args.extensions) reports.push_back([&](catalog::Catalog& c) { return report::Extensions(c, options); });
    if (args.class_opt->count() > 0) {
      if (args.config.empty()) return Status::Error("--class-info needs the configuration of the classes: --config FILE");
      auto loaded = policy::LoadPolicyConfig(args.config);
      if (!loaded.ok()) return loaded.status();
      config = std::move(loaded).value();
      if (!args.class_info.empty()) {
        Status known = policy::RequireClass(config.fileclasses, config.source, args.class_info);
        if (!known.ok()) return Status::Error("--class-info: " + known.message());
      }
      reports.push_back([&](catalog::Catalog& c) { return policy::ClassInfo(c, config, args.class_info, options.now_ns); });
    }
    if (args.policy_opt->count() > 0) {
      reports.push_back([&](catalog::Catalog&) -> Result<report::Table> {
        FATHOM_ASSIGN_OR_RETURN(auto journal, policy::ActionJournal::Open(args.catalog, true));
        return policy::PolicyInfo(*journal, args.policy_info);
      });
    }
    return Status::Ok();
  };
  if (Status planned = plan(); !planned.ok()) return Fail("report", planned.message(), kExitUsage);
  if (reports.empty() && args.entry_info.empty()) {
    return Fail("report",
                "choose a report: --fs-info, --user-info, --group-info, --top-users, "
                "--top-groups, --top-dirs, --top-size, --oldest-files, --oldest-empty-dirs, "
                "--entry-info, --dump, --big-dirs, --age-histogram, --size-log2, --extensions, "
                "--class-info, --policy-info "
                "(fathom report --help)",
                kExitUsage);
  }
  auto catalog = OpenCatalogForQueries(args.catalog, args.as_user);
  if (!catalog.ok()) return Fail("report", catalog.status().message(), kExitFailure);
  bool first = true;
  auto emit = [&](const std::string& text) {
    if (!first && format != report::TableFormat::kJson) std::fputs("\n", stdout);
    first = false;
    std::fwrite(text.data(), 1, text.size(), stdout);
  };
  if (!args.entry_info.empty()) {
    auto table = report::EntryInfo(*catalog.value(), catalog::LexicalPath(cwd, args.entry_info));
    if (!table.ok()) {
      return Fail("report", "--entry-info: " + table.status().message() + " " + args.catalog,
                  kExitFailure);
    }
    emit(report::RenderEntryInfo(table.value(), format));
  }
  for (const auto& run : reports) {
    auto table = run(*catalog.value());
    if (!table.ok()) return Fail("report", table.status().message(), kExitFailure);
    emit(report::Render(table.value(), format, !args.no_header));
  }
  std::fflush(stdout);
  return kExitOk;
}

CLI::Option* AddOptional(CLI::App* cmd, const std::string& names, std::string& value,
                         const std::string& help, const std::string& type) {
  return cmd->add_option(names, value, help)->expected(0, 1)->type_name(type);
}

}  // namespace

CommandRunner AddReportCommand(CLI::App& app) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "report",
      "Statistics from the catalog as Robinhood's rbh-report prints them, without reading the "
      "file system");
  cmd->footer(
      "Several reports may be asked at once; they are printed in the order above. User, group "
      "and file-system reports read the catalog's kept accounting (the same cost whatever it "
      "holds); with --filter-path they sum the matching entries and add min_size and max_size.\n\n"
      "Examples:\n"
      "  fathom report --catalog scratch.db --fs-info\n"
      "  fathom report --top-users=10 --size-profile\n"
      "  fathom report --user-info=alice --csv\n"
      "  fathom report --top-dirs=5 --by-size --filter-path '/scratch/proj*'\n"
      "  fathom report --big-dirs 100G --json\n"
      "  fathom report --age-histogram=atime --extensions\n"
      "  fathom report --config policies.yaml --class-info\n"
      "  fathom report --policy-info=purge");
  AddCatalogOption(*cmd, args->catalog);
  AddAsUserOption(*cmd, args->as_user);
  cmd->add_option("--config", args->config, "The policy configuration whose file classes --class-info reports")
      ->type_name("FILE");
  cmd->add_flag("-i,--fs-info", args->fs_info, "Count, volume and space used per type");
  args->user_opt = AddOptional(cmd, "-u,--user-info", args->user_info,
                               "Per user and type (only USER when given)", "[USER]");
  args->group_opt = AddOptional(cmd, "-g,--group-info", args->group_info,
                                "Per group and type (only GROUP when given)", "[GROUP]");
  args->top_dirs_opt = AddOptional(cmd, "-d,--top-dirs", args->top_dirs,
                                   "The N directories with most entries below them (--by-size: "
                                   "largest volume) (default 20)",
                                   "[N]");
  args->top_size_opt =
      AddOptional(cmd, "-s,--top-size", args->top_size, "The N largest files (default 20)", "[N]");
  args->top_users_opt = AddOptional(cmd, "-U,--top-users", args->top_users,
                                    "The N users with the largest volume of files (--by-count: "
                                    "most entries) (default 20)",
                                    "[N]");
  args->top_groups_opt = AddOptional(cmd, "--top-groups", args->top_groups,
                                     "The same per group (default 20)", "[N]");
  args->oldest_files_opt = AddOptional(cmd, "-o,--oldest-files", args->oldest_files,
                                       "The N files read longest ago (default 20)", "[N]");
  args->oldest_empty_opt =
      AddOptional(cmd, "-O,--oldest-empty-dirs", args->oldest_empty_dirs,
                  "The N empty directories modified longest ago (default 20)", "[N]");
  cmd->add_option("-e,--entry-info", args->entry_info, "Everything the catalog holds about PATH")
      ->type_name("PATH");
  cmd->add_flag("-D,--dump", args->dump, "Every entry: type, size, user, group, path");
  cmd->add_option("--big-dirs", args->big_dirs,
                  "Directories whose subtree holds more than SIZE bytes (with a unit: 500M, 2G, "
                  "100B) or more than COUNT entries (a plain number)")
      ->type_name("SIZE|COUNT");
  cmd->add_option("--age-histogram", args->age_histogram,
                  "Files per age range of their access or modification time")
      ->check(CLI::IsMember({"atime", "mtime"}))
      ->type_name("atime|mtime");
  args->class_opt = AddOptional(cmd, "--class-info", args->class_info,
                                "Per file class of --config: count, volume, sizes (only CLASS when given)", "[CLASS]");
  args->policy_opt = AddOptional(cmd, "--policy-info", args->policy_info,
                                 "Per policy: runs, actions, failures, volume, last run (only POLICY when given)",
                                 "[POLICY]");
  cmd->add_flag("--size-log2", args->size_log2, "Files per power-of-two size range");
  cmd->add_flag("--extensions", args->extensions, "Files per name extension");
  cmd->add_flag("--size-profile,--szprof", args->size_profile,
                "Add Robinhood's ten size ranges to user, group and fs reports");
  cmd->add_option("-P,--filter-path", args->filter_path,
                  "Only entries whose path (or a parent's) matches GLOB ('*' crosses '/')")
      ->type_name("GLOB");
  cmd->add_option("--count-min", args->count_min, "Leave out rows of fewer than N entries")
      ->check(WholeNumber())
      ->type_name("N");
  auto* by_count = cmd->add_flag("--by-count", args->by_count, "Rank by entry count");
  cmd->add_flag("--by-size", args->by_size, "Rank by volume")->excludes(by_count);
  auto* csv = cmd->add_flag("-c,--csv", args->csv, "Comma-separated values, raw numbers");
  cmd->add_flag("--json", args->json, "One JSON object per report and line")->excludes(csv);
  cmd->add_flag("-q,--no-header", args->no_header, "No column headers nor totals");
  return [args] { return RunReport(*args); };
}

}  // namespace fathom::cli

// `fathom du` — GNU du's output answered from the catalog, never from the file system, with
// rbh-du's -u/-g/-t bounds (the work is catalog/report/du.h's; docs/catalog-queries.md).
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "catalog/report/du.h"
#include "catalog/report/owners.h"
#include "catalog/report/query_path.h"
#include "cli/catalog_args.h"
#include "cli/cli_util.h"
#include "cli/commands.h"

namespace fathom::cli {
namespace {

struct DuArgs {
  std::string catalog;
  std::string as_user;
  std::vector<std::string> paths;
  bool summarize = false;
  bool all = false;
  bool apparent_size = false;
  bool inodes = false;
  bool total = false;
  bool count_links = false;
  bool null_end = false;
  int max_depth = -1;
  std::string block_size_spec;  // the last -B given
  std::string user, group, type;
  // The options that set how sizes are written, to apply in the order they were given.
  CLI::Option* human = nullptr;
  CLI::Option* bytes = nullptr;
  CLI::Option* kilo = nullptr;
  CLI::Option* mega = nullptr;
  CLI::Option* block_size = nullptr;
};

// GNU du's default: $DU_BLOCK_SIZE, $BLOCK_SIZE, $BLOCKSIZE, else 512 with POSIXLY_CORRECT,
// else 1024.
Result<catalog::report::SizeFormat> DefaultFormat() {
  for (const char* name : {"DU_BLOCK_SIZE", "BLOCK_SIZE", "BLOCKSIZE"}) {
    if (const char* spec = std::getenv(name)) return catalog::report::ParseBlockSize(spec);
  }
  return catalog::report::BlockSize(std::getenv("POSIXLY_CORRECT") ? 512 : 1024);
}

Result<catalog::report::DuOptions> MakeOptions(const CLI::App& cmd, const DuArgs& args) {
  catalog::report::DuOptions options;
  FATHOM_ASSIGN_OR_RETURN(options.format, DefaultFormat());
  options.apparent_size = args.apparent_size;
  for (const CLI::Option* opt : cmd.parse_order()) {
    if (opt == args.human) {
      options.format = catalog::report::HumanReadable();
    } else if (opt == args.bytes) {
      options.apparent_size = true;
      options.format = catalog::report::BlockSize(1);
    } else if (opt == args.kilo) {
      options.format = catalog::report::BlockSize(1024);
    } else if (opt == args.mega) {
      options.format = catalog::report::BlockSize(1024 * 1024);
    } else if (opt == args.block_size) {
      // Only the last unit option counts, and when it is -B, the last -B's value.
      FATHOM_ASSIGN_OR_RETURN(options.format, catalog::report::ParseBlockSize(args.block_size_spec));
    }
  }
  if (args.summarize && args.all) {
    return Status::Error("cannot both summarize (-s) and show all entries (-a)");
  }
  if (args.summarize && args.max_depth > 0) {
    return Status::Error("summarizing (-s) conflicts with --max-depth=" +
                         std::to_string(args.max_depth));
  }
  if (args.summarize) options.max_depth = 0;
  if (args.max_depth >= 0) options.max_depth = args.max_depth;
  options.all = args.all;
  options.inodes = args.inodes;
  options.total = args.total;
  options.count_links = args.count_links;
  options.line_end = args.null_end ? '\0' : '\n';
  if (!args.user.empty()) {
    FATHOM_ASSIGN_OR_RETURN(options.filter.uid, catalog::report::UserId(args.user));
  }
  if (!args.group.empty()) {
    FATHOM_ASSIGN_OR_RETURN(options.filter.gid, catalog::report::GroupId(args.group));
  }
  if (!args.type.empty()) {
    FATHOM_ASSIGN_OR_RETURN(options.filter.type, catalog::report::ParseFileType(args.type));
  }
  options.cwd = catalog::report::CurrentDirectory();
  return options;
}

int RunDu(const CLI::App& cmd, const DuArgs& args) {
  auto options = MakeOptions(cmd, args);
  if (!options.ok()) return Fail("du", options.status().message(), kExitUsage);
  if (options.value().inodes && options.value().apparent_size) {
    std::fprintf(stderr,
                 "fathom du: warning: options --apparent-size and -b are ineffective with "
                 "--inodes\n");
  }
  auto catalog = OpenCatalogForQueries(args.catalog, args.as_user);
  if (!catalog.ok()) return Fail("du", catalog.status().message(), kExitFailure);
  bool missing = false;
  catalog::report::DuSink sink;
  sink.line = [](std::string_view line) { std::fwrite(line.data(), 1, line.size(), stdout); };
  sink.missing = [&](const std::string& arg) {
    std::fflush(stdout);
    std::fprintf(stderr, "fathom du: cannot access '%s': not in the catalog %s\n", arg.c_str(),
                 args.catalog.c_str());
    missing = true;
  };
  std::vector<std::string> paths = args.paths.empty() ? std::vector<std::string>{"."} : args.paths;
  Status listed = catalog::report::Du(*catalog.value(), paths, options.value(), sink);
  std::fflush(stdout);
  if (!listed.ok()) return Fail("du", listed.message(), kExitFailure);
  return missing ? kExitFailure : kExitOk;
}

}  // namespace

CommandRunner AddDuCommand(CLI::App& app) {
  auto args = std::make_shared<DuArgs>();
  CLI::App* cmd = app.add_subcommand(
      "du",
      "Disk usage from the catalog, as GNU du prints it, without reading the file system");
  cmd->set_help_flag("--help", "Print this help message and exit");
  cmd->footer(
      "A summary of a directory (-s, -d 0) without -u/-g/-t is read from the catalog's kept "
      "totals: the same cost whatever the directory holds. A path the catalog does not hold is "
      "reported and the others still listed (exit 1).\n\n"
      "Examples:\n"
      "  fathom du --catalog /var/lib/fathom/scratch.db -sh /scratch/alice\n"
      "  fathom du -d 1 -h /scratch | sort -h\n"
      "  fathom du -s -u alice -t f /scratch     # only alice's regular files\n"
      "  fathom du --inodes -d 1 /scratch");
  AddCatalogOption(*cmd, args->catalog);
  AddAsUserOption(*cmd, args->as_user);
  cmd->add_option("PATH", args->paths, "Paths to measure, as the catalog names them (default .)");
  cmd->add_flag("-s,--summarize", args->summarize, "Only a total for each argument");
  cmd->add_flag("-a,--all", args->all, "List files too, not only directories");
  args->human = cmd->add_flag("-h,--human-readable")->description("Sizes in powers of 1024 (1.0K, 12K, 1.1M)");
  args->bytes = cmd->add_flag("-b,--bytes")->description("Apparent sizes in bytes (--apparent-size -B 1)");
  cmd->add_flag("--apparent-size", args->apparent_size,
                "File sizes (st_size) rather than space used (st_blocks)");
  args->block_size = cmd->add_option("-B,--block-size", args->block_size_spec,
                                     "Sizes in units of SIZE (1, 4K, 1KB, 1M; a unit alone, K or "
                                     "MB, is also printed)")
                         ->type_name("SIZE")
                         ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  args->kilo = cmd->add_flag("-k")->description("-B 1K");
  args->mega = cmd->add_flag("-m")->description("-B 1M");
  cmd->add_flag("--inodes", args->inodes, "Count entries instead of sizes");
  cmd->add_option("-d,--max-depth", args->max_depth,
                  "List directories at most N levels below each argument")
      ->check(WholeNumber())
      ->type_name("N");
  cmd->add_flag("-c,--total", args->total, "A last line with the sum of the arguments");
  cmd->add_flag("-l,--count-links", args->count_links,
                "Count a file with several names at each of them");
  cmd->add_flag("-0,--null", args->null_end, "End each line with NUL, not newline");
  cmd->add_option("-u,--user", args->user, "Count only entries owned by USER (name or uid)")
      ->type_name("USER");
  cmd->add_option("-g,--group", args->group, "Count only entries of GROUP (name or gid)")
      ->type_name("GROUP");
  cmd->add_option("-t,--type", args->type, "Count only entries of TYPE: f d l b c p s")
      ->type_name("TYPE");
  return [args, cmd] { return RunDu(*cmd, *args); };
}

}  // namespace fathom::cli

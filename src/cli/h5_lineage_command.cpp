// `fathom h5 lineage TRACE|DIR... [--dataset FILE:/path] [--prov-json]`: which process of which
// job created, wrote and read each dataset, across runs, as text or W3C PROV-JSON
// (docs/h5prov.md).
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "fathom/h5prov.h"

namespace fathom::cli {
namespace {

struct LineageArgs {
  std::vector<std::string> paths;
  std::string dataset;
  bool prov_json = false;
};

int Lineage(const LineageArgs& args) {
  std::vector<std::string> errors;
  const std::vector<h5prov::Trace> traces = h5prov::ReadTraces(args.paths, &errors);
  for (const std::string& e : errors) std::fprintf(stderr, "fathom h5 lineage: %s\n", e.c_str());
  if (traces.empty()) return 1;
  Result<h5prov::Lineage> lineage = h5prov::BuildLineage(traces);
  if (!args.dataset.empty()) lineage = h5prov::FocusLineage(*lineage, args.dataset);
  if (!lineage.ok()) {
    std::fprintf(stderr, "fathom h5 lineage: %s\n", lineage.status().message().c_str());
    return 1;
  }
  std::cout << (args.prov_json ? h5prov::LineageProvJson(*lineage) : h5prov::LineageText(*lineage));
  std::cout.flush();
  return errors.empty() ? 0 : 1;
}

}  // namespace

CommandRunner AddH5LineageCommand(CLI::App& h5) {
  auto args = std::make_shared<LineageArgs>();
  CLI::App* lineage = h5.add_subcommand(
      "lineage",
      "Which process of which job created, wrote and read each dataset, when and with which selections, across "
      "runs: writer -> reader edges and derived datasets, keyed by the file's device and inode and the dataset's "
      "address in it");
  lineage->add_option("trace", args->paths, "Trace files (*.fh5) or directories of them (jobs' OUT/JOB, or OUT)")
      ->required();
  lineage->add_option("--dataset", args->dataset,
                      "Only this dataset, FILE:/path (FILE its real path), and the datasets derived from it or it "
                      "from");
  lineage->add_flag("--prov-json", args->prov_json, "Print the lineage as W3C PROV-JSON");
  return [lineage, args]() -> int { return lineage->parsed() ? Lineage(*args) : 2; };
}

}  // namespace fathom::cli

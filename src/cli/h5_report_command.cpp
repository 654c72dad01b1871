// `fathom h5 report TRACE|DIR... [--json]`: hot functions, latencies, stragglers and datasets
// of HDF5 traces (docs/h5prov.md).
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "fathom/h5prov.h"

namespace fathom::cli {
namespace {

struct ReportArgs {
  std::vector<std::string> paths;
  bool json = false;
};

int Report(const ReportArgs& args) {
  std::vector<h5prov::Trace> traces;
  int rc = 0;
  for (const std::string& path : args.paths) {
    auto files = h5prov::FindTraceFiles(path);
    if (!files.ok()) {
      std::fprintf(stderr, "fathom h5 report: %s\n", files.status().message().c_str());
      rc = 1;
      continue;
    }
    for (const std::string& file : *files) {
      auto trace = h5prov::ReadTrace(file);
      if (!trace.ok()) {
        std::fprintf(stderr, "fathom h5 report: %s (left out)\n", trace.status().message().c_str());
        rc = 1;
        continue;
      }
      traces.push_back(std::move(*trace));
    }
  }
  if (traces.empty()) return 1;
  const h5prov::Report report = h5prov::Analyze(traces);
  std::cout << (args.json ? h5prov::ReportJson(report) : h5prov::ReportText(report));
  std::cout.flush();
  return rc;
}

}  // namespace

CommandRunner AddH5ReportCommand(CLI::App& h5) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* report = h5.add_subcommand(
      "report",
      "What the programs' HDF5 calls cost: hot functions by total time, latency percentiles and log2 histograms "
      "per function, straggling calls and processes (above median + 5 MAD and twice the median), bytes per dataset");
  report->add_option("trace", args->paths, "Trace files (*.fh5) or directories of them (a job's OUT/JOB)")
      ->required();
  report->add_flag("--json", args->json, "Print the report as JSON");
  return [report, args]() -> int { return report->parsed() ? Report(*args) : 2; };
}

}  // namespace fathom::cli

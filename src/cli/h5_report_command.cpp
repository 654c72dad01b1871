// `fathom h5 report TRACE|DIR... [--json | --darshan-text]`: hot functions, latencies,
// stragglers, datasets, collective operations across ranks, access shapes and a timeline of
// HDF5 traces, or Darshan's H5F and H5D counters (docs/h5prov.md).
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
  bool darshan_text = false;
};

int Report(const ReportArgs& args) {
  std::vector<std::string> errors;
  const std::vector<h5prov::Trace> traces = h5prov::ReadTraces(args.paths, &errors);
  for (const std::string& e : errors) std::fprintf(stderr, "fathom h5 report: %s\n", e.c_str());
  if (traces.empty()) return 1;
  if (args.darshan_text) {
    std::cout << h5prov::DarshanText(h5prov::DarshanRecords(traces));
  } else {
    const h5prov::Report report = h5prov::Analyze(traces);
    std::cout << (args.json ? h5prov::ReportJson(report) : h5prov::ReportText(report));
  }
  std::cout.flush();
  return errors.empty() ? 0 : 1;
}

}  // namespace

CommandRunner AddH5ReportCommand(CLI::App& h5) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* report = h5.add_subcommand(
      "report",
      "What the programs' HDF5 calls cost: hot functions by total time, latency percentiles and log2 histograms "
      "per function, straggling calls and processes (above median + 5 MAD and twice the median), bytes per dataset, "
      "collective operations compared across ranks, access shapes, a timeline per process");
  report->add_option("trace", args->paths, "Trace files (*.fh5) or directories of them (a job's OUT/JOB)")
      ->required();
  CLI::Option* json = report->add_flag("--json", args->json, "Print the report as JSON");
  report
      ->add_flag("--darshan-text", args->darshan_text,
                 "Print Darshan's H5F and H5D counters computed from the traces, as darshan-parser prints them")
      ->excludes(json);
  return [report, args]() -> int { return report->parsed() ? Report(*args) : 2; };
}

}  // namespace fathom::cli

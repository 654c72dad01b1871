// `fathom h5`: HDF5 provenance of programs (docs/h5prov.md).
//   fathom h5 run [--job ID] [--out DIR] -- COMMAND...   run COMMAND under libfathom-h5.so
// `fathom h5 dump`, `fathom h5 report`, `fathom h5 lineage` and `fathom h5 events` have files of
// their own.
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "cli/traced_child.h"
#include "fathom/h5prov.h"

namespace fathom::cli {
namespace {

// Starts the command with the plan's environment added, waits, and says what was captured;
// its exit status is ours. The terminal's ^C and ^\ go to the program.
int RunTraced(const h5prov::RunOptions& options) {
  auto plan = h5prov::PlanRun(options);
  if (!plan.ok()) {
    std::fprintf(stderr, "fathom h5 run: %s\n", plan.status().message().c_str());
    return 2;
  }
  const int status = SpawnAndWait(options.command, plan->env, "h5 run");
  if (status == -1) return ExitStatusOf(status);

  uint64_t processes = 0, calls = 0, dropped = 0, damaged = 0;
  if (auto files = h5prov::FindTraceFiles(plan->dir); files.ok()) {
    for (const std::string& file : *files) {
      auto trace = h5prov::ReadTrace(file);
      if (!trace.ok()) continue;
      ++processes;
      calls += trace->calls.size();
      dropped += trace->dropped;
      damaged += trace->problems.empty() ? 0 : 1;
    }
  }
  std::fprintf(stderr,
               "fathom h5: job %s: %llu process image(s) called HDF5, %llu calls recorded, %llu dropped%s; "
               "traces in %s\n",
               plan->job.c_str(), static_cast<unsigned long long>(processes), static_cast<unsigned long long>(calls),
               static_cast<unsigned long long>(dropped),
               damaged > 0 ? (", " + std::to_string(damaged) + " cut short (killed)").c_str() : "",
               plan->dir.c_str());
  return ExitStatusOf(status);
}

}  // namespace

CommandRunner AddH5Command(CLI::App& app) {
  CLI::App* h5 = app.add_subcommand("h5", "Capture the HDF5 operations of programs (provenance) and read them");
  h5->require_subcommand(1);

  auto options = std::make_shared<h5prov::RunOptions>();
  CLI::App* run = h5->add_subcommand(
      "run",
      "Run COMMAND with libfathom-h5.so preloaded: every process that calls HDF5 writes a trace of its "
      "HDF5 operations to OUT/JOB/");
  run->add_option("--job", options->job,
                  "Job id the traces are filed under (default: $SLURM_JOB_ID, $PBS_JOBID, else HOST-TIME-PID)");
  run->add_option("--out", options->out, "Directory of jobs' traces")->default_str("fathom-h5");
  run->add_option("command", options->command, "The command and its arguments (after --)")->required();
  run->positionals_at_end();

  CommandRunner dump = AddH5DumpCommand(*h5);
  CommandRunner report = AddH5ReportCommand(*h5);
  CommandRunner lineage = AddH5LineageCommand(*h5);
  CommandRunner events = AddH5EventsCommand(*h5);
  return [h5, run, options, dump, report, lineage, events]() -> int {
    if (run->parsed()) return RunTraced(*options);
    if (h5->got_subcommand("report")) return report();
    if (h5->got_subcommand("lineage")) return lineage();
    if (h5->got_subcommand("events")) return events();
    return dump();
  };
}

}  // namespace fathom::cli

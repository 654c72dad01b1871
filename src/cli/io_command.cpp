// `fathom io`: I/O tracing of programs (docs/io.md).
//   fathom io run [--job ID] [--out DIR] -- COMMAND...   run COMMAND under libfathom-io.so
//   fathom io dump TRACE|DIR... [--expand]               the traces as JSON lines
//   fathom io report JOB-DIR|TRACE... [--json|--darshan-text]  a job's I/O: volumes, rates, modes, phases,
//                                                        findings; or Darshan's counters
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <iostream>

#include "cli/commands.h"
#include "fathom/iotrace.h"

extern char** environ;

namespace fathom::cli {
namespace {

// Starts the command with the plan's environment and waits; its exit status is ours.
int RunTraced(const iotrace::RunOptions& options) {
  auto plan = iotrace::PlanRun(options);
  if (!plan.ok()) {
    std::fprintf(stderr, "fathom io run: %s\n", plan.status().message().c_str());
    return 2;
  }
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const std::string& mine : plan->env) replaced |= mine.compare(0, name.size() + 1, name + "=") == 0;
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), plan->env.begin(), plan->env.end());
  std::vector<char*> envp, argv;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> command = options.command;
  for (std::string& a : command) argv.push_back(a.data());
  argv.push_back(nullptr);

  // The terminal's ^C and ^\ go to the program; fathom waits for it to end.
  struct sigaction ignore {}, old_int {}, old_quit {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGQUIT, &ignore, &old_quit);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGQUIT);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, argv[0], nullptr, &attr, argv.data(), envp.data());
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGQUIT, &old_quit, nullptr);
    std::fprintf(stderr, "fathom io run: cannot start %s: %s\n", argv[0], std::strerror(rc));
    return 127;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGQUIT, &old_quit, nullptr);

  uint64_t processes = 0, operations = 0, dropped = 0, damaged = 0;
  if (auto files = iotrace::FindTraceFiles(plan->dir); files.ok()) {
    for (const std::string& file : *files) {
      auto trace = iotrace::ReadTrace(file);
      if (!trace.ok()) continue;
      ++processes;
      operations += trace->Operations();
      dropped += trace->Dropped();
      damaged += trace->problems.empty() ? 0 : 1;
    }
  }
  std::fprintf(stderr,
               "fathom io: job %s: %llu process image(s), %llu operations traced, %llu dropped%s; "
               "traces in %s\n",
               plan->job.c_str(), static_cast<unsigned long long>(processes),
               static_cast<unsigned long long>(operations), static_cast<unsigned long long>(dropped),
               damaged > 0 ? (", " + std::to_string(damaged) + " cut short (killed)").c_str() : "",
               plan->dir.c_str());
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int Dump(const std::vector<std::string>& paths, bool expand) {
  int rc = 0;
  for (const std::string& path : paths) {
    auto files = iotrace::FindTraceFiles(path);
    if (!files.ok()) {
      std::fprintf(stderr, "fathom io dump: %s\n", files.status().message().c_str());
      rc = 1;
      continue;
    }
    for (const std::string& file : *files) {
      auto trace = iotrace::ReadTrace(file);
      if (!trace.ok()) {
        std::fprintf(stderr, "fathom io dump: %s\n", trace.status().message().c_str());
        rc = 1;
        continue;
      }
      for (const std::string& problem : trace->problems) {
        std::fprintf(stderr, "fathom io dump: warning: %s\n", problem.c_str());
      }
      std::cout << iotrace::TraceJson(*trace, expand) << '\n';
    }
  }
  std::cout.flush();
  return rc;
}

struct ReportArgs {
  std::vector<std::string> paths;
  bool json = false;
  bool darshan_text = false;
  iotrace::AnalysisOptions options;
};

int Report(const ReportArgs& args) {
  std::vector<iotrace::Trace> traces;
  int rc = 0;
  for (const std::string& path : args.paths) {
    auto files = iotrace::FindTraceFiles(path);
    if (!files.ok()) {
      std::fprintf(stderr, "fathom io report: %s\n", files.status().message().c_str());
      return 1;
    }
    for (const std::string& file : *files) {
      auto trace = iotrace::ReadTrace(file);
      if (!trace.ok()) {
        std::fprintf(stderr, "fathom io report: %s (left out)\n", trace.status().message().c_str());
        rc = 1;
        continue;
      }
      traces.push_back(std::move(*trace));
    }
  }
  if (args.darshan_text) {
    std::cout << iotrace::DarshanText(traces, args.options);
    std::cout.flush();
    return rc;
  }
  auto report = iotrace::AnalyzeJob(traces, args.options);
  if (!report.ok()) {
    std::fprintf(stderr, "fathom io report: %s\n", report.status().message().c_str());
    return 1;
  }
  std::cout << (args.json ? iotrace::ReportJson(*report) + "\n" : iotrace::ReportText(*report));
  std::cout.flush();
  return rc;
}

}  // namespace

CommandRunner AddIoCommand(CLI::App& app) {
  CLI::App* io = app.add_subcommand("io", "Trace the I/O of programs and read the traces");
  io->require_subcommand(1);

  auto options = std::make_shared<iotrace::RunOptions>();
  CLI::App* run = io->add_subcommand(
      "run", "Run COMMAND with libfathom-io.so preloaded: every process it starts writes a trace of its "
             "I/O to OUT/JOB/");
  run->add_option("--job", options->job,
                  "Job id the traces are filed under (default: $SLURM_JOB_ID, $PBS_JOBID, else HOST-TIME-PID)");
  run->add_option("--out", options->out, "Directory of jobs' traces")->default_str("fathom-io");
  run->add_option("--quantum-ms", options->quantum_ms,
                  "Time quantum: runs are cut at its boundaries, so per-quantum figures stay exact")
      ->default_str("1000");
  run->add_flag("!--no-compress", options->compress,
                "Write every operation as its own record (a baseline for compression ratios)");
  run->add_option("command", options->command, "The command and its arguments (after --)")->required();
  run->positionals_at_end();

  auto paths = std::make_shared<std::vector<std::string>>();
  auto expand = std::make_shared<bool>(false);
  CLI::App* dump = io->add_subcommand("dump", "Print traces as JSON, one line per process image");
  dump->add_option("trace", *paths, "Trace files (*.fio), or directories of them")->required();
  dump->add_flag("--expand", *expand, "Also list every operation of every run");

  auto report = std::make_shared<ReportArgs>();
  CLI::App* report_command = io->add_subcommand(
      "report", "A job's I/O from its traces: volumes and operations per layer, metadata rates, access sizes, "
                "sequentiality, bandwidth over time, phases, I/O mode (N-N, N-1, N-M, 1-1) and findings");
  report_command->add_option("trace", report->paths, "The job's trace directory (OUT/JOB), or trace files")->required();
  report_command->add_flag("--json", report->json, "One JSON object with every figure and the per-second series");
  report_command->add_flag("--darshan-text", report->darshan_text,
                           "POSIX and STDIO counters per file and rank, as darshan-parser prints them");
  report_command->add_flag("--all-files", report->options.all_files,
                           "Count system files too (/etc, /usr, /lib, /proc, /var but /var/tmp, ...)");
  report_command->add_option("--phase-threshold", report->options.phase_threshold,
                             "A second is in an I/O phase above this share of the busiest second's bytes")
      ->default_str("0.01")
      ->check(CLI::Range(0.0, 1.0));
  report_command->add_option("--phase-gap", report->options.phase_gap,
                             "Seconds of quiet that still join two stretches into one phase")
      ->default_str("2")
      ->check(CLI::NonNegativeNumber);

  return [=]() -> int {
    if (run->parsed()) return RunTraced(*options);
    if (dump->parsed()) return Dump(*paths, *expand);
    if (report_command->parsed()) return Report(*report);
    return 2;
  };
}

}  // namespace fathom::cli

// `fathom h5`: HDF5 provenance of programs (docs/h5prov.md).
//   fathom h5 run [--job ID] [--out DIR] -- COMMAND...   run COMMAND under libfathom-h5.so
// `fathom h5 dump` has a file of its own.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "cli/commands.h"
#include "fathom/h5prov.h"

extern char** environ;

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
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('=') + 1);
    bool replaced = false;
    for (const std::string& mine : plan->env) replaced |= mine.compare(0, name.size(), name) == 0;
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), plan->env.begin(), plan->env.end());
  std::vector<char*> envp, argv;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> command = options.command;
  for (std::string& a : command) argv.push_back(a.data());
  argv.push_back(nullptr);

  struct sigaction ignore {}, old_int{}, old_quit{};
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
  int status = 0;
  if (rc == 0) {
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGQUIT, &old_quit, nullptr);
  if (rc != 0) {
    std::fprintf(stderr, "fathom h5 run: cannot start %s: %s\n", argv[0], std::strerror(rc));
    return 127;
  }

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
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
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
  return [run, options, dump]() -> int {
    if (run->parsed()) return RunTraced(*options);
    return dump();
  };
}

}  // namespace fathom::cli

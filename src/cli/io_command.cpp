// `fathom io`: I/O tracing of programs (docs/io.md).
//   fathom io run [--job ID] [--out DIR] [--publish URL] -- COMMAND...
//                                                        run COMMAND under libfathom-io.so; with
//                                                        --publish, its traces also go to NATS
//   fathom io dump TRACE|DIR|JOB.fiojob... [--expand]    the traces as JSON lines
//   fathom io report JOB-DIR|TRACE|JOB.fiojob... [--json|--darshan-text]  a job's I/O: volumes,
//                                                        rates, modes, phases, findings; or
//                                                        Darshan's counters
//   fathom io compress JOB-DIR|TRACE... --out JOB.fiojob a job's traces in one file, compressed
//                                                        across its processes
// `fathom io publish` and `fathom io fetch` (traces over NATS) have files of their own.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <thread>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/traced_child.h"
#include "fathom/io_transport.h"
#include "fathom/iotrace.h"

namespace fathom::cli {
namespace {

struct PublishArgs {
  std::string to;            // nats:// servers; "" : the traces stay local only
  std::string wait = "30s";  // how long the remainder may take once the command ended
};

// A TracePublisher on its own thread while the command runs.
class Forwarding {
 public:
  explicit Forwarding(std::unique_ptr<iotrace::TracePublisher> publisher)
      : publisher_(std::move(publisher)), thread_([this] { status_ = publisher_->Run(); }) {}
  ~Forwarding() {
    if (!thread_.joinable()) return;
    publisher_->Finish(std::chrono::milliseconds(0));
    thread_.join();
  }
  Forwarding(const Forwarding&) = delete;
  Forwarding& operator=(const Forwarding&) = delete;

  // The command ended: what is left goes now; the publisher gives up `wait` after this call.
  void Over(std::chrono::milliseconds wait) { publisher_->Finish(wait); }
  // Waits until every byte is acknowledged, or the publisher gave up.
  Status Join() {
    thread_.join();
    return status_;
  }
  uint64_t bytes() const { return publisher_->figures().bytes; }

 private:
  std::unique_ptr<iotrace::TracePublisher> publisher_;
  Status status_;  // written by the thread, read after join
  std::thread thread_;
};

// Runs the command under the tracer, forwarding its traces to NATS when asked. The exit status
// is the command's, whether or not the traces reached NATS (a failure to publish is said on
// stderr, with how to send them later).
int RunTraced(const iotrace::RunOptions& options, const PublishArgs& publish) {
  auto plan = iotrace::PlanRun(options);
  if (!plan.ok()) {
    std::fprintf(stderr, "fathom io run: %s\n", plan.status().message().c_str());
    return 2;
  }
  std::unique_ptr<Forwarding> forwarding;
  std::chrono::milliseconds wait{0};
  if (!publish.to.empty()) {
    auto seconds = ParseDuration(publish.wait);
    if (!seconds.ok()) return Fail("io run", "--publish-wait: " + seconds.status().message(), 2);
    wait = *seconds;
    iotrace::TransportOptions transport;
    transport.endpoint = publish.to;
    transport.job = plan->job;
    transport.dir = plan->dir;
    auto publisher = iotrace::TracePublisher::Open(transport);
    if (!publisher.ok()) return Fail("io run", "--publish: " + publisher.status().message(), 2);
    forwarding = std::make_unique<Forwarding>(std::move(*publisher));
  }
  const int status = SpawnAndWait(options.command, plan->env, "io run");
  if (forwarding) forwarding->Over(wait);

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
  Status published;
  std::string sent;
  if (forwarding) {
    published = forwarding->Join();
    sent = "; " + std::to_string(forwarding->bytes()) + " bytes published to " + publish.to;
  }
  std::fprintf(stderr,
               "fathom io: job %s: %llu process image(s), %llu operations traced, %llu dropped%s; "
               "traces in %s%s\n",
               plan->job.c_str(), static_cast<unsigned long long>(processes),
               static_cast<unsigned long long>(operations),
               static_cast<unsigned long long>(dropped),
               damaged > 0 ? (", " + std::to_string(damaged) + " cut short (killed)").c_str() : "",
               plan->dir.c_str(), sent.c_str());
  if (!published.ok()) {
    std::fprintf(
        stderr,
        "fathom io run: error: the traces were not all published: %s; they are kept in %s: "
        "send them later with `fathom io publish %s --to %s --job %s`\n",
        published.message().c_str(), plan->dir.c_str(), plan->dir.c_str(), publish.to.c_str(),
        plan->job.c_str());
  }
  return ExitStatusOf(status);
}

void PrintTrace(const iotrace::Trace& trace, bool expand) {
  for (const std::string& problem : trace.problems) {
    std::fprintf(stderr, "fathom io dump: warning: %s\n", problem.c_str());
  }
  std::cout << iotrace::TraceJson(trace, expand) << '\n';
}

int Dump(const std::vector<std::string>& paths, bool expand) {
  int rc = 0;
  for (const std::string& path : paths) {
    if (iotrace::IsJobFile(path)) {
      auto traces = iotrace::ReadJob(path);
      if (!traces.ok()) {
        std::fprintf(stderr, "fathom io dump: %s\n", traces.status().message().c_str());
        rc = 1;
        continue;
      }
      for (const iotrace::Trace& trace : *traces) PrintTrace(trace, expand);
      continue;
    }
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
      PrintTrace(*trace, expand);
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

// The traces of `paths` (job files, trace files, directories of them) into `traces`; 0, or 1
// when some were left out; -1 when a path cannot be read at all.
int ReadTraces(const char* command, const std::vector<std::string>& paths,
               std::vector<iotrace::Trace>& traces) {
  int rc = 0;
  for (const std::string& path : paths) {
    if (iotrace::IsJobFile(path)) {
      auto job = iotrace::ReadJob(path);
      if (!job.ok()) {
        std::fprintf(stderr, "fathom io %s: %s\n", command, job.status().message().c_str());
        return -1;
      }
      for (iotrace::Trace& trace : *job) traces.push_back(std::move(trace));
      continue;
    }
    auto files = iotrace::FindTraceFiles(path);
    if (!files.ok()) {
      std::fprintf(stderr, "fathom io %s: %s\n", command, files.status().message().c_str());
      return -1;
    }
    for (const std::string& file : *files) {
      auto trace = iotrace::ReadTrace(file);
      if (!trace.ok()) {
        std::fprintf(stderr, "fathom io %s: %s (left out)\n", command,
                     trace.status().message().c_str());
        rc = 1;
        continue;
      }
      traces.push_back(std::move(*trace));
    }
  }
  return rc;
}

int Report(const ReportArgs& args) {
  std::vector<iotrace::Trace> traces;
  const int rc = ReadTraces("report", args.paths, traces);
  if (rc < 0) return 1;
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

struct CompressArgs {
  std::vector<std::string> paths;
  std::string out;
};

// Writes the job file and prints its figures beside the traces' and the raw operations'.
int Compress(const CompressArgs& args) {
  std::vector<iotrace::Trace> traces;
  int rc = ReadTraces("compress", args.paths, traces);
  if (rc < 0) return 1;
  const iotrace::CompressedJob job = iotrace::CompressJob(traces);
  std::ofstream out(args.out, std::ios::binary | std::ios::trunc);
  out.write(job.bytes.data(), static_cast<std::streamsize>(job.bytes.size()));
  out.close();
  if (!out) {
    std::fprintf(stderr, "fathom io compress: cannot write %s: %s\n", args.out.c_str(),
                 std::strerror(errno));
    return 1;
  }
  const iotrace::CompressionFigures& f = job.figures;
  const auto u = [](uint64_t v) { return static_cast<unsigned long long>(v); };
  std::printf("%llu process image(s), %llu operations\n", u(f.processes), u(f.operations));
  std::printf("raw (%llu B per operation): %llu records, %llu bytes\n", u(iotrace::kRawRecordBytes),
              u(f.operations), u(f.raw_bytes));
  std::printf("first pass (the traces):   %llu runs, %llu bytes, %.1fx\n", u(f.runs),
              u(f.first_pass_bytes), f.FirstPassRatio());
  std::printf(
      "second pass (%s): %llu groups (%llu of offsets a*rank+b), %llu bytes, %.1fx over the first "
      "pass\n",
      args.out.c_str(), u(f.groups), u(f.linear_groups), u(f.second_pass_bytes),
      f.SecondPassRatio());
  return rc;
}

}  // namespace

CommandRunner AddIoCommand(CLI::App& app) {
  CLI::App* io = app.add_subcommand("io", "Trace the I/O of programs and read the traces");
  io->require_subcommand(1);

  auto options = std::make_shared<iotrace::RunOptions>();
  CLI::App* run = io->add_subcommand(
      "run",
      "Run COMMAND with libfathom-io.so preloaded: every process it starts writes a trace of its "
      "I/O to OUT/JOB/");
  run->add_option(
      "--job", options->job,
      "Job id the traces are filed under (default: $SLURM_JOB_ID, $PBS_JOBID, else HOST-TIME-PID)");
  run->add_option("--out", options->out, "Directory of jobs' traces")->default_str("fathom-io");
  run->add_option("--quantum-ms", options->quantum_ms,
                  "Time quantum: runs are cut at its boundaries, so per-quantum figures stay exact")
      ->default_str("1000");
  run->add_flag("!--no-compress", options->compress,
                "Write every operation as its own record (a baseline for compression ratios)");
  auto publish = std::make_shared<PublishArgs>();
  run->add_option(
         "--publish", publish->to,
         "Also send the traces to NATS JetStream while COMMAND runs (nats://HOST:PORT, "
         "several separated by commas; stream FATHOM_IO, subject fathom.io.JOB); the files "
         "stay in OUT/JOB. If NATS does not take them, the exit status is still COMMAND's "
         "and the error says how to send them later (fathom io publish)")
      ->type_name("URL");
  run->add_option("--publish-wait", publish->wait,
                  "Once COMMAND ended, how long to keep trying to send what is left before giving "
                  "up (90s, 15m...)")
      ->type_name("DURATION")
      ->default_str("30s");
  run->add_option("command", options->command, "The command and its arguments (after --)")
      ->required();
  run->positionals_at_end();

  auto paths = std::make_shared<std::vector<std::string>>();
  auto expand = std::make_shared<bool>(false);
  CLI::App* dump = io->add_subcommand("dump", "Print traces as JSON, one line per process image");
  dump->add_option("trace", *paths,
                   "Trace files (*.fio), directories of them, or job files (*.fiojob)")
      ->required();
  dump->add_flag("--expand", *expand, "Also list every operation of every run");

  auto report = std::make_shared<ReportArgs>();
  CLI::App* report_command = io->add_subcommand(
      "report",
      "A job's I/O from its traces: volumes and operations per layer, metadata rates, access "
      "sizes, "
      "sequentiality, bandwidth over time, phases, I/O mode (N-N, N-1, N-M, 1-1) and findings");
  report_command
      ->add_option("trace", report->paths,
                   "The job's trace directory (OUT/JOB), trace files, or its job file (*.fiojob)")
      ->required();
  report_command->add_flag("--json", report->json,
                           "One JSON object with every figure and the per-second series");
  report_command->add_flag(
      "--darshan-text", report->darshan_text,
      "POSIX and STDIO counters per file and rank, as darshan-parser prints them");
  report_command->add_flag(
      "--all-files", report->options.all_files,
      "Count system files too (/etc, /usr, /lib, /proc, /var but /var/tmp, ...)");
  report_command
      ->add_option("--phase-threshold", report->options.phase_threshold,
                   "A second is in an I/O phase above this share of the busiest second's bytes")
      ->default_str("0.01")
      ->check(CLI::Range(0.0, 1.0));
  report_command
      ->add_option("--phase-gap", report->options.phase_gap,
                   "Seconds of quiet that still join two stretches into one phase")
      ->default_str("2")
      ->check(CLI::NonNegativeNumber);

  auto compress = std::make_shared<CompressArgs>();
  CLI::App* compress_command = io->add_subcommand(
      "compress",
      "Put a job's traces in one job file, compressed across its processes (runs alike merged, "
      "offsets a*rank+b recognised; lossless), and print the sizes raw, first and second pass");
  compress_command
      ->add_option("trace", compress->paths, "The job's trace directory (OUT/JOB), or trace files")
      ->required();
  compress_command->add_option("--out", compress->out, "The job file to write (JOB.fiojob)")
      ->required();

  CommandRunner servers = AddIoServerCommands(*io);
  CommandRunner publish_command = AddIoPublishCommand(*io);
  CommandRunner fetch = AddIoFetchCommand(*io);

  return [=]() -> int {
    if (run->parsed()) return RunTraced(*options, *publish);
    if (io->got_subcommand("publish")) return publish_command();
    if (io->got_subcommand("fetch")) return fetch();
    if (compress_command->parsed()) return Compress(*compress);
    if (dump->parsed()) return Dump(*paths, *expand);
    if (report_command->parsed()) return Report(*report);
    return servers();
  };
}

}  // namespace fathom::cli

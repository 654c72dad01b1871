// `fathom io fetch --from nats://... --job ID [--out DIR]`: a job's trace files rebuilt from
// NATS JetStream into DIR/ID, byte for byte as they were published.
#include <cstdio>
#include <memory>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "fathom/io_transport.h"

namespace fathom::cli {
namespace {

struct FetchArgs {
  std::string from;
  std::string job;
  std::string out = "fathom-io";
};

int Fetch(const FetchArgs& args) {
  if (args.job.empty() || args.job == "." || args.job == ".." ||
      args.job.find('/') != std::string::npos) {
    return Fail("io fetch", "--job '" + args.job + "' cannot name a directory under " + args.out,
                kExitUsage);
  }
  const std::string dir = args.out + "/" + args.job;
  auto figures = iotrace::FetchJobTraces(args.from, args.job, dir);
  if (!figures.ok()) return Fail("io fetch", figures.status().message(), kExitFailure);
  std::printf(
      "fathom io fetch: job %s: %llu file(s), %llu bytes from %llu message(s) written to %s\n",
      args.job.c_str(), static_cast<unsigned long long>(figures->files),
      static_cast<unsigned long long>(figures->bytes),
      static_cast<unsigned long long>(figures->messages), dir.c_str());
  return kExitOk;
}

}  // namespace

CommandRunner AddIoFetchCommand(CLI::App& io) {
  auto args = std::make_shared<FetchArgs>();
  CLI::App* fetch = io.add_subcommand(
      "fetch",
      "Write a job's trace files from NATS JetStream (stream FATHOM_IO) into OUT/JOB, as they were "
      "published; fetching again gives the same files");
  fetch
      ->add_option("--from", args->from,
                   "NATS servers: nats://HOST:PORT, several separated by commas")
      ->type_name("URL")
      ->required();
  fetch->add_option("--job", args->job, "The job id the traces were published under")
      ->type_name("ID")
      ->required();
  fetch->add_option("--out", args->out, "Directory of jobs' traces (the files go to OUT/JOB)")
      ->type_name("DIR")
      ->default_str("fathom-io");
  return [args] { return Fetch(*args); };
}

}  // namespace fathom::cli

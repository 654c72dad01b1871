// `fathom io publish DIR --to nats://... [--job ID]`: sends a job's trace files kept on disk to
// NATS JetStream (what `fathom io run --publish` could not send), and only what the stream does
// not hold yet.
#include <cstdio>
#include <filesystem>
#include <memory>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "fathom/io_transport.h"

namespace fathom::cli {
namespace {

struct PublishArgs {
  std::string dir;
  std::string to;
  std::string job;  // "" : the directory's name
  std::string wait = "30s";
};

int Publish(const PublishArgs& args) {
  auto wait = ParseDuration(args.wait);
  if (!wait.ok()) return Fail("io publish", "--wait: " + wait.status().message(), kExitUsage);
  iotrace::TransportOptions options;
  options.endpoint = args.to;
  options.dir = args.dir;
  options.job = args.job.empty()
                    ? std::filesystem::path(args.dir).lexically_normal().filename().string()
                    : args.job;
  if (options.job.empty() || options.job == "." || options.job == "..") {
    return Fail("io publish", "cannot tell the job from " + args.dir + ": give --job", kExitUsage);
  }
  auto figures = iotrace::PublishJobTraces(options, *wait);
  if (!figures.ok()) return Fail("io publish", figures.status().message(), kExitFailure);
  std::printf(
      "fathom io publish: job %s: %llu file(s), %llu bytes published in %llu message(s) to %s "
      "(%llu bytes "
      "were there already)\n",
      options.job.c_str(), static_cast<unsigned long long>(figures->files),
      static_cast<unsigned long long>(figures->bytes),
      static_cast<unsigned long long>(figures->messages), args.to.c_str(),
      static_cast<unsigned long long>(figures->bytes_held));
  return kExitOk;
}

}  // namespace

CommandRunner AddIoPublishCommand(CLI::App& io) {
  auto args = std::make_shared<PublishArgs>();
  CLI::App* publish = io.add_subcommand("publish",
                                        "Send a job's trace files to NATS JetStream (stream "
                                        "FATHOM_IO, subject fathom.io.JOB): what the "
                                        "stream does not hold yet, each range acknowledged");
  publish->add_option("dir", args->dir, "The job's trace directory (OUT/JOB of fathom io run)")
      ->type_name("DIR")
      ->required();
  publish
      ->add_option("--to", args->to, "NATS servers: nats://HOST:PORT, several separated by commas")
      ->type_name("URL")
      ->required();
  publish
      ->add_option("--job", args->job,
                   "The job id the traces are filed under (default: DIR's name)")
      ->type_name("ID");
  publish
      ->add_option("--wait", args->wait,
                   "How long to keep trying while NATS does not answer (90s, 15m...)")
      ->type_name("DURATION")
      ->default_str("30s");
  return [args] { return Publish(*args); };
}

}  // namespace fathom::cli

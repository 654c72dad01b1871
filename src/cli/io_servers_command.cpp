// `fathom io servers` (sample the storage servers' statistics into a samples file) and
// `fathom io anomalies` (the targets much slower than their peers in it).
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <set>

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "iotrace/servers/anomaly_json.h"
#include "cli/signal_waiter.h"
#include "cli/cli_util.h"
#include "fathom/io_servers.h"
#include "fathom/policy.h"
#include "policy/alert_sinks.h"

namespace fathom::cli {
namespace {

struct ServersArgs {
  std::string out = "fathom-io-servers.db";
  std::string interval = "1s";
  uint64_t count = 0;
  io::SamplerOptions sampler;
};

struct AnomaliesArgs {
  std::string samples = "fathom-io-servers.db";
  std::string window = "1h";
  bool json = false;
  std::string alerts;  // a policies file whose alert_sinks get the anomalies
  io::AnomalyOptions options;
};

int Servers(const ServersArgs& args) {
  auto interval = DurationNs("--interval", args.interval);
  if (!interval.ok()) {
    spdlog::error("{}", interval.status().message());
    return 2;
  }
  std::mutex mu;
  std::condition_variable stop_cv;
  bool stop = false;
  SignalWaiter signals([&](int) {
    std::lock_guard lock(mu);
    stop = true;
    stop_cv.notify_all();
  });
  auto store = io::SampleStore::Open(args.out, true);
  if (!store.ok()) {
    spdlog::error("{}", store.status().message());
    return 1;
  }
  io::ServerSampler sampler(args.sampler);
  std::set<std::string> reported;  // each problem is said once
  uint64_t reads = 0, rows = 0;
  auto next = std::chrono::steady_clock::now();
  for (;;) {
    io::SampleRead read = sampler.Read();
    for (const std::string& p : read.problems) {
      if (reported.insert(p).second) spdlog::warn("{}", p);
    }
    if (Status st = (*store)->Append(read.samples); !st.ok()) {
      spdlog::error("{}", st.message());
      return 1;
    }
    rows += read.samples.size();
    if (reads++ == 0)
      spdlog::info("io servers: baseline read; sampling every {} into {}", args.interval, args.out);
    if (args.count != 0 && reads > args.count) break;  // the first read is the baseline
    next += std::chrono::nanoseconds(*interval);
    std::unique_lock lock(mu);
    if (stop_cv.wait_until(lock, next, [&] { return stop; })) break;
  }
  spdlog::info("io servers: {} samples in {}", rows, args.out);
  return 0;
}

// Sends the anomalies to the alert sinks of the policies file `path`; false if one failed.
bool SendAlerts(const std::string& path, const std::vector<std::string>& keys,
                const std::vector<std::string>& lines) {
  auto config = policy::LoadPolicyConfig(path);
  if (!config.ok()) {
    spdlog::error("{}", config.status().message());
    return false;
  }
  const policy::AlertSinks& sinks = config->alert_sinks;
  if (sinks.log_file.empty() && !sinks.mail && !sinks.webhook) {
    spdlog::error("{} has no alert_sinks: nothing to send the anomalies to (docs/policies.md)",
                  path);
    return false;
  }
  std::vector<policy::AlertEvent> events;
  for (size_t i = 0; i < keys.size(); ++i)
    events.push_back({"io-anomaly", keys[i], lines[i], true});
  if (events.empty()) return true;
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  bool ok = true;
  auto sent = [&](const Status& st) {
    if (!st.ok()) {
      spdlog::error("{}", st.message());
      ok = false;
    }
  };
  if (!sinks.log_file.empty()) sent(policy::SendToLog(sinks.log_file, events, now));
  if (sinks.mail) sent(policy::SendMail(*sinks.mail, events, now));
  if (sinks.webhook) sent(policy::SendWebhook(*sinks.webhook, events, now));
  return ok;
}

std::string Rate(double bytes_per_second) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f MiB/s", bytes_per_second / (1024.0 * 1024.0));
  return buf;
}

int Anomalies(const AnomaliesArgs& args) {
  auto window = DurationNs("--window", args.window);
  if (!window.ok()) {
    spdlog::error("{}", window.status().message());
    return 2;
  }
  auto store = io::SampleStore::Open(args.samples, false);
  if (!store.ok()) {
    spdlog::error("{}", store.status().message());
    return 1;
  }
  auto newest = (*store)->Newest();
  auto samples = newest.ok() ? (*store)->Read(*newest - *window, *newest) : newest.status();
  if (!samples.ok()) {
    spdlog::error("{}", samples.status().message());
    return 1;
  }
  const std::vector<io::Anomaly> found = io::FindAnomalies(*samples, args.options);
  std::vector<std::string> keys, lines;
  nlohmann::json json = nlohmann::json::array();
  for (const io::Anomaly& a : found) {
    char line[512];
    std::snprintf(line, sizeof(line),
                  "%s%s%s: %s; avg %s, peak %s against the peers' mean peak %s; %.0f us/MiB "
                  "against the peers' "
                  "median %.0f (z %.1f); %llu bytes; within %s; %zu peers",
                  a.target.c_str(), a.job.empty() ? "" : " job ", a.job.c_str(), a.rule.c_str(),
                  Rate(a.avg_bw).c_str(), Rate(a.peak_bw).c_str(),
                  Rate(a.peers_mean_peak_bw).c_str(), a.usecs_per_mib, a.peers_median_usecs_per_mib,
                  a.z, static_cast<unsigned long long>(a.bytes), a.duration.c_str(), a.peers);
    keys.push_back(a.job.empty() ? a.target : a.target + " job " + a.job);
    lines.push_back(line);
    json.push_back(io::AnomalyJson(a));
  }
  if (args.json) {
    std::printf("%s\n", json.dump().c_str());
  } else if (found.empty()) {
    std::printf("no target is slower than its peers (%zu samples)\n", samples->size());
  } else {
    for (const std::string& line : lines) std::printf("%s\n", line.c_str());
  }
  if (!args.alerts.empty() && !SendAlerts(args.alerts, keys, lines)) return 1;
  return 0;
}

}  // namespace

CommandRunner AddIoServerCommands(CLI::App& io) {
  auto servers = std::make_shared<ServersArgs>();
  CLI::App* servers_command = io.add_subcommand(
      "servers",
      "Sample the storage servers' statistics (Lustre's job_stats, stats and md_stats through "
      "lctl; "
      "/proc/diskstats; NFS mountstats) every interval into a samples file, until stopped");
  servers_command->add_option("--out", servers->out, "The samples file (SQLite; made when missing)")
      ->capture_default_str();
  servers_command
      ->add_option("--interval", servers->interval, "Time between two reads (500ms, 1s, 1min, ...)")
      ->capture_default_str();
  servers_command->add_option("--count", servers->count,
                              "Stop after this many intervals (0: until stopped)");
  servers_command
      ->add_option("--lctl", servers->sampler.lctl,
                   "The lctl program ('' to read local statistics only)")
      ->capture_default_str();
  servers_command
      ->add_option("--param", servers->sampler.params, "lctl parameters to read (repeatable)")
      ->default_str("obdfilter.*.job_stats mdt.*.job_stats obdfilter.*.stats mdt.*.md_stats");
  servers_command
      ->add_option("--diskstats", servers->sampler.diskstats,
                   "The block devices' statistics ('' for none)")
      ->capture_default_str();
  servers_command
      ->add_option("--mountstats", servers->sampler.mountstats,
                   "NFS mounts' statistics ('' for none)")
      ->capture_default_str();

  auto anomalies = std::make_shared<AnomaliesArgs>();
  CLI::App* anomalies_command = io.add_subcommand(
      "anomalies",
      "Targets (OSTs, devices, NFS servers) serving like work much slower than their peers, per "
      "job and "
      "across jobs, in the last window of a samples file (Beacon's rule and a robust z-score)");
  anomalies_command
      ->add_option("--samples", anomalies->samples, "The samples file of `fathom io servers`")
      ->capture_default_str();
  anomalies_command
      ->add_option("--window", anomalies->window, "How far back from the newest sample")
      ->capture_default_str();
  anomalies_command->add_flag("--json", anomalies->json, "One JSON array of the anomalies");
  anomalies_command->add_option(
      "--alerts", anomalies->alerts,
      "A policies file: each anomaly goes to its alert_sinks (log, mail, webhook) as alert "
      "io-anomaly");
  anomalies_command
      ->add_option("--bandwidth-fraction", anomalies->options.beacon_bandwidth_fraction,
                   "Beacon: average and peak bandwidth below this share of the peers' mean peak")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  anomalies_command
      ->add_option("--volume-fraction", anomalies->options.beacon_volume_fraction,
                   "Beacon: while carrying at least this share of the peers' mean volume")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  anomalies_command
      ->add_option("--z", anomalies->options.z_threshold,
                   "Robust z-score above which a target is slow")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);

  return [=]() -> int {
    if (servers_command->parsed()) return Servers(*servers);
    if (anomalies_command->parsed()) return Anomalies(*anomalies);
    return 2;
  };
}

}  // namespace fathom::cli

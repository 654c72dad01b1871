// jobs_api.cpp — /api/v1/jobs/...: the jobs of the I/O traces' directory (their summaries),
// one job's report (volumes and operations per layer, the per-second series by layer,
// phases and their I/O modes, access sizes, findings), and the storage targets found in
// trouble in the servers' samples (docs/api.md). A caller sees the jobs of its own user
// (all of them with the grant "/").
#include <nlohmann/json.hpp>

#include "fathom/io_servers.h"
#include "iotrace/servers/anomaly_json.h"
#include "web/serve_context.h"

namespace fathom::web {
namespace {

using nlohmann::json;

bool Sees(const Access& access, const TraceJob& job) {
  return access.Everything() || (job.error.empty() && access.uid && *access.uid == job.uid);
}

TraceJobs& JobsOf(ServeContext& ctx) {
  if (!ctx.io_jobs) throw BadRequest{{503, kNoIo}};
  return *ctx.io_jobs;
}

void List(ServeContext& ctx, const httplib::Request& req, httplib::Response& res, const Access& access) {
  size_t limit = ParamLimit(req);
  size_t offset = ParamNumber(req, "offset", 0, 0, UINT32_MAX);
  auto jobs = JobsOf(ctx).List();
  if (!jobs.ok()) throw BadRequest{{503, jobs.status().message()}};
  std::string out = "{\"jobs\":[";
  size_t seen = 0, shown = 0;
  bool more = false;
  for (const TraceJob& job : jobs.value()) {
    if (!Sees(access, job)) continue;
    if (seen++ < offset) continue;
    if (shown == limit) {
      more = true;
      break;
    }
    out += shown++ ? "," : "";
    out += job.summary_json;
  }
  out += "],\"next\":";
  out += more ? "{\"offset\":" + std::to_string(offset + limit) + "}" : "null";
  out += "}";
  ReplyJsonText(res, std::move(out));
}

void One(ServeContext& ctx, const httplib::Request& req, httplib::Response& res, const Access& access) {
  std::string name = req.matches[1];
  auto job = JobsOf(ctx).Find(name);
  if (!job.ok()) throw BadRequest{{503, job.status().message()}};
  if (!job.value() || !Sees(access, **job)) throw BadRequest{{404, "no job " + name + " among the jobs you may see"}};
  ReplyJsonText(res, "{\"summary\":" + (*job)->summary_json + ",\"report\":" + (*job)->report_json + "}");
}

void Anomalies(ServeContext& ctx, const httplib::Request& req, httplib::Response& res, const Access& access) {
  if (ctx.options.io_samples.empty()) {
    throw BadRequest{{503, "this server has no storage servers' samples (fathom serve --io-samples FILE, "
                           "written by fathom io servers)"}};
  }
  int64_t until = ParamTime(req, "until").value_or(NowNs());
  int64_t since = ParamTime(req, "since").value_or(until - int64_t{24} * 3600 * 1'000'000'000);
  auto samples_file = io::SampleStore::Open(ctx.options.io_samples, false);
  if (!samples_file.ok()) throw BadRequest{{503, samples_file.status().message()}};
  auto samples = samples_file.value()->Read(since, until);
  if (!samples.ok()) throw BadRequest{{503, samples.status().message()}};
  // A job's anomaly is shown to the job's user; one found across jobs to those who see all.
  std::map<std::string, bool> visible_jobs;
  if (!access.Everything() && ctx.io_jobs) {
    auto jobs = ctx.io_jobs->List();
    if (jobs.ok()) {
      for (const TraceJob& j : jobs.value()) visible_jobs[j.job] = Sees(access, j);
    }
  }
  json out = json::array();
  for (const io::Anomaly& a : io::FindAnomalies(samples.value(), {})) {
    if (!access.Everything() && (a.job.empty() || !visible_jobs[a.job])) continue;
    out.push_back(io::AnomalyJson(a));
  }
  ReplyJson(res, {{"since_ns", since}, {"until_ns", until}, {"anomalies", out}});
}

}  // namespace

void AddJobRoutes(httplib::Server& server, ServeContext& ctx) {
  server.Get("/api/v1/jobs", Authed(ctx, [&ctx](const auto& req, auto& res, const Access& a) { List(ctx, req, res, a); }));
  server.Get("/api/v1/jobs/anomalies",
             Authed(ctx, [&ctx](const auto& req, auto& res, const Access& a) { Anomalies(ctx, req, res, a); }));
  server.Get(R"(/api/v1/jobs/([^/]+))",
             Authed(ctx, [&ctx](const auto& req, auto& res, const Access& a) { One(ctx, req, res, a); }));
}

}  // namespace fathom::web

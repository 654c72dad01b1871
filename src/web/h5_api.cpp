// h5_api.cpp — /api/v1/h5/...: the report of the HDF5 traces' directory (hot functions,
// latency percentiles and histograms per function, stragglers, slow ranks, bytes per dataset,
// collectives, access shapes, the timeline) and a dataset's lineage as W3C PROV-JSON
// (docs/api.md). A caller sees the traces of its own user's processes (all with the grant
// "/"); answers are kept until the directory's files change.
#include <nlohmann/json.hpp>

#include "fathom/h5prov.h"
#include "web/serve_context.h"

namespace fathom::web {
namespace {

const std::string& DirOf(ServeContext& ctx) {
  if (ctx.options.h5.empty()) throw BadRequest{{503, kNoH5}};
  return ctx.options.h5;
}

// The traces the caller may see, and a version that moves when the directory's files change.
std::vector<h5prov::Trace> VisibleTraces(ServeContext& ctx, const Access& access) {
  std::vector<std::string> errors;
  std::vector<h5prov::Trace> traces = h5prov::ReadTraces({DirOf(ctx)}, &errors);
  if (traces.empty() && !errors.empty()) throw BadRequest{{503, errors.front()}};
  if (!access.Everything()) {
    std::erase_if(traces, [&](const h5prov::Trace& t) { return !access.uid || t.process.uid != *access.uid; });
  }
  return traces;
}

uint64_t VersionOf(ServeContext& ctx) {
  auto files = h5prov::FindTraceFiles(DirOf(ctx));
  if (!files.ok()) throw BadRequest{{503, files.status().message()}};
  FilesSignature s = SignatureOf(files.value());
  return std::hash<std::string>{}(std::to_string(s.files) + ":" + std::to_string(s.bytes) + ":" +
                                  std::to_string(s.newest_ns));
}

std::string Question(const httplib::Request& req, const Access& access) {
  std::string q = req.path;
  for (const auto& [k, v] : req.params) q += "\n" + k + "=" + v;
  return q + "\nuid=" + (access.Everything() ? std::string("*") : std::to_string(access.uid.value_or(UINT32_MAX)));
}

void Answer(ServeContext& ctx, const httplib::Request& req, httplib::Response& res, const Access& access,
            const std::function<Result<std::string>(const std::vector<h5prov::Trace>&)>& compute) {
  auto answer = ctx.cache.Get(Question(req, access), VersionOf(ctx), [&]() { return compute(VisibleTraces(ctx, access)); });
  if (!answer.ok()) throw BadRequest{{404, answer.status().message()}};
  ReplyJsonText(res, std::move(answer).value());
}

void Report(ServeContext& ctx, const httplib::Request& req, httplib::Response& res, const Access& access) {
  Answer(ctx, req, res, access, [](const std::vector<h5prov::Trace>& traces) -> Result<std::string> {
    return h5prov::ReportJson(h5prov::Analyze(traces));
  });
}

void Lineage(ServeContext& ctx, const httplib::Request& req, httplib::Response& res, const Access& access) {
  std::string dataset = req.has_param("dataset") ? req.get_param_value("dataset") : "";
  Answer(ctx, req, res, access, [&](const std::vector<h5prov::Trace>& traces) -> Result<std::string> {
    h5prov::Lineage lineage = h5prov::BuildLineage(traces);
    if (!dataset.empty()) {
      FATHOM_ASSIGN_OR_RETURN(lineage, h5prov::FocusLineage(lineage, dataset));
    }
    return "{\"dataset\":" + nlohmann::json(dataset).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
           ",\"prov\":" + h5prov::LineageProvJson(lineage) + "}";
  });
}

}  // namespace

void AddH5Routes(httplib::Server& server, ServeContext& ctx) {
  server.Get("/api/v1/h5/report", Authed(ctx, [&ctx](const auto& req, auto& res, const Access& a) { Report(ctx, req, res, a); }));
  server.Get("/api/v1/h5/lineage",
             Authed(ctx, [&ctx](const auto& req, auto& res, const Access& a) { Lineage(ctx, req, res, a); }));
}

}  // namespace fathom::web

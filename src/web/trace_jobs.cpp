// trace_jobs.cpp — TraceJobs: a directory of jobs' I/O traces, analysed once per change.
#include "web/trace_jobs.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/account_names.h"
#include "fathom/iotrace.h"

namespace fathom::web {
namespace {

namespace fs = std::filesystem;

Result<std::vector<iotrace::Trace>> ReadJobTraces(const std::vector<std::string>& files) {
  std::vector<iotrace::Trace> traces;
  for (const std::string& file : files) {
    if (iotrace::IsJobFile(file)) {
      FATHOM_ASSIGN_OR_RETURN(std::vector<iotrace::Trace> job, iotrace::ReadJob(file));
      for (iotrace::Trace& t : job) traces.push_back(std::move(t));
    } else {
      FATHOM_ASSIGN_OR_RETURN(iotrace::Trace trace, iotrace::ReadTrace(file));
      traces.push_back(std::move(trace));
    }
  }
  return traces;
}

}  // namespace

FilesSignature SignatureOf(const std::vector<std::string>& files) {
  FilesSignature s;
  for (const std::string& f : files) {
    struct stat st {};
    if (::stat(f.c_str(), &st) != 0) continue;
    ++s.files;
    s.bytes += static_cast<uint64_t>(st.st_size);
    s.newest_ns = std::max<int64_t>(s.newest_ns, int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec);
  }
  return s;
}

Result<std::map<std::string, std::vector<std::string>>> TraceJobs::Jobs() const {
  std::map<std::string, std::vector<std::string>> jobs;
  std::error_code ec;
  fs::directory_iterator it(dir_, ec), end;
  if (ec) return Status::Error("I/O traces directory " + dir_ + ": " + ec.message() + " (give fathom io run's --out DIR)");
  for (; it != end; it.increment(ec)) {
    if (ec) return Status::Error("I/O traces directory " + dir_ + ": " + ec.message());
    const fs::path& p = it->path();
    if (it->is_directory(ec)) {
      auto files = iotrace::FindTraceFiles(p.string());
      if (files.ok() && !files->empty()) jobs[p.filename().string()] = std::move(files).value();
    } else if (iotrace::IsJobFile(p.string())) {
      jobs[p.stem().string()].push_back(p.string());
    }
  }
  return jobs;
}

Result<TraceJob> TraceJobs::Analysed(const std::string& job, const std::vector<std::string>& files) {
  FilesSignature sig = SignatureOf(files);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = kept_.find(job);
    if (it != kept_.end() && it->second.first == sig) return it->second.second;
  }
  FATHOM_ASSIGN_OR_RETURN(std::vector<iotrace::Trace> traces, ReadJobTraces(files));
  FATHOM_ASSIGN_OR_RETURN(iotrace::JobReport report, iotrace::AnalyzeJob(traces, {}));
  TraceJob out;
  out.job = job;
  for (const iotrace::Trace& t : traces) {
    if (t.has_process) {
      out.uid = static_cast<uint32_t>(t.process.uid);
      break;
    }
  }
  out.last_ns = static_cast<int64_t>(report.last_ns);
  auto sum = [](const iotrace::LayerTotals& a, const iotrace::LayerTotals& b, bool write) {
    return write ? a.write_bytes + b.write_bytes : a.read_bytes + b.read_bytes;
  };
  auto user = NameCache().UserName(out.uid);
  nlohmann::json summary = {
      {"job", job},
      {"uid", out.uid},
      {"user", user ? *user : std::to_string(out.uid)},
      {"hosts", report.hosts},
      {"processes", report.processes},
      {"first_ns", report.first_ns},
      {"last_ns", report.last_ns},
      {"read_bytes", sum(report.posix, report.stdio, false)},
      {"write_bytes", sum(report.posix, report.stdio, true)},
      {"meta_ops", report.meta_ops},
      {"mode", report.mode},
      {"findings", report.findings.size()},
  };
  out.summary_json = summary.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  out.report_json = iotrace::ReportJson(report);
  std::lock_guard<std::mutex> lock(mu_);
  kept_[job] = {sig, out};
  return out;
}

Result<std::vector<TraceJob>> TraceJobs::List() {
  FATHOM_ASSIGN_OR_RETURN(auto jobs, Jobs());
  std::vector<TraceJob> out;
  for (const auto& [job, files] : jobs) {
    auto analysed = Analysed(job, files);
    if (analysed.ok()) {
      out.push_back(std::move(analysed).value());
      continue;
    }
    // Shown to those who see every job, with why it cannot be read.
    TraceJob broken{job, UINT32_MAX, "", "", 0, analysed.status().message()};
    broken.summary_json = nlohmann::json{{"job", job}, {"error", broken.error}}.dump(
        -1, ' ', false, nlohmann::json::error_handler_t::replace);
    out.push_back(std::move(broken));
  }
  std::sort(out.begin(), out.end(), [](const TraceJob& a, const TraceJob& b) {
    return a.last_ns != b.last_ns ? a.last_ns > b.last_ns : a.job < b.job;
  });
  return out;
}

Result<std::optional<TraceJob>> TraceJobs::Find(const std::string& job) {
  FATHOM_ASSIGN_OR_RETURN(auto jobs, Jobs());
  auto it = jobs.find(job);
  if (it == jobs.end()) return std::optional<TraceJob>();
  FATHOM_ASSIGN_OR_RETURN(TraceJob analysed, Analysed(job, it->second));
  return std::optional<TraceJob>(std::move(analysed));
}

}  // namespace fathom::web

// run_plan.cpp — what `fathom h5 run` sets up before it starts the program: the checks, the
// job and its directory are those of `fathom io run` (iotrace::PlanRun); the tracer and its
// environment are libfathom-h5.so's.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "fathom/h5prov.h"
#include "fathom/iotrace.h"

namespace fathom::h5prov {

Result<std::string> FindTracerLibrary() {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("FATHOM_H5_LIBRARY"); env != nullptr && *env != '\0') {
    if (access(env, R_OK) != 0) {
      return Status::FromErrno(errno, std::string("FATHOM_H5_LIBRARY names ") + env + ", which cannot be read");
    }
    return std::string(env);
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return Status::Error("cannot find the fathom executable: " + ec.message(), ec);
  const fs::path dir = self.parent_path();
  for (const fs::path& candidate : {dir / "lib/fathom/libfathom-h5.so", dir / "../lib/fathom/libfathom-h5.so"}) {
    if (fs::exists(candidate, ec)) return fs::weakly_canonical(candidate, ec).string();
  }
  return Status::Error("libfathom-h5.so is not installed beside " + self.string() + " (looked in " +
                       (dir / "lib/fathom").string() + " and " + (dir / "../lib/fathom").string() +
                       "); install fathom (`make install`) or set FATHOM_H5_LIBRARY");
}

Result<RunPlan> PlanRun(const RunOptions& options) {
  iotrace::RunOptions io;
  io.command = options.command;
  io.job = options.job;
  io.out = options.out;
  FATHOM_ASSIGN_OR_RETURN(io.library, options.library.empty() ? FindTracerLibrary()
                                                               : Result<std::string>(options.library));
  FATHOM_ASSIGN_OR_RETURN(iotrace::RunPlan planned, iotrace::PlanRun(io));
  RunPlan plan;
  plan.job = planned.job;
  plan.dir = planned.dir;
  plan.library = planned.library;
  // The I/O tracer's switches are left out (a program under both tracers gets them from its
  // own environment); LD_PRELOAD and the job are kept.
  for (std::string& entry : planned.env) {
    if (entry.rfind("FATHOM_IO", 0) != 0) plan.env.push_back(std::move(entry));
  }
  plan.env.push_back("FATHOM_H5=1");
  plan.env.push_back("FATHOM_H5_DIR=" + plan.dir);
  return plan;
}

}  // namespace fathom::h5prov

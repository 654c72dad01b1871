// run_plan.cpp — what `fathom h5 run` sets up before it starts the program: the checks, the
// job and its directory are those of `fathom io run` (iotrace::PlanRun); the tracer and its
// environment are libfathom-h5.so's.
#include "fathom/h5prov.h"
#include "fathom/iotrace.h"

namespace fathom::h5prov {

Result<std::string> FindTracerLibrary() {
  return iotrace::FindPreloadLibrary("libfathom-h5.so", "FATHOM_H5_LIBRARY");
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

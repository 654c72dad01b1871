// read_traces.cpp — ReadTraces(): the traces the analysis commands are given.
#include "fathom/h5prov.h"

namespace fathom::h5prov {

std::vector<Trace> ReadTraces(const std::vector<std::string>& paths, std::vector<std::string>* errors) {
  std::vector<Trace> traces;
  for (const std::string& path : paths) {
    auto files = FindTraceFiles(path);
    if (!files.ok()) {
      errors->push_back(files.status().message());
      continue;
    }
    for (const std::string& file : *files) {
      auto trace = ReadTrace(file);
      if (!trace.ok()) {
        errors->push_back(trace.status().message() + " (left out)");
        continue;
      }
      traces.push_back(std::move(*trace));
    }
  }
  return traces;
}

}  // namespace fathom::h5prov

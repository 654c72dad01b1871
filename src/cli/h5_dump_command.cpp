// `fathom h5 dump TRACE|DIR...`: HDF5 provenance traces as JSON lines (docs/h5prov.md).
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "fathom/h5prov.h"

namespace fathom::cli {
namespace {

int Dump(const std::vector<std::string>& paths) {
  int rc = 0;
  for (const std::string& path : paths) {
    auto files = h5prov::FindTraceFiles(path);
    if (!files.ok()) {
      std::fprintf(stderr, "fathom h5 dump: %s\n", files.status().message().c_str());
      rc = 1;
      continue;
    }
    for (const std::string& file : *files) {
      auto trace = h5prov::ReadTrace(file);
      if (!trace.ok()) {
        std::fprintf(stderr, "fathom h5 dump: %s\n", trace.status().message().c_str());
        rc = 1;
        continue;
      }
      for (const std::string& problem : trace->problems) {
        std::fprintf(stderr, "fathom h5 dump: warning: %s\n", problem.c_str());
      }
      std::cout << h5prov::TraceJsonLines(*trace);
    }
  }
  std::cout.flush();
  return rc;
}

}  // namespace

CommandRunner AddH5DumpCommand(CLI::App& h5) {
  auto paths = std::make_shared<std::vector<std::string>>();
  CLI::App* dump = h5.add_subcommand(
      "dump", "Print HDF5 traces as JSON lines: the process, its objects, every call, what was counted on each "
              "object when it closed");
  dump->add_option("trace", *paths, "Trace files (*.fh5) or directories of them")->required();
  return [dump, paths]() -> int { return dump->parsed() ? Dump(*paths) : 2; };
}

}  // namespace fathom::cli

// `fathom h5 events TRACE|DIR... [--store FILE] [--format F]`: what the programs' HDF5 calls
// did to their files as fathom events (h5prov::ProvenanceEvents), printed or appended to a
// store, where the catalog, rules and subscribers read them beside the file system's
// (docs/h5prov.md).
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "fathom/format.h"
#include "fathom/h5prov.h"
#include "fathom/store.h"

namespace fathom::cli {
namespace {

struct EventsArgs {
  std::vector<std::string> paths;
  std::string store;
  Format format = Format::kJson;
};

int Append(const std::string& spec, std::vector<Event>& events) {
  auto file = StoreFile(spec);
  if (!file.ok()) {
    std::fprintf(stderr, "fathom h5 events: %s\n", file.status().message().c_str());
    return 2;
  }
  StoreOptions options;
  options.path = *file;
  auto store = EventStore::Open(options);
  if (!store.ok()) {
    std::fprintf(stderr, "fathom h5 events: %s\n", store.status().message().c_str());
    return 1;
  }
  if (Status s = (*store)->Append(events); !s.ok()) {
    std::fprintf(stderr, "fathom h5 events: %s\n", s.message().c_str());
    return 1;
  }
  if (events.empty()) {
    std::fprintf(stderr, "fathom h5 events: no HDF5 call changed or read a file; nothing appended to %s\n",
                 file->c_str());
  } else {
    std::fprintf(stderr, "fathom h5 events: %zu events appended to %s (ids %llu..%llu)\n", events.size(),
                 file->c_str(), static_cast<unsigned long long>(events.front().id),
                 static_cast<unsigned long long>(events.back().id));
  }
  return 0;
}

int Events(const EventsArgs& args) {
  std::vector<std::string> errors;
  const std::vector<h5prov::Trace> traces = h5prov::ReadTraces(args.paths, &errors);
  for (const std::string& e : errors) std::fprintf(stderr, "fathom h5 events: %s\n", e.c_str());
  if (traces.empty()) return 1;
  std::vector<Event> events;
  for (const h5prov::Trace& t : traces) {
    std::vector<Event> of_trace = h5prov::ProvenanceEvents(t);
    events.insert(events.end(), std::make_move_iterator(of_trace.begin()), std::make_move_iterator(of_trace.end()));
  }
  if (!args.store.empty()) {
    const int rc = Append(args.store, events);
    return rc != 0 ? rc : errors.empty() ? 0 : 1;
  }
  std::string out;
  auto formatter = MakeFormatter(args.format);
  for (const Event& e : events) formatter->Write(e, out);
  formatter->Flush(out);
  std::cout << out;
  std::cout.flush();
  return errors.empty() ? 0 : 1;
}

}  // namespace

CommandRunner AddH5EventsCommand(CLI::App& h5) {
  auto args = std::make_shared<EventsArgs>();
  CLI::App* events = h5.add_subcommand(
      "events",
      "What the programs' HDF5 calls did to their files as fathom events (source h5prov: DATASET_WRITE of "
      "/grp/ds in FILE by job J...), printed or appended to an event store for the catalog, rules and "
      "subscribers");
  events->add_option("trace", args->paths, "Trace files (*.fh5) or directories of them (jobs' OUT/JOB, or OUT)")
      ->required();
  events->add_option("--store", args->store, "Append the events to this event store (sqlite:FILE or FILE)");
  AddFormatOption(*events, args->format, "json");
  return [events, args]() -> int { return events->parsed() ? Events(*args) : 2; };
}

}  // namespace fathom::cli

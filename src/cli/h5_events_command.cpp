// `fathom h5 events TRACE|DIR... [--store FILE] [--format F] [--follow [--interval D]]`: what
// the programs' HDF5 calls did to their files as fathom events (h5prov::ProvenanceEvents),
// printed or appended to a store, where the catalog, rules and subscribers read them beside the
// file system's; with --follow, from the traces of programs still running, as they write them
// (h5prov::ProvenanceFollower). Into a store, each trace's position goes in the same
// transaction as its events, so that no event is stored twice (docs/h5prov.md).
#include <spdlog/spdlog.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <iostream>
#include <memory>
#include <mutex>
#include <set>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/signal_waiter.h"
#include "fathom/format.h"
#include "fathom/h5prov.h"
#include "fathom/store.h"

namespace fathom::cli {
namespace {

struct EventsArgs {
  std::vector<std::string> paths;
  std::string store;
  Format format = Format::kJson;
  bool follow = false;
  std::string interval = "500ms";
};

void Say(const std::string& message) { std::fprintf(stderr, "fathom h5 events: %s\n", message.c_str()); }

// Where the events go: the store given (with the traces' positions) or standard output.
class Output {
 public:
  static Result<Output> Open(const EventsArgs& args) {
    Output out;
    out.formatter_ = MakeFormatter(args.format);
    if (args.store.empty()) return out;
    FATHOM_ASSIGN_OR_RETURN(out.file_, StoreFile(args.store));
    StoreOptions options;
    options.path = out.file_;
    FATHOM_ASSIGN_OR_RETURN(out.store_, EventStore::Open(options));
    return out;
  }

  bool stored() const { return store_ != nullptr; }
  const std::string& file() const { return file_; }

  // The position the store holds for `source` (0 when printing).
  uint64_t Delivered(const std::string& source) {
    if (!store_) return 0;
    auto position = store_->Position(source);
    if (!position.ok()) {
      Say(position.status().message());
      return 0;
    }
    return *position;
  }

  Status Put(h5prov::ProvenanceFollower::Pass& pass) {
    if (!store_) {
      std::string text;
      for (const Event& e : pass.events) formatter_->Write(e, text);
      formatter_->Flush(text);
      std::cout << text;
      std::cout.flush();
      return std::cout ? Status::Ok() : Status::Error("cannot write the events to standard output");
    }
    if (pass.events.empty() && pass.positions.empty()) return Status::Ok();
    std::vector<SourcePosition> positions;
    for (auto& [source, position] : pass.positions) positions.push_back({source, position});
    FATHOM_RETURN_IF_ERROR(store_->Append(pass.events, positions));
    if (!pass.events.empty()) {
      stored_ += pass.events.size();
      first_id_ = first_id_ == 0 ? pass.events.front().id : first_id_;
      last_id_ = pass.events.back().id;
    }
    return Status::Ok();
  }

  // "N events appended to FILE (ids A..B)".
  std::string Summary() const {
    if (stored_ == 0) return "no new event (no HDF5 call changed or read a file, or its event is in " + file_ + " already)";
    return std::to_string(stored_) + " events appended to " + file_ + " (ids " + std::to_string(first_id_) + ".." +
           std::to_string(last_id_) + ")";
  }

 private:
  std::unique_ptr<Formatter> formatter_;
  std::string file_;
  std::unique_ptr<EventStore> store_;
  uint64_t stored_ = 0, first_id_ = 0, last_id_ = 0;
};

// The events of finished traces, printed as read whole (damage and all, like `h5 report`).
int Print(const EventsArgs& args) {
  std::vector<std::string> errors;
  const std::vector<h5prov::Trace> traces = h5prov::ReadTraces(args.paths, &errors);
  for (const std::string& e : errors) Say(e);
  if (traces.empty()) return kExitFailure;
  h5prov::ProvenanceFollower::Pass pass;
  for (const h5prov::Trace& t : traces) {
    std::vector<Event> of_trace = h5prov::ProvenanceEvents(t);
    pass.events.insert(pass.events.end(), std::make_move_iterator(of_trace.begin()),
                       std::make_move_iterator(of_trace.end()));
  }
  auto out = Output::Open(args);
  if (Status s = out->Put(pass); !s.ok()) {
    Say(s.message());
    return kExitFailure;
  }
  return errors.empty() ? kExitOk : kExitFailure;
}

// Every trace to its end, the events the store does not hold yet appended.
int Store(const EventsArgs& args, Output& out) {
  bool any = false, failed = false;
  for (const std::string& path : args.paths) {
    auto files = h5prov::FindTraceFiles(path);
    if (!files.ok()) Say(files.status().message());
    any = any || files.ok();
    failed = failed || !files.ok();
  }
  if (!any) return kExitFailure;
  h5prov::ProvenanceFollower follower(args.paths);
  auto pass = follower.Poll([&out](const std::string& source) { return out.Delivered(source); }, true);
  for (const std::string& p : pass.problems) Say(p);
  if (Status s = out.Put(pass); !s.ok()) {
    Say(s.message());
    return kExitFailure;
  }
  Say(out.Summary());
  return failed || !pass.problems.empty() ? kExitFailure : kExitOk;
}

// Polls the traces every `interval` until SIGINT or SIGTERM, then once more.
int Follow(const EventsArgs& args) {
  auto interval = DurationNs("--interval", args.interval);
  if (!interval.ok()) {
    Say(interval.status().message());
    return kExitUsage;
  }
  // Before the store opens: its threads must inherit the blocked signals.
  std::mutex mu;
  std::condition_variable wake;
  bool stop = false;
  SignalWaiter signals([&](int) {
    std::lock_guard lock(mu);
    stop = true;
    wake.notify_all();
  });
  auto out = Output::Open(args);
  if (!out.ok()) {
    Say(out.status().message());
    return kExitUsage;
  }
  h5prov::ProvenanceFollower follower(args.paths);
  std::set<std::string> said;
  spdlog::info("following the HDF5 traces under {} every {}{}", args.paths.front(), args.interval,
               out->stored() ? " into " + out->file() : "");
  while (true) {
    bool last = false;
    {
      std::lock_guard lock(mu);
      last = stop;
    }
    auto pass = follower.Poll([&out](const std::string& source) { return out->Delivered(source); });
    for (const std::string& p : pass.problems) {
      if (said.insert(p).second) Say(p);
    }
    if (Status s = out->Put(pass); !s.ok()) {
      Say(s.message());
      return kExitFailure;
    }
    if (last) break;
    std::unique_lock lock(mu);
    wake.wait_for(lock, std::chrono::nanoseconds(*interval), [&] { return stop; });
  }
  spdlog::info("stopped: {} traces followed, {} of them ended{}", follower.files(), follower.ended(),
               out->stored() ? "; " + out->Summary() : "");
  return kExitOk;
}

int Events(const EventsArgs& args) {
  if (args.follow) return Follow(args);
  if (args.store.empty()) return Print(args);
  auto out = Output::Open(args);
  if (!out.ok()) {
    Say(out.status().message());
    return kExitUsage;
  }
  return Store(args, *out);
}

}  // namespace

CommandRunner AddH5EventsCommand(CLI::App& h5) {
  auto args = std::make_shared<EventsArgs>();
  CLI::App* events = h5.add_subcommand(
      "events",
      "What the programs' HDF5 calls did to their files as fathom events (source h5prov: DATASET_WRITE of "
      "/grp/ds in FILE by job J...), printed or appended to an event store for the catalog, rules and "
      "subscribers; --follow reads the traces of running programs as they are written");
  events->add_option("trace", args->paths, "Trace files (*.fh5) or directories of them (jobs' OUT/JOB, or OUT)")
      ->required();
  events->add_option("--store", args->store,
                     "Append the events to this event store (sqlite:FILE or FILE); a trace's events are stored once, "
                     "however often it is given");
  events->add_flag("--follow", args->follow,
                   "Keep reading the traces (and new ones in the directories) as running programs write them, "
                   "until SIGINT or SIGTERM");
  events->add_option("--interval", args->interval, "With --follow: time between two reads (500ms, 1s, ...)")
      ->default_str(args->interval);
  AddFormatOption(*events, args->format, "json");
  events->footer(
      "\nExamples:\n"
      "  fathom h5 events runs/sim-42\n"
      "  fathom h5 events runs/sim-42 --store events.db\n"
      "  fathom h5 events --follow runs --store events.db &   # then: fathom h5 run --out runs -- ./sim\n");
  return [events, args]() -> int { return events->parsed() ? Events(*args) : kExitUsage; };
}

}  // namespace fathom::cli

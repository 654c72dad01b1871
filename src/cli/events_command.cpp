// `fathom events` — replay the events of a store after an id, and optionally follow new ones.
//
// Ids in a store are contiguous from the oldest held to the newest (retention only removes the
// oldest), so a replay that starts after id N must meet N+1 first: when it does not, the events
// in between were removed by retention, and the command says which instead of skipping them.
// A store written by `fathom store recover` alone has gaps: the ids it records as lost, which
// the command names on stderr as it passes them, and goes on.
#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <optional>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/signal_waiter.h"
#include "fathom/store.h"

namespace fathom::cli {
namespace {

constexpr auto kPollInterval = std::chrono::milliseconds(100);
constexpr size_t kFlushBytes = 1 << 16;

struct EventsArgs {
  std::string store;
  uint64_t since = 0;
  std::string path;
  bool recursive = false;
  uint64_t limit = 0;
  double timeout = 0;
  Format format = Format::kInotify;
  bool follow = false;
};

// "/a/b/" -> "/a/b"; relative prefixes are taken from the current directory. "" = everything.
std::string NormalizePrefix(const std::string& prefix) {
  if (prefix.empty()) return {};
  std::string p = std::filesystem::absolute(prefix).lexically_normal().string();
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p == "/" ? std::string() : p;
}

std::string RemovedMessage(uint64_t from, uint64_t to, std::optional<uint64_t> oldest_held) {
  std::string ids = from == to
                        ? "event " + std::to_string(from) + " was"
                        : "events " + std::to_string(from) + ".." + std::to_string(to) + " were";
  std::string held = oldest_held ? "the oldest held is " + std::to_string(*oldest_held)
                                 : "the store holds no older event now";
  return ids + " removed by retention (max-events/max-age); " + held;
}

// Formats events into a buffer and writes it to stdout in large pieces.
class Printer {
 public:
  explicit Printer(Format format) : formatter_(MakeFormatter(format)) {}
  void Write(const Event& e) {
    formatter_->Write(e, text_);
    if (text_.size() >= kFlushBytes) Flush();
  }
  // Writes what is buffered; `final` also releases what the formatter holds back.
  bool Flush(bool final = false) {
    if (final) formatter_->Flush(text_);
    if (!text_.empty()) std::fwrite(text_.data(), 1, text_.size(), stdout);
    text_.clear();
    std::fflush(stdout);
    return std::ferror(stdout) == 0;
  }

 private:
  std::unique_ptr<Formatter> formatter_;
  std::string text_;
};

class EventsRun {
 public:
  EventsRun(const EventsArgs& args, bool since_given)
      : args_(args),
        since_given_(since_given),
        prefix_(NormalizePrefix(args.path)),
        printer_(args.format) {}

  int Run() {
    StoreOptions options;
    auto file = StoreFile(args_.store);
    if (!file.ok()) return Fail("events", file.status().message(), kExitUsage);
    options.path = file.value();
    options.read_only = true;
    auto opened = EventStore::Open(options);
    if (!opened.ok()) return Fail("events", opened.status().message(), kExitFailure);
    store_ = std::move(opened.value());
    SignalWaiter signals([this](int) {
      std::lock_guard lock(mu_);
      stop_ = true;
      wake_.notify_all();
    });

    auto last = store_->LastId();
    if (!last.ok()) return Fail("events", last.status().message(), kExitFailure);
    auto lost = store_->LostRanges();
    if (!lost.ok()) return Fail("events", lost.status().message(), kExitFailure);
    lost_ = std::move(lost.value());
    if (since_given_ && args_.since > last.value()) {
      return Fail("events",
                  "--since " + std::to_string(args_.since) + " is past the newest id of " +
                      args_.store + " (" + std::to_string(last.value()) +
                      "): that id did not come from this store (was it recreated?)",
                  kExitFailure);
    }
    cursor_ = args_.since;
    deadline_ = std::chrono::steady_clock::now() +
                std::chrono::milliseconds(static_cast<int64_t>(args_.timeout * 1000));
    Status status = Pass(last.value(), since_given_);
    while (status.ok() && args_.follow && !Done()) {
      {
        std::unique_lock lock(mu_);
        auto wait = kPollInterval;
        if (args_.timeout > 0) {
          wait = std::min(wait, std::chrono::duration_cast<std::chrono::milliseconds>(
                                    deadline_ - std::chrono::steady_clock::now()));
        }
        wake_.wait_for(lock, wait, [this] { return stop_; });
      }
      if (Done()) break;
      auto newest = store_->LastId();
      if (!newest.ok()) {
        status = newest.status();
      } else if (newest.value() > cursor_) {
        status = Pass(newest.value(), true);
      }
    }
    if (!printer_.Flush(/*final=*/true) && status.ok()) {
      status = Status::FromErrno(errno, "writing events to standard output");
    }
    if (!status.ok()) return Fail("events", status.message(), kExitFailure);
    return kExitOk;
  }

 private:
  bool Done() {
    std::lock_guard lock(mu_);
    return stop_ || (args_.limit > 0 && printed_ >= args_.limit) ||
           (args_.timeout > 0 && std::chrono::steady_clock::now() >= deadline_);
  }

  // Whether every id in [from, to] is one a recovery recorded as lost; if so, says so on
  // stderr (once per range).
  bool PassLost(uint64_t from, uint64_t to) {
    uint64_t next = from;
    for (const IdRange& r : lost_) {
      if (r.last < next) continue;
      if (r.first > next) break;
      next = r.last + 1;
      if (next > to) break;
    }
    if (next <= to) return false;
    printer_.Flush();
    std::fprintf(
        stderr,
        "fathom events: %s: %s lost: damaged in the store this one was recovered from "
        "(fathom store recover)\n",
        args_.store.c_str(),
        from == to
            ? ("event " + std::to_string(from) + " was").c_str()
            : ("events " + std::to_string(from) + ".." + std::to_string(to) + " were").c_str());
    return true;
  }

  // Prints the matching events with ids in (cursor_, upto]. With `contiguous`, the first of them
  // must be cursor_+1: anything else means retention removed events the reader never saw (or a
  // recovery lost them: PassLost).
  Status Pass(uint64_t upto, bool contiguous) {
    std::optional<uint64_t> expected;
    if (contiguous) expected = cursor_ + 1;
    std::optional<std::pair<uint64_t, uint64_t>> removed;
    bool interrupted = false;
    ReplayQuery query;
    query.since_id = cursor_;
    Status status = store_->Replay(query, [&](const Event& e) {
      if (e.id > upto) return false;
      if (!expected) {  // the first event of a replay from the oldest held: lost ids before it?
        for (const IdRange& r : lost_) {
          if (r.last > cursor_ && r.first < e.id) {
            PassLost(std::max(r.first, cursor_ + 1), std::min(r.last, e.id - 1));
          }
        }
      }
      if (expected && e.id != *expected && !PassLost(*expected, e.id - 1)) {
        removed = {*expected, e.id - 1};
        return false;
      }
      expected = e.id + 1;
      if (PathSelected(e.path, prefix_, args_.recursive)) {
        printer_.Write(e);
        ++printed_;
      }
      if (Done()) {
        interrupted = true;
        return false;
      }
      return true;
    });
    FATHOM_RETURN_IF_ERROR(status);
    if (removed) {
      return Status::Error(args_.store + ": " +
                           RemovedMessage(removed->first, removed->second, removed->second + 1));
    }
    if (!interrupted && contiguous && expected && *expected <= upto && !PassLost(*expected, upto)) {
      return Status::Error(args_.store + ": " + RemovedMessage(*expected, upto, std::nullopt));
    }
    if (!printer_.Flush()) return Status::FromErrno(errno, "writing events to standard output");
    cursor_ = upto;
    return Status::Ok();
  }

  const EventsArgs& args_;
  const bool since_given_;
  const std::string prefix_;
  Printer printer_;
  std::unique_ptr<EventStore> store_;
  std::vector<IdRange> lost_;  // ids a recovery recorded as lost, ascending
  uint64_t cursor_ = 0;        // every event up to this id has been seen
  uint64_t printed_ = 0;
  std::chrono::steady_clock::time_point deadline_;  // with -t: when to stop
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;  // guarded by mu_: a stop signal arrived
};

}  // namespace

CommandRunner AddEventsCommand(CLI::App& app) {
  auto args = std::make_shared<EventsArgs>();
  CLI::App* cmd = app.add_subcommand(
      "events",
      "Print the events held in a store (written by `fathom watch --store`), oldest first.\n"
      "A consumer that restarts with --since LAST_ID gets exactly the events after it.");
  cmd->add_option("--store", args->store, "The store's SQLite file")
      ->required()
      ->type_name("[sqlite:]FILE");
  CLI::Option* since = cmd->add_option(
      "--since", args->since,
      "Print only events after this id; fails if retention already removed some of them");
  since->type_name("ID")->check(WholeNumber());
  cmd->add_option("--path", args->path,
                  "Only this path and its direct entries (with -r: everything under it)")
      ->type_name("PREFIX");
  cmd->add_flag("-r,--recursive", args->recursive, "With --path: the whole subtree under PREFIX");
  AddLimitOptions(*cmd, args->limit, args->timeout);
  AddFormatOption(*cmd, args->format, "inotify");
  cmd->add_flag("-f,--follow", args->follow,
                "After the stored events, keep printing new ones as they are stored, until "
                "SIGINT/SIGTERM");
  return [args, since] {
    EventsRun run(*args, since->count() > 0);
    return run.Run();
  };
}

}  // namespace fathom::cli

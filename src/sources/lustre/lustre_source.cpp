#include "sources/lustre/lustre_source.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <iterator>

#include "core/thread_name.h"
#include "lustre/changelog_binary.h"
#include "sources/internal/source_util.h"
#include "sources/lustre/changelog_pump.h"
#include "sources/lustre/lustre_source_impl.h"

namespace fathom {
namespace lustre_source {
namespace {

// The roots must lie in the mount; none means the whole mount.
Status CheckRoots(const SourceOptions& options, const LustreSettings& settings) {
  for (const auto& root : options.roots) {
    if (root != settings.mount && !source_internal::IsUnder(root, settings.mount)) {
      return Status::Error("lustre: " + root + " is not inside the Lustre mount " + settings.mount +
                           " of " + settings.device + "; watch a directory below it");
    }
  }
  return Status::Ok();
}

// The mount must be the root of the client mount of the device's file system: paths are
// stored as MOUNT/fid2path-result, so any other directory would make every stored path wrong.
Status CheckMount(const LustreLibrary& lib, const LustreSettings& settings) {
  const auto refuse = [&](const std::string& found) {
    return Status::Error("lustre: --mount " + settings.mount + " is not the Lustre client mount of " +
                         settings.fsname + " (the file system of " + settings.device + "): " + found +
                         "; give the directory " + settings.fsname + " is mounted on (see `mount -t lustre`)");
  };
  Result<std::string> fsname = lib.SearchFsname(settings.mount);
  if (!fsname.ok()) return refuse("it is on no Lustre file system (" + fsname.status().message() + ")");
  if (*fsname != settings.fsname) return refuse("it is on Lustre file system " + *fsname);
  Result<lustre::Fid> fid = lib.Path2Fid(settings.mount);
  if (!fid.ok()) return refuse(fid.status().message());
  if (*fid != lustre::kRootFid) {
    return refuse("it is a directory inside " + settings.fsname + " (FID " + lustre::FormatFid(*fid) +
                  "), not its root " + lustre::FormatFid(lustre::kRootFid));
  }
  return Status::Ok();
}

}  // namespace

Status Detect(const SourceOptions& options) {
  FATHOM_ASSIGN_OR_RETURN(LustreSettings settings, ParseLustreSettings(options));
  FATHOM_RETURN_IF_ERROR(CheckRoots(options, settings));
  return LustreLibrary::Load(settings.library).status();
}

Result<std::unique_ptr<Source>> LustreSource::Create(const SourceOptions& options) {
  FATHOM_ASSIGN_OR_RETURN(LustreSettings settings, ParseLustreSettings(options));
  FATHOM_RETURN_IF_ERROR(CheckRoots(options, settings));
  FATHOM_ASSIGN_OR_RETURN(std::shared_ptr<const LustreLibrary> lib,
                          LustreLibrary::Load(settings.library));
  FATHOM_RETURN_IF_ERROR(CheckMount(*lib, settings));
  FATHOM_ASSIGN_OR_RETURN(auto queue, ChangelogQueue::Create(kMaxQueuedEvents));
  return std::unique_ptr<Source>(
      new LustreSource(options, std::move(settings), std::move(lib), std::move(queue)));
}

LustreSource::LustreSource(SourceOptions options, LustreSettings settings,
                           std::shared_ptr<const LustreLibrary> lib,
                           std::shared_ptr<ChangelogQueue> queue)
    : options_(std::move(options)),
      settings_(std::move(settings)),
      name_("lustre:" + settings_.device),
      lib_(std::move(lib)),
      queue_(std::move(queue)),
      handoff_(std::make_shared<RecordHandoff>(kHandoffDepth)) {}

LustreSource::~LustreSource() {
  Stop();
  if (resolver_.joinable()) resolver_.join();
  if (receiver_.joinable()) {
    if (queue_->WaitReaderExited(kStopGrace)) {
      receiver_.join();
    } else {
      spdlog::warn(
          "lustre: the changelog reader of {} is still inside liblustreapi's "
          "llapi_changelog_recv; leaving it to return on its own",
          settings_.device);
      receiver_.detach();
    }
  }
  if (clearer_ != nullptr) clearer_->Finish();
}

ResolverConfig LustreSource::MakeResolverConfig() const {
  ResolverConfig config;
  config.mount = settings_.mount;
  config.source = name_;
  config.mdt = settings_.mdt;
  config.roots = source_internal::DistinctRoots(options_.roots, options_.recursive);
  config.recursive = options_.recursive;
  config.kinds = options_.kinds;
  config.cache_size = settings_.cache_size;
  return config;
}

Status LustreSource::Resume(uint64_t position) {
  if (started_) return Status::Error("lustre source: Resume() after Start()");
  next_record_ = position + 1;
  position_ = position;
  return Status::Ok();
}

Status LustreSource::Start() {
  if (started_) return Status::Error("lustre source: Start() called twice");
  FATHOM_ASSIGN_OR_RETURN(ChangelogReader reader,
                          ChangelogReader::Open(*lib_, settings_.device, next_record_, true));
  if (settings_.user.empty()) {
    spdlog::info(
        "lustre: no changelog user given (lustre.user): {} records are read but never cleared",
        settings_.device);
  }
  if (!settings_.user.empty() && next_record_ > 1) FATHOM_RETURN_IF_ERROR(FindHeldRecord());
  if (!settings_.user.empty()) FATHOM_RETURN_IF_ERROR(CheckUser());
  ResolverConfig resolver_config = MakeResolverConfig();
  // Several MDTs: renames logged on the others are never read here (see ResolverConfig).
  Result<int> mdts = lib_->MdtCount(settings_.mount);
  resolver_config.check_directories = mdts.ok() && *mdts > 1;
  if (!mdts.ok()) spdlog::debug("lustre: MDT count of {} unknown: {}", settings_.mount, mdts.status().message());
  auto resolver = std::make_unique<RecordResolver>(
      std::move(resolver_config), [lib = lib_, fsname = settings_.fsname](const lustre::Fid& fid) {
        return lib->Fid2Path(fsname, fid);
      });
  auto pump = std::make_unique<ChangelogPump>(lib_, settings_.device, std::move(reader),
                                              next_record_, handoff_, queue_);
  started_ = true;
  if (!settings_.user.empty()) {
    clearer_ = std::make_unique<ChangelogClearer>(lib_, settings_.device, settings_.user,
                                                  kClearEveryRecords, kClearInterval);
  }
  resolver_ = std::thread([resolver = std::move(resolver), handoff = handoff_, queue = queue_] {
    NameThisThread("lustre-resolve");
    ResolveBatches(*resolver, *handoff, *queue);
  });
  receiver_ = std::thread([pump = std::move(pump)] {
    NameThisThread("lustre-pump");
    pump->Run();
  });
  return Status::Ok();
}

Status LustreSource::Wait(std::chrono::milliseconds timeout) {
  if (!started_) return Status::Error("lustre source: Wait() before Start()");
  queue_->Wait(timeout);
  return Status::Ok();
}

Status LustreSource::Drain(std::vector<Event>& out) {
  if (!started_) return Status::Error("lustre source: Drain() before Start()");
  std::deque<Chunk> taken;
  Status error = queue_->Take(kMaxDrainEvents, taken);
  size_t handed = 0;
  for (auto& chunk : taken) {
    handed += chunk.events.size();
    if (out.empty()) {
      out.swap(chunk.events);
    } else {
      out.insert(out.end(), std::make_move_iterator(chunk.events.begin()),
                 std::make_move_iterator(chunk.events.end()));
    }
    position_ = std::max(position_.load(), chunk.last_index);
  }
  events_ += handed;
  // A clear that failed (the user deregistered meanwhile) stops the reading too, at once.
  if (error.ok() && clearer_ != nullptr) error = clearer_->TakeError();
  return error;
}

void LustreSource::Stop() {
  queue_->Stop();
  handoff_->Stop();
}

SourceStats LustreSource::Stats() const {
  SourceStats s;
  s.events = events_;
  s.unresolved = queue_->counters.unresolved + queue_->counters.malformed;
  return s;
}

LustreCounters LustreSource::Counters() const {
  const ReaderCounters& r = queue_->counters;
  LustreCounters c;
  c.records = r.records;
  c.malformed = r.malformed;
  c.ignored = r.ignored;
  c.unresolved = r.unresolved;
  c.parent_removed = r.parent_removed;
  c.fid2path_calls = r.fid2path_calls;
  c.fid2path_failures = r.fid2path_failures;
  c.batches = r.batches;
  c.longest_hold_us = r.longest_hold_us;
  c.clears = clearer_ != nullptr ? clearer_->Clears() : 0;
  c.cleared = clearer_ != nullptr ? clearer_->Cleared() : 0;
  return c;
}

Status LustreSource::Acknowledge(uint64_t position) {
  if (clearer_ == nullptr) return Status::Ok();
  position = std::min(position, position_.load());
  const uint64_t malformed = queue_->counters.first_malformed.load();
  if (malformed != 0 && position >= malformed) {
    if (!held_logged_) {
      held_logged_ = true;
      spdlog::error(
          "lustre: {} record {} is malformed: its events are lost, and the changelog is not "
          "cleared from it on so that it can be inspected (`lfs changelog {} {} {}`); once "
          "understood, clear it by hand (`lfs changelog_clear {} {} {}`) and restart",
          settings_.device, malformed, settings_.device, malformed, malformed, settings_.device,
          settings_.user, malformed);
    }
    position = malformed - 1;
  }
  clearer_->Request(position);
  return clearer_->TakeError();
}

Status LustreSource::CheckUser() {
  // Lustre has no client call that lists changelog users, but a clear tells an unknown user
  // (ENOENT) from a known one (done, or EINVAL for a position it already cleared past). The
  // probe clears only what is cleared anyway: up to the resume point (stored), else up to the
  // record before the oldest one the MDT keeps (every user has cleared that far), and never
  // from a held malformed record on.
  uint64_t probe = next_record_ > 0 ? next_record_ - 1 : 0;
  const uint64_t malformed = queue_->counters.first_malformed.load();
  if (malformed != 0) probe = std::min(probe, malformed - 1);
  if (probe == 0) {
    FATHOM_ASSIGN_OR_RETURN(ChangelogReader reader,
                            ChangelogReader::Open(*lib_, settings_.device, 0, false));
    changelog_rec* rec = nullptr;
    if (reader.Receive(&rec) == 0) {
      probe = rec->cr_index - 1;
      reader.Free(&rec);
    }
  }
  if (probe == 0) {
    // Nothing ever cleared: no record may be cleared before it is stored, so the user is
    // known to be unregistered at the first clear (which then stops the reading).
    spdlog::debug("lustre: {} keeps its first record: user {} is checked at the first clear",
                  settings_.device, settings_.user);
    return Status::Ok();
  }
  Status probed = lib_->Clear(settings_.device, settings_.user, probe);
  if (probed.ok() || probed.code() == std::errc::invalid_argument) return Status::Ok();
  return probed;
}

Status LustreSource::FindHeldRecord() {
  // A malformed record read before a restart is still in the changelog (it is never cleared):
  // find it again among the records before the resume point, so clearing stays below it.
  FATHOM_ASSIGN_OR_RETURN(ChangelogReader reader,
                          ChangelogReader::Open(*lib_, settings_.device, 0, false));
  for (;;) {
    changelog_rec* rec = nullptr;
    const int rc = reader.Receive(&rec);
    if (rc != 0) return Status::Ok();  // the end (or an error the reading proper reports)
    const uint64_t index = rec->cr_index;
    const bool malformed = !lustre::UnpackRecord(rec).ok();
    reader.Free(&rec);
    if (index >= next_record_) return Status::Ok();
    if (malformed) {
      queue_->counters.NoteMalformed(index);
      return Status::Ok();
    }
  }
}

}  // namespace lustre_source

SourceInfo LustreSourceInfo() {
  return {.name = "lustre",
          .priority = 5,
          .detect = lustre_source::Detect,
          .create = lustre_source::LustreSource::Create,
          .settings = {"lustre.device", "lustre.mount", "lustre.user", "lustre.library",
                       "lustre.cache-size"}};
}

}  // namespace fathom

#include "lustre_sim/api/changelog_reader.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <thread>

#include "fathom/event.h"
#include "lustre/changelog_binary.h"

namespace fathom::lustre_sim {
namespace {

constexpr size_t kBatch = 1024;
constexpr int kPollFallbackMs = 20;
constexpr uint64_t kGeneratedTypes = (1ULL << CL_MKDIR) | (1ULL << CL_CREATE) | (1ULL << CL_MTIME) |
                                     (1ULL << CL_CLOSE) | (1ULL << CL_RENAME) | (1ULL << CL_UNLINK) |
                                     (1ULL << CL_SETATTR);

int Errno(const Status& status) { return -StatusErrno(status); }

}  // namespace

Result<std::unique_ptr<ChangelogReader>> ChangelogReader::Start(int flags, std::string_view device,
                                                                std::string_view user, uint64_t mask,
                                                                long long startrec) {
  if (startrec < 0) return ErrnoStatus(EINVAL, "negative start record " + std::to_string(startrec));
  Result<FileSystemHandle> found = LookupFileSystem(device);
  if (!found.ok()) return ErrnoStatus(ENOENT, found.status().message());
  FileSystemHandle& fs = *found;
  SimConfig config = fs.state->config();
  if (fs.mdt >= config.mdts) {
    return ErrnoStatus(ENOENT, "no changelog device " + std::string(device) + ": " + config.fsname + " has " +
                                   std::to_string(config.mdts) + " MDTs");
  }
  std::unique_ptr<ChangelogReader> reader(new ChangelogReader());
  reader->flags_ = flags;
  reader->mdt_ = fs.mdt;
  reader->next_ = startrec > 0 ? static_cast<uint64_t>(startrec) : 1;
  if (!user.empty()) {
    FATHOM_ASSIGN_OR_RETURN(std::vector<ChangelogUser> users, fs.state->Users(fs.mdt));
    std::string_view id = user;
    if (id.substr(0, 2) != "cl") {
      bool numeric = !id.empty() && id.find_first_not_of("0123456789") == std::string_view::npos;
      if (!numeric) return ErrnoStatus(ENOENT, "no changelog user '" + std::string(user) + "'");
    }
    std::string name = id.substr(0, 2) == "cl" ? std::string(id.substr(0, id.find('-'))) : "cl" + std::string(id);
    const ChangelogUser* match = nullptr;
    for (const auto& u : users) {
      if (u.name == name) match = &u;
    }
    if (match == nullptr) {
      return ErrnoStatus(ENOENT, "no changelog user '" + std::string(user) + "' on " + std::string(device));
    }
    reader->mask_ = mask != 0 ? mask : match->mask;
  }
  if (fs.fast) {
    FATHOM_ASSIGN_OR_RETURN(uint64_t mdt_mask, fs.state->Mask(fs.mdt));
    reader->mask_ &= mdt_mask;
    reader->fast_ = fs.fast;
    reader->frontier_ = fs.frontier;
    reader->paced_ = fs.fast->spec().rate != 0;
    if (reader->paced_) {
      reader->wake_fd_ = UniqueFd(::timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC | TFD_NONBLOCK));
      if (reader->wake_fd_.valid()) reader->ArmForNext();
    } else {
      reader->wake_fd_ = UniqueFd(::eventfd(1, EFD_CLOEXEC | EFD_NONBLOCK));
    }
  } else {
    FATHOM_ASSIGN_OR_RETURN(reader->state_, SimState::Open(fs.entry.state_dir));
    reader->wake_fd_ = UniqueFd(::eventfd(1, EFD_CLOEXEC | EFD_NONBLOCK));
    UniqueFd notify(::inotify_init1(IN_CLOEXEC | IN_NONBLOCK));
    if (!notify.valid()) return Status::FromErrno(errno, "cannot watch the emulator's state directory");
    ::inotify_add_watch(notify.get(), fs.entry.state_dir.c_str(), IN_MODIFY | IN_CREATE | IN_MOVED_TO);
    if (reader->wake_fd_.valid()) {
      ChangelogReader* r = reader.get();
      r->watcher_ = std::thread([r, notify = std::move(notify)]() mutable { r->WatchStoredLog(std::move(notify)); });
    }
  }
  if (!reader->wake_fd_.valid()) return Status::FromErrno(errno, "cannot create the changelog reader's wake-up fd");
  return reader;
}

ChangelogReader::~ChangelogReader() {
  stopping_ = true;
  if (watcher_.joinable()) watcher_.join();
}

void ChangelogReader::WatchStoredLog(UniqueFd notify) {
  char drain[4096];
  while (!stopping_) {
    struct pollfd pfd {};
    pfd.fd = notify.get();
    pfd.events = POLLIN;
    ::poll(&pfd, 1, kPollFallbackMs);
    while (::read(notify.get(), drain, sizeof(drain)) > 0) {
    }
    auto last = state_->LastIndex(mdt_);
    if (last.ok() && *last >= next_.load()) SetReady();
  }
}

void ChangelogReader::SetReady() {
  const uint64_t one = 1;
  (void)!::write(wake_fd_.get(), &one, sizeof one);
}

void ChangelogReader::ClearReady() {
  uint64_t value = 0;
  (void)!::read(wake_fd_.get(), &value, sizeof value);
}

void ChangelogReader::WaitForChange() {
  struct pollfd pfd {};
  pfd.fd = wake_fd_.get();
  pfd.events = POLLIN;
  ::poll(&pfd, 1, kPollFallbackMs);
}

int ChangelogReader::NextStored() {
  for (;;) {
    while (pos_ < batch_.size()) {
      lustre::ChangelogRecord& record = batch_[pos_++];
      if (mask_ & (1ULL << record.type)) {
        current_ = std::move(record);
        // The last record known: not ready until the watcher sees more.
        if (pos_ == batch_.size()) {
          auto last = state_->LastIndex(mdt_);
          if (last.ok() && *last < next_.load()) ClearReady();
        }
        return 0;
      }
    }
    batch_.clear();
    pos_ = 0;
    Status status = state_->Read(mdt_, next_, kBatch, batch_);
    if (!status.ok()) return Errno(status);
    if (!batch_.empty()) {
      next_ = batch_.back().index + 1;
      continue;
    }
    // Nothing new: the descriptor is not ready until the watcher sees more.
    ClearReady();
    if (!(flags_ & CHANGELOG_FLAG_FOLLOW)) return 1;
    WaitForChange();
  }
}

bool ChangelogReader::InBuffer() const {
  if (!fast_) return pos_ < batch_.size();
  const uint64_t next = next_.load();
  return fast_->Has(next) && (!paced_ || fast_->DueBy(next, static_cast<uint64_t>(NowNs())));
}

bool ChangelogReader::NextIsDue() {
  if (fast_->DueBy(next_, clock_ns_)) return true;
  clock_ns_ = static_cast<uint64_t>(NowNs());
  return fast_->DueBy(next_, clock_ns_);
}

void ChangelogReader::ArmForNext() {
  struct itimerspec when {};
  if (fast_->Has(next_) && (mask_ & kGeneratedTypes) != 0) {
    const uint64_t due = fast_->DueNs(next_);
    when.it_value.tv_sec = static_cast<time_t>(due / 1000000000ULL);
    when.it_value.tv_nsec = static_cast<long>(due % 1000000000ULL);
    if (due == 0) when.it_value.tv_nsec = 1;  // an all-zero value would disarm
  }
  ::timerfd_settime(wake_fd_.get(), TFD_TIMER_ABSTIME, &when, nullptr);
}

int ChangelogReader::NextGenerated() {
  for (;;) {
    if (!fast_->Has(next_) || (mask_ & kGeneratedTypes) == 0) {
      // A finite generated log has ended: nothing more will come.
      if (paced_) {
        ArmForNext();  // disarms
      } else {
        ClearReady();
      }
      if (!(flags_ & CHANGELOG_FLAG_FOLLOW)) return 1;
      std::this_thread::sleep_for(std::chrono::milliseconds(kPollFallbackMs));
      continue;
    }
    if (paced_ && !NextIsDue()) {
      ArmForNext();  // readable again exactly when next_ is due
      if (!(flags_ & CHANGELOG_FLAG_FOLLOW)) return 1;
      struct pollfd pfd {};
      pfd.fd = wake_fd_.get();
      pfd.events = POLLIN;
      ::poll(&pfd, 1, -1);
      continue;
    }
    uint64_t index = next_++;
    if (mask_ & (1ULL << FastLog::TypeAt(index))) {
      fast_->RecordAt(mdt_, index, current_);
      frontier_->Advance(mdt_, index);
      // The descriptor stays readable only while the following record is due.
      if (paced_ && (!fast_->Has(next_) || !NextIsDue())) ArmForNext();
      return 0;
    }
  }
}

int ChangelogReader::Deliver(changelog_rec** out) {
  lustre::PackOptions options;
  options.want_jobid = (flags_ & CHANGELOG_FLAG_JOBID) != 0;
  options.want_extra =
      (flags_ & CHANGELOG_FLAG_EXTRA_FLAGS) ? extra_flags_ & (CLFE_UIDGID | CLFE_NID | CLFE_OPEN | CLFE_XATTR) : 0;
  lustre::PackRecordInto(current_, options, packed_);
  void* record = std::malloc(packed_.size());
  if (record == nullptr) return -ENOMEM;
  std::memcpy(record, packed_.data(), packed_.size());
  *out = static_cast<changelog_rec*>(record);
  return 0;
}

int ChangelogReader::Recv(changelog_rec** out) {
  *out = nullptr;
  int rc = fast_ ? NextGenerated() : NextStored();
  if (rc != 0) return rc;
  return Deliver(out);
}

}  // namespace fathom::lustre_sim

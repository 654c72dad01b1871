// The emulated servers' statistics: what each request counts on the OSTs and MDTs, the delay
// injected on an OST, and the statistics control attribute (dump, clear, delay, cleanup).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <thread>

#include "lustre_sim/fuse/control_xattr.h"
#include "lustre_sim/fuse/sim_fs.h"
#include "lustre_sim/state/registry.h"

namespace fathom::lustre_sim {
namespace {

uint64_t UsecsSince(std::chrono::steady_clock::time_point start) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                   std::chrono::steady_clock::now() - start)
                                   .count());
}

// Calls `piece(ost, bytes)` for each stripe piece of [off, off + size) in file order.
template <typename Piece>
void ForEachPiece(const Layout& layout, off_t off, size_t size, Piece&& piece) {
  if (layout.osts.empty() || layout.stripe_size == 0) return;
  uint64_t pos = static_cast<uint64_t>(off);
  const uint64_t end = pos + size;
  while (pos < end) {
    const uint64_t stripe = pos / layout.stripe_size;
    const uint64_t piece_end = std::min(end, (stripe + 1) * layout.stripe_size);
    piece(static_cast<int>(layout.osts[stripe % layout.osts.size()]), piece_end - pos);
    pos = piece_end;
  }
}

// Writes `text` to `path` whole: a reader sees the old file or the new one.
int WriteWhole(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp" + std::to_string(gettid());
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  const bool written = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int err = written ? 0 : (errno != 0 ? errno : EIO);
  close(fd);
  if (err != 0 || rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = err != 0 ? err : errno;
    unlink(tmp.c_str());
    return e;
  }
  return 0;
}

}  // namespace

int SimFs::MdtOfNode(const Node& node) {
  auto entry = state_->Get(node.fid);
  return entry.ok() ? entry->mdt : 0;
}

void SimFs::PlaceOpenFile(OpenFile& file) {
  file.mdt = MdtOfNode(*file.node);
  if (!S_ISREG(file.node->type)) return;
  auto layout = state_->GetLayout(file.node->fid);
  if (layout.ok()) file.layout = std::move(*layout);
}

void SimFs::CountMdt(const std::string& job, int mdt, MdtOp op, Clock::time_point start) {
  stats_.AddMdt(mdt, job, op, UsecsSince(start));
}

void SimFs::DelayIo(const OpenFile& file, off_t off, size_t size) {
  if (!file.layout) return;
  std::chrono::microseconds delay(0);
  ForEachPiece(*file.layout, off, size,
               [&](int ost, uint64_t) { delay = std::max(delay, stats_.OstDelay(ost)); });
  if (delay.count() > 0) std::this_thread::sleep_for(delay);
}

void SimFs::CountIo(const OpenFile& file, off_t off, size_t size, bool write,
                    Clock::time_point start) {
  if (!file.layout) return;
  const uint64_t usecs = UsecsSince(start);
  const std::string& job = file.caller.jobid;
  ForEachPiece(*file.layout, off, size, [&](int ost, uint64_t bytes) {
    stats_.AddOst(ost, job, write ? OstOp::kWriteBytes : OstOp::kReadBytes, bytes);
    stats_.AddOst(ost, job, write ? OstOp::kWrite : OstOp::kRead, usecs);
  });
}

void SimFs::CountOsts(const Layout& layout, const std::string& job, OstOp op, Clock::time_point start) {
  const uint64_t usecs = UsecsSince(start);
  for (uint32_t ost : layout.osts) stats_.AddOst(static_cast<int>(ost), job, op, usecs);
}

void SimFs::CountObjects(const Fid& fid, const std::string& job, OstOp op, Clock::time_point start) {
  auto layout = state_->GetLayout(fid);
  if (layout.ok()) CountOsts(*layout, job, op, start);
}

int SimFs::StatsControl(std::string_view value) {
  auto request = DecodeStatsRequest(value);
  if (!request.ok()) return EINVAL;
  switch (request->kind) {
    case StatsRequest::Kind::kClear:
      if (request->index >= (request->ost ? stats_.osts() : stats_.mdts())) return EINVAL;
      if (request->ost) {
        stats_.ClearOstJobs(request->index, request->job);
      } else {
        stats_.ClearMdtJobs(request->index, request->job);
      }
      return 0;
    case StatsRequest::Kind::kDelay:
      if (request->index >= stats_.osts()) return EINVAL;
      stats_.SetOstDelay(request->index, std::chrono::microseconds(request->value));
      return 0;
    case StatsRequest::Kind::kCleanup:
      stats_.SetCleanupInterval(request->value);
      return 0;
    case StatsRequest::Kind::kDump:
      break;
  }
  const std::string dir = state_->dir() + "/" + kStatsDir;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return ec.value();
  const std::string& fs = stats_.fsname();
  const std::string cleanup = std::to_string(stats_.CleanupInterval()) + "\n";
  for (int i = 0; i < stats_.osts(); ++i) {
    const std::string prefix = dir + "/obdfilter." + OstName(fs, i);
    const std::string delay_ms = std::to_string(stats_.OstDelay(i).count() / 1000) + "\n";
    if (int err = WriteWhole(prefix + ".job_stats", stats_.OstJobStats(i))) return err;
    if (int err = WriteWhole(prefix + ".stats", stats_.OstStats(i))) return err;
    if (int err = WriteWhole(prefix + ".sim_delay_ms", delay_ms)) return err;
    if (int err = WriteWhole(prefix + ".job_cleanup_interval", cleanup)) return err;
  }
  for (int i = 0; i < stats_.mdts(); ++i) {
    const std::string prefix = dir + "/mdt." + MdtName(fs, i);
    if (int err = WriteWhole(prefix + ".job_stats", stats_.MdtJobStats(i))) return err;
    if (int err = WriteWhole(prefix + ".md_stats", stats_.MdtStats(i))) return err;
    if (int err = WriteWhole(prefix + ".job_cleanup_interval", cleanup)) return err;
  }
  return 0;
}

}  // namespace fathom::lustre_sim

#include "catalog/scan/scanner.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <thread>

#include "catalog/scan/chunk_queue.h"
#include "catalog/scan/dir_reader.h"
#include "catalog/scan/entry_stat.h"
#include "catalog/scan/work_stack.h"
#include "core/unique_fd.h"
#include "fathom/event.h"

namespace fathom::scan {
namespace {

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

std::string Join(const std::string& dir, const std::string& name) {
  return dir == "/" ? "/" + name : dir + "/" + name;
}

// Errors that mean "this name is no longer what was listed": skipped quietly.
bool Vanished(int err) { return err == ENOENT || err == ENOTDIR || err == ELOOP; }

}  // namespace

// One worker thread's traversal state.
class Scanner::Worker {
 public:
  Worker(Scanner& scanner, WorkStack& stack, ChunkQueue& queue)
      : s_(scanner), stack_(stack), queue_(queue) {}

  void Run() {
    DirWork work;
    while (stack_.Pop(work)) {
      UniqueFd fd(open(work.path.c_str(), kDirFlags));
      if (!fd.valid()) {
        Abandon(work, errno);
        continue;
      }
      Read(work, std::move(fd), 0);
    }
  }

 private:
  // A directory that could not be opened: gone (quietly) or unreadable (a problem).
  void Abandon(const DirWork& work, int err) {
    s_.directories_pending_.fetch_sub(1, std::memory_order_relaxed);
    if (Vanished(err)) {
      s_.vanished_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    Problem(work.path, err, "cannot read directory " + work.path);
  }

  void Problem(const std::string& path, int err, std::string what) {
    s_.errors_.fetch_add(1, std::memory_order_relaxed);
    ScanProblem p;
    p.path = path;
    p.error = err;
    p.message = Status::FromErrno(err, what).message() +
                " (its contents are missing from this scan; check its permissions or run the "
                "scan as a user who may read it)";
    queue_.Push(std::move(p));
  }

  // Reads the open directory `fd` to its end, chunk by chunk; `depth` counts the levels this
  // worker descended by itself to get here.
  void Read(const DirWork& work, UniqueFd fd, size_t depth) {
    struct stat st;
    if (fstat(fd.get(), &st) != 0) {
      Abandon(work, errno);
      return;
    }
    if (work.ino != 0 && (st.st_dev != work.dev || st.st_ino != work.ino)) {
      Abandon(work, ENOENT);  // replaced by another directory since it was listed
      return;
    }
    catalog::Attrs dir_attrs = catalog::AttrsFromStat(st);
    if (s_.options_.describe) s_.options_.describe(fd.get(), work.path, dir_attrs);
    DirReader reader(fd.get());
    std::vector<std::string> names;
    std::vector<DirWork> children;
    bool first = true;
    bool last = false;
    while (!last) {
      if (s_.stop_requested_.load(std::memory_order_relaxed)) return;
      ScanChunk chunk;
      chunk.path = work.path;
      chunk.attrs = dir_attrs;
      chunk.dir_token = work.token;
      chunk.parent_token = work.parent_token;
      chunk.first = std::exchange(first, false);
      chunk.observation.time_ns = NowNs();
      names.clear();
      Result<size_t> n = reader.Next(names, s_.options_.chunk_entries);
      if (!n.ok()) {
        const int err = n.status().code().value();
        if (err == ENOENT) {
          s_.vanished_.fetch_add(1, std::memory_order_relaxed);  // removed while being read
        } else {
          Problem(work.path, err, "cannot list directory " + work.path);
        }
      }
      last = !n.ok() || *n < s_.options_.chunk_entries;
      chunk.last = last;
      chunk.entries.reserve(names.size());
      children.clear();
      uint64_t bytes = 0;
      for (std::string& name : names) {
        ScanEntry entry;
        if (int err = StatEntry(fd.get(), name, entry.attrs); err != 0) {
          if (err == ENOENT) {
            s_.vanished_.fetch_add(1, std::memory_order_relaxed);
          } else {
            Problem(Join(work.path, name), err,
                    "cannot read the attributes of " + Join(work.path, name));
          }
          continue;
        }
        if (s_.options_.describe) s_.options_.describe(fd.get(), Join(work.path, name), entry.attrs);
        bytes += static_cast<uint64_t>(entry.attrs.size);
        if (S_ISDIR(entry.attrs.mode) &&
            (s_.options_.cross_devices || entry.attrs.dev == work.root_dev)) {
          entry.dir_token = s_.next_token_.fetch_add(1, std::memory_order_relaxed);
          children.push_back(DirWork{Join(work.path, name), entry.dir_token, work.token,
                                     work.root_dev, entry.attrs.dev, entry.attrs.ino});
        }
        entry.name = std::move(name);
        chunk.entries.push_back(std::move(entry));
      }
      s_.entries_.fetch_add(chunk.entries.size(), std::memory_order_relaxed);
      s_.bytes_.fetch_add(bytes, std::memory_order_relaxed);
      s_.directories_pending_.fetch_add(children.size(), std::memory_order_relaxed);
      if (last) {
        s_.directories_done_.fetch_add(1, std::memory_order_relaxed);
        s_.directories_pending_.fetch_sub(1, std::memory_order_relaxed);
      }
      // The chunk goes out before its subdirectories can be read: the sink sees a directory's
      // entry before the directory's own chunks.
      if (!queue_.Push(std::move(chunk))) return;
      for (DirWork& child : children) {
        if (depth >= s_.options_.max_depth_per_worker) {
          stack_.Push(std::move(child));
        } else if (!stack_.TryPush(std::move(child))) {
          Descend(fd.get(), child, depth + 1);
        }
      }
    }
  }

  // Reads `child` (an entry of the directory `parent_fd`) on this thread, now.
  void Descend(int parent_fd, const DirWork& child, size_t depth) {
    const std::string name = child.path.substr(child.path.rfind('/') + 1);
    UniqueFd fd(openat(parent_fd, name.c_str(), kDirFlags));
    if (!fd.valid()) {
      Abandon(child, errno);
      return;
    }
    Read(child, std::move(fd), depth);
  }

  Scanner& s_;
  WorkStack& stack_;
  ChunkQueue& queue_;
};

Scanner::Scanner(ScanOptions options) : options_(options) {
  if (options_.threads == 0) options_.threads = std::max(1u, std::thread::hardware_concurrency());
  if (options_.chunk_entries == 0) options_.chunk_entries = 1;
  if (options_.queued_chunks == 0) options_.queued_chunks = 4 * size_t{options_.threads};
}

Status Scanner::Run(const std::vector<std::string>& roots, ScanSink& sink) {
  for (auto* counter :
       {&entries_, &directories_done_, &directories_pending_, &errors_, &vanished_, &bytes_}) {
    counter->store(0);
  }
  started_ns_ = NowNs();
  finished_ns_ = 0;

  WorkStack stack(options_.pending_directories, options_.threads);
  ChunkQueue queue(options_.queued_chunks);
  for (const std::string& root : roots) {
    if (root.empty() || root[0] != '/') {
      return Status::Error("cannot scan '" + root + "': give an absolute path");
    }
    struct stat st;
    UniqueFd fd(open(root.c_str(), kDirFlags));
    if (!fd.valid() || fstat(fd.get(), &st) != 0) {
      return Status::FromErrno(
          errno, "cannot scan " + root + " (it must be a readable directory, not a symbolic link)");
    }
    stack.Push(DirWork{root, next_token_.fetch_add(1), 0, st.st_dev, 0, 0});
    directories_pending_.fetch_add(1);
  }
  {
    std::lock_guard lock(stop_mu_);
    stack_ = &stack;
    queue_ = &queue;
  }
  if (stop_requested_) {
    stack.Stop();
    queue.Stop();
  }

  std::vector<std::thread> threads;
  std::atomic<unsigned> running{options_.threads};
  for (unsigned i = 0; i < options_.threads; ++i) {
    threads.emplace_back([&] {
      Worker(*this, stack, queue).Run();
      if (running.fetch_sub(1) == 1) queue.Close();
    });
  }
  std::deque<ScanItem> batch;
  while (queue.TakeAll(batch)) {
    for (ScanItem& item : batch) {
      if (auto* chunk = std::get_if<ScanChunk>(&item)) {
        sink.OnChunk(std::move(*chunk));
      } else {
        sink.OnProblem(std::move(std::get<ScanProblem>(item)));
      }
      if (stop_requested_.load(std::memory_order_relaxed)) break;
    }
  }
  for (auto& t : threads) t.join();
  {
    std::lock_guard lock(stop_mu_);
    stack_ = nullptr;
    queue_ = nullptr;
  }
  finished_ns_ = NowNs();
  if (stop_requested_) {
    return Status::Error("the scan was stopped before it finished; what it reported is partial",
                         std::make_error_code(std::errc::operation_canceled));
  }
  return Status::Ok();
}

void Scanner::Stop() {
  stop_requested_ = true;
  std::lock_guard lock(stop_mu_);
  if (stack_ != nullptr) stack_->Stop();
  if (queue_ != nullptr) queue_->Stop();
}

ScanProgress Scanner::Progress() const {
  ScanProgress p;
  p.entries = entries_.load(std::memory_order_relaxed);
  p.directories_done = directories_done_.load(std::memory_order_relaxed);
  p.directories_pending = directories_pending_.load(std::memory_order_relaxed);
  p.errors = errors_.load(std::memory_order_relaxed);
  p.vanished = vanished_.load(std::memory_order_relaxed);
  p.bytes = bytes_.load(std::memory_order_relaxed);
  const int64_t start = started_ns_.load();
  const int64_t end = finished_ns_.load();
  if (start != 0) p.elapsed = std::chrono::nanoseconds((end != 0 ? end : NowNs()) - start);
  return p;
}

}  // namespace fathom::scan

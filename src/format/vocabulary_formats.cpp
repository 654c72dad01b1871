// The kqueue, FSEvents and .NET FileSystemWatcher vocabularies (tables in docs/formats.md).
#include <array>
#include <optional>
#include <utility>

#include "format/formatters.h"

namespace fathom::internal {
namespace {

using Mapping = std::pair<uint32_t, std::string_view>;

// Names for the kinds in `mask` per `table`, comma-joined without repeats, in table order.
template <size_t N>
std::string MapNames(uint32_t mask, const std::array<Mapping, N>& table) {
  std::string out;
  for (const auto& [bits, name] : table) {
    if (!(mask & bits)) continue;
    if (out.find(name) != std::string::npos) continue;
    if (!out.empty()) out += ',';
    out += name;
  }
  return out;
}

// kqueue EVFILT_VNODE fflags. kqueue has no entry-created note: FSMonitor reports a create
// as NOTE_EXTEND (the directory grows), which is kept here.
constexpr std::array<Mapping, 13> kKqueue = {{
    {kind::kCreate, "NOTE_EXTEND"},
    {kind::kModify, "NOTE_WRITE"},
    {kind::kAttrib, "NOTE_ATTRIB"},
    {kind::kAccess, "NOTE_READ"},
    {kind::kOpen, "NOTE_OPEN"},
    {kind::kCloseWrite, "NOTE_CLOSE_WRITE"},
    {kind::kCloseNowrite, "NOTE_CLOSE"},
    {kind::kMovedFrom, "NOTE_RENAME"},
    {kind::kMovedTo, "NOTE_RENAME"},
    {kind::kMoveSelf, "NOTE_RENAME"},
    {kind::kDelete | kind::kDeleteSelf, "NOTE_DELETE"},
    {kind::kParentRemoved, "NOTE_DELETE"},
    {kind::kOverflow, "NOTE_REVOKE"},
}};

// FSEvents kFSEventStreamEventFlag* names (without the prefix).
// ItemIsDir/ItemIsFile is appended to every line but an overflow's.
constexpr std::array<Mapping, 7> kFsevents = {{
    {kind::kOverflow, "MustScanSubDirs"},
    {kind::kCreate, "ItemCreated"},
    {kind::kDelete | kind::kDeleteSelf | kind::kParentRemoved, "ItemRemoved"},
    {kind::kAttrib, "ItemInodeMetaMod"},
    {kind::kMovedFrom | kind::kMovedTo | kind::kMoveSelf, "ItemRenamed"},
    {kind::kModify, "ItemModified"},
    {kind::kCloseWrite, "ItemModified"},
}};

class KqueueFormatter final : public Formatter {
 public:
  void Write(const Event& e, std::string& out) override {
    std::string names = MapNames(e.mask, kKqueue);
    if (!names.empty()) AppendRootLine(e, names, out);
  }
  void Flush(std::string&) override {}
};

class FseventsFormatter final : public Formatter {
 public:
  void Write(const Event& e, std::string& out) override {
    std::string names = MapNames(e.mask, kFsevents);
    if (names.empty()) return;  // reads (ACCESS, OPEN, CLOSE_NOWRITE) have no FSEvents flag
    if (!(e.mask & kind::kOverflow)) names += (e.mask & kind::kIsDir) ? ",ItemIsDir" : ",ItemIsFile";
    AppendRootLine(e, names, out);
  }
  void Flush(std::string&) override {}
};

// .NET FileSystemWatcher: Created, Changed, Deleted, Renamed (one line "OLD -> NEW" for both
// halves of a rename), Error for a lost-events overflow. A MOVED_FROM is held until the next
// event: its MOVED_TO makes a Renamed, anything else turns it into a Deleted (moved out).
class WindowsFormatter final : public Formatter {
 public:
  void Write(const Event& e, std::string& out) override {
    if (pending_) {
      if ((e.mask & kind::kMovedTo) && e.cookie == pending_->cookie) {
        out += e.root;
        out += " Renamed ";
        out += RelativePath(pending_->root, pending_->path);
        out += " -> ";
        out += RelativePath(e.root, e.path);
        out += '\n';
        pending_.reset();
        return;
      }
      Flush(out);
    }
    if (e.mask & kind::kMovedFrom) {
      pending_ = e;
      return;
    }
    std::string_view name;
    if (e.mask & kind::kOverflow) {
      name = "Error";
    } else if (e.mask & (kind::kCreate | kind::kMovedTo)) {
      name = "Created";
    } else if (e.mask & (kind::kDelete | kind::kDeleteSelf | kind::kParentRemoved)) {
      name = "Deleted";
    } else if (e.mask & (kind::kModify | kind::kAttrib)) {
      name = "Changed";
    } else {
      return;  // no FileSystemWatcher change type for reads and closes
    }
    AppendRootLine(e, name, out);
  }
  void Flush(std::string& out) override {
    if (!pending_) return;
    AppendRootLine(*pending_, "Deleted", out);
    pending_.reset();
  }

 private:
  std::optional<Event> pending_;
};

}  // namespace

std::unique_ptr<Formatter> MakeKqueueFormatter() { return std::make_unique<KqueueFormatter>(); }
std::unique_ptr<Formatter> MakeFseventsFormatter() { return std::make_unique<FseventsFormatter>(); }
std::unique_ptr<Formatter> MakeWindowsFormatter() { return std::make_unique<WindowsFormatter>(); }

}  // namespace fathom::internal

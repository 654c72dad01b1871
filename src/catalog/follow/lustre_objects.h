// lustre_objects.h — a Lustre event's objects by their FIDs, whatever paths the event gives.
//
// The Lustre source's events carry the FID of the object they are about ("fid") and of its
// directory ("pfid") in their attributes. A collector names objects by the paths it knows
// when it reads their records; with several MDTs, a rename logged on another MDT may be
// stored before or after those records, so a path may stand ahead of or behind the stream's
// point. The FIDs say which objects are meant:
//  - Identity(): the (device, inode) a 64-bit Lustre client shows for a FID (fid_flatten),
//    the catalog's identity of the object, known without reading the file system (the
//    object may be gone by now);
//  - ObjectPath(): MOUNT/.lustre/fid/[FID], where a Lustre client serves the object whatever
//    its path (as Robinhood reads objects); "" when the root lies on no such mount.
//
// Used from one thread; caches each root's device and mount.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "fathom/event.h"
#include "lustre/fid.h"

namespace fathom::catalog {

struct LustreIds {
  std::optional<lustre::Fid> fid;   // the object
  std::optional<lustre::Fid> pfid;  // its directory (for MOVED_FROM: the one it left)
};

// The FIDs an event carries; none for an event of another source.
LustreIds LustreIdsOf(const Event& e);

class LustreObjects {
 public:
  // The (device, inode) of `fid` on the file system of `root`; nullopt when `root` cannot be
  // stat'ed.
  std::optional<std::pair<uint64_t, uint64_t>> Identity(const std::string& root, const lustre::Fid& fid);
  // MOUNT/.lustre/fid/[FID] for the Lustre mount holding `root`; "" when there is none.
  std::string ObjectPath(const std::string& root, const lustre::Fid& fid);

 private:
  struct Root {
    std::optional<uint64_t> dev;
    std::string mount;  // "" when `root` lies on no Lustre mount
  };
  const Root& Of(const std::string& root);

  std::map<std::string, Root, std::less<>> roots_;
};

}  // namespace fathom::catalog

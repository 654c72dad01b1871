#include "lustre_sim/api/fast_log.h"

#include <cerrno>

#include "lustre_sim/state/sim_state.h"

namespace fathom::lustre_sim {
namespace {

constexpr uint64_t kSeqBase = 0x200000400ULL;
constexpr uint64_t kSeqStride = 0x40000000ULL;
constexpr uint64_t kOidsPerSeq = 0x20000;
constexpr uint64_t kDirStride = FastLog::kFilesPerDir + 1;
constexpr uint32_t kCloseFlags = 0x42;     // the open mode of a file written after create
constexpr uint16_t kSetattrValid = 0x10;   // LA_MODE: a chmod

uint64_t DirOrdinal(uint64_t j) { return 1 + j * kDirStride; }
uint64_t FileOrdinal(uint64_t k) { return 2 + (k / FastLog::kFilesPerDir) * kDirStride + k % FastLog::kFilesPerDir; }
bool Renamed(uint64_t k) { return k % FastLog::kRenameEvery == FastLog::kRenameEvery - 1; }

// Writes "<prefix><number>" into `out` without allocating beyond its capacity.
void Name(std::string& out, char prefix, uint64_t number) {
  char buf[24];
  char* end = buf + sizeof(buf);
  char* p = end;
  do {
    *--p = static_cast<char>('0' + number % 10);
    number /= 10;
  } while (number != 0);
  *--p = prefix;
  out.assign(p, static_cast<size_t>(end - p));
}

// Index of the first record of file k's cycle.
uint64_t CycleStart(uint64_t k) { return 2 + 4 * k; }

}  // namespace

lustre::Fid FastLog::ObjectFid(int mdt, uint64_t ordinal) {
  return lustre::Fid{kSeqBase + static_cast<uint64_t>(mdt) * kSeqStride + ordinal / kOidsPerSeq,
                     static_cast<uint32_t>(ordinal % kOidsPerSeq + 1), 0};
}

int FastLog::MdtOf(const lustre::Fid& fid) const {
  if (fid.seq < kSeqBase) return -1;
  uint64_t mdt = (fid.seq - kSeqBase) / kSeqStride;
  return mdt < static_cast<uint64_t>(spec_.mdts) ? static_cast<int>(mdt) : -1;
}

uint32_t FastLog::TypeAt(uint64_t index) {
  if (index <= 1) return CL_MKDIR;
  uint64_t k = (index - 2) / 4;
  switch ((index - 2) % 4) {
    case 0: return k % kFilesPerDir == 0 ? CL_MKDIR : CL_MTIME;
    case 1: return CL_CREATE;
    case 2: return Renamed(k) ? CL_RENAME : CL_CLOSE;
    default: return k >= kLiveFiles ? CL_UNLINK : CL_SETATTR;
  }
}

uint64_t FastLog::DueNs(uint64_t index) const {
  if (spec_.rate == 0) return spec_.epoch_ns;
  constexpr uint64_t kNsPerSecond = 1000000000ULL;
  // index * 1e9 / rate without overflow for any index below 2^64 / 1e9 seconds' worth.
  return spec_.epoch_ns + index / spec_.rate * kNsPerSecond + index % spec_.rate * kNsPerSecond / spec_.rate;
}

void FastLog::RecordAt(int mdt, uint64_t index, lustre::ChangelogRecord& r) const {
  r.index = index;
  r.prev = 0;
  r.time_ns = TimeNs(index);
  r.flags = 0;
  r.pfid = {};
  r.name.clear();
  r.has_rename = false;
  r.sfid = {};
  r.spfid = {};
  r.sname.clear();
  r.open_flags = 0;
  r.xattr.clear();
  r.has_extra_flags = true;
  r.extra_flags = CLFE_UIDGID | CLFE_NID;
  if (r.nid != spec_.nid) r.nid = spec_.nid;
  const lustre::Fid mdt_dir = ObjectFid(mdt, 0);
  if (index <= 1) {
    r.type = CL_MKDIR;
    r.tfid = mdt_dir;
    r.pfid = lustre::kRootFid;
    Name(r.name, 'm', static_cast<uint64_t>(mdt));
    r.name.insert(1, "dt");
    r.uid = r.gid = 0;
    r.has_jobid = true;
    r.jobid.assign("mkdir.0");
    return;
  }
  const uint64_t k = (index - 2) / 4;
  const uint64_t j = k / kFilesPerDir;
  const lustre::Fid dir = ObjectFid(mdt, DirOrdinal(j));
  r.uid = 1000 + k % 8;
  r.gid = 1000;
  r.has_jobid = true;
  Name(r.jobid, '.', r.uid);
  r.jobid.insert(0, "bench");
  r.type = TypeAt(index);
  switch ((index - 2) % 4) {
    case 0:
      if (r.type == CL_MKDIR) {
        r.tfid = dir;
        r.pfid = mdt_dir;
        Name(r.name, 'd', j);
      } else {
        r.tfid = ObjectFid(mdt, FileOrdinal(k - 1));
        r.pfid = ObjectFid(mdt, DirOrdinal((k - 1) / kFilesPerDir));
      }
      return;
    case 1:
      r.tfid = ObjectFid(mdt, FileOrdinal(k));
      r.pfid = dir;
      Name(r.name, 'f', k);
      return;
    case 2:
      if (r.type == CL_RENAME) {
        r.tfid = {};
        r.pfid = dir;
        Name(r.name, 'g', k);
        r.has_rename = true;
        r.sfid = ObjectFid(mdt, FileOrdinal(k));
        r.spfid = dir;
        Name(r.sname, 'f', k);
      } else {
        r.tfid = ObjectFid(mdt, FileOrdinal(k));
        r.flags = kCloseFlags & CLF_FLAGMASK;
      }
      return;
    default:
      if (r.type == CL_UNLINK) {
        uint64_t victim = k - kLiveFiles;
        r.tfid = ObjectFid(mdt, FileOrdinal(victim));
        r.pfid = ObjectFid(mdt, DirOrdinal(victim / kFilesPerDir));
        r.flags = CLF_UNLINK_LAST;
        Name(r.name, Renamed(victim) ? 'g' : 'f', victim);
      } else {
        r.tfid = ObjectFid(mdt, FileOrdinal(k));
        r.pfid = dir;
        r.flags = kSetattrValid;
      }
      return;
  }
}

Result<std::string> FastLog::PathAt(const lustre::Fid& fid, uint64_t applied) const {
  if (fid == lustre::kRootFid) return std::string();
  int mdt = MdtOf(fid);
  if (mdt < 0 || fid.ver != 0 || fid.oid == 0 || fid.oid > kOidsPerSeq) {
    return ErrnoStatus(EINVAL, "FID " + lustre::FormatFid(fid) + " does not belong to this file system");
  }
  if (spec_.records != 0 && applied > spec_.records) applied = spec_.records;
  const uint64_t seq_offset = fid.seq - kSeqBase - static_cast<uint64_t>(mdt) * kSeqStride;
  const uint64_t q = seq_offset * kOidsPerSeq + (fid.oid - 1);
  auto missing = [&] {
    return ErrnoStatus(ENOENT, "no object " + lustre::FormatFid(fid) + " (as of record " + std::to_string(applied) +
                                   " of MDT" + std::to_string(mdt) + ")");
  };
  std::string path = "mdt" + std::to_string(mdt);
  if (q == 0) {
    if (applied < 1) return missing();
    return path;
  }
  const uint64_t j = (q - 1) / kDirStride;
  const uint64_t r = (q - 1) % kDirStride;
  if (r == 0) {
    if (applied < CycleStart(j * kFilesPerDir)) return missing();
    return path + "/d" + std::to_string(j);
  }
  const uint64_t k = j * kFilesPerDir + (r - 1);
  const uint64_t created = CycleStart(k) + 1;
  const uint64_t unlinked = CycleStart(k + kLiveFiles) + 3;
  if (applied < created || applied >= unlinked) return missing();
  const bool renamed = Renamed(k) && applied >= CycleStart(k) + 2;
  return path + "/d" + std::to_string(j) + (renamed ? "/g" : "/f") + std::to_string(k);
}

}  // namespace fathom::lustre_sim

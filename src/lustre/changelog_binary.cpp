// changelog_binary.cpp — struct changelog_rec and its extensions, packed and checked.
//
// All fields are copied with memcpy at offsets computed as Lustre's changelog_rec_offset()
// does, so nothing depends on the alignment of the caller's buffer; values are in host byte
// order (what the kernel hands to liblustreapi), except struct lnet_nid (network order).
#include "lustre/changelog_binary.h"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <utility>

#include "lustre/civil_time.h"
#include "lustre/nid.h"

namespace fathom::lustre {
namespace {

// The layout Lustre's lustre_user.h defines; a mismatch here breaks the ABI.
static_assert(sizeof(lu_fid) == 16);
static_assert(sizeof(changelog_rec) == 64);
static_assert(offsetof(changelog_rec, cr_flags) == 2 && offsetof(changelog_rec, cr_type) == 4);
static_assert(offsetof(changelog_rec, cr_index) == 8 && offsetof(changelog_rec, cr_prev) == 16);
static_assert(offsetof(changelog_rec, cr_time) == 24 && offsetof(changelog_rec, cr_tfid) == 32);
static_assert(offsetof(changelog_rec, cr_pfid) == 48);
static_assert(sizeof(changelog_ext_rename) == 32);
static_assert(sizeof(changelog_ext_jobid) == LUSTRE_JOBID_SIZE);
static_assert(sizeof(changelog_ext_extra_flags) == 8);
static_assert(sizeof(changelog_ext_uidgid) == 16);
static_assert(sizeof(changelog_ext_nid) == 24);
static_assert(sizeof(changelog_ext_openmode) == 4);
static_assert(sizeof(changelog_ext_xattr) == LUSTRE_XATTR_NAME_MAX + 1);

constexpr uint64_t kNsecMask = (uint64_t{1} << 30) - 1;
constexpr uint64_t kExtraPayload = CLFE_UIDGID | CLFE_NID | CLFE_OPEN | CLFE_XATTR;

template <typename T>
void Put(std::string& out, size_t off, const T& v) {
  std::memcpy(out.data() + off, &v, sizeof v);
}

template <typename T>
T Get(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Copies a NUL-terminated string into a fixed field of `size` bytes (at most size - 1
// bytes, stopping at an embedded NUL), as the kernel's strscpy does.
void PutFixedString(std::string& out, size_t off, std::string_view s, size_t size) {
  size_t n = std::min(s.size(), size - 1);
  if (const void* nul = std::memchr(s.data(), '\0', n)) {
    n = static_cast<size_t>(static_cast<const char*>(nul) - s.data());
  }
  std::memcpy(out.data() + off, s.data(), n);
}

class Reader {
 public:
  explicit Reader(std::span<const std::byte> bytes) : bytes_(bytes) {}

  Status Error(const std::string& what) const {
    std::string where = have_index_ ? "changelog record #" + std::to_string(index_)
                                    : std::string("changelog record");
    return Status::Error(where + " (" + std::to_string(bytes_.size()) + "-byte buffer): " + what);
  }
  // Checks that `n` more bytes follow `off_` for `what`; returns them and advances.
  const std::byte* Take(size_t n, const char* what, Status* status) {
    if (bytes_.size() - off_ < n) {
      *status = Error(std::string("truncated in the ") + what + ": needs " +
                      std::to_string(off_ + n) + " bytes");
      return nullptr;
    }
    const std::byte* p = bytes_.data() + off_;
    off_ += n;
    return p;
  }
  // The field holds a NUL-terminated string; returns it without the NUL.
  bool FixedString(const std::byte* p, size_t size, std::string* out) {
    const char* s = reinterpret_cast<const char*>(p);
    const void* nul = std::memchr(s, '\0', size);
    if (nul == nullptr) return false;
    out->assign(s, static_cast<const char*>(nul));
    return true;
  }
  void SetIndex(uint64_t index) {
    index_ = index;
    have_index_ = true;
  }
  size_t offset() const { return off_; }

 private:
  std::span<const std::byte> bytes_;
  size_t off_ = 0;
  uint64_t index_ = 0;
  bool have_index_ = false;
};

// Every field back to its default, the strings emptied but keeping their storage.
void ResetKeepingStorage(ChangelogRecord& r) {
  ChangelogRecord reset;
  for (std::string ChangelogRecord::*field :
       {&ChangelogRecord::name, &ChangelogRecord::sname, &ChangelogRecord::jobid,
        &ChangelogRecord::nid, &ChangelogRecord::xattr}) {
    (r.*field).clear();
    (reset.*field).swap(r.*field);
  }
  r = std::move(reset);
}

}  // namespace

size_t RecordOffset(uint16_t cr_flags, uint64_t extra_flags) {
  size_t size = sizeof(changelog_rec);
  if (cr_flags & CLF_RENAME) size += sizeof(changelog_ext_rename);
  if (cr_flags & CLF_JOBID) size += sizeof(changelog_ext_jobid);
  if (cr_flags & CLF_EXTRA_FLAGS) {
    size += sizeof(changelog_ext_extra_flags);
    if (extra_flags & CLFE_UIDGID) size += sizeof(changelog_ext_uidgid);
    if (extra_flags & CLFE_NID) size += sizeof(changelog_ext_nid);
    if (extra_flags & CLFE_OPEN) size += sizeof(changelog_ext_openmode);
    if (extra_flags & CLFE_XATTR) size += sizeof(changelog_ext_xattr);
  }
  return size;
}

std::string PackRecord(const ChangelogRecord& record, const PackOptions& options) {
  std::string out;
  PackRecordInto(record, options, out);
  return out;
}

void PackRecordInto(const ChangelogRecord& record, const PackOptions& options, std::string& out) {
  uint16_t flags = static_cast<uint16_t>((record.flags & CLF_FLAGMASK) | CLF_VERSION);
  if (record.has_rename) flags |= CLF_RENAME;
  if (record.has_jobid && options.want_jobid) flags |= CLF_JOBID;
  uint64_t ef = 0;
  Nid nid;
  if (record.has_extra_flags && options.want_extra != 0) {
    flags |= CLF_EXTRA_FLAGS;
    ef = record.extra_flags & options.want_extra & kExtraPayload;
    if (ef & CLFE_NID) {
      Result<Nid> parsed = ParseNid(record.nid);
      nid = parsed.ok() ? *parsed : NidFromNid4(kNidAny);
      if ((options.want_extra & CLFE_NID_BE) || nid.addr_len != 4) ef |= CLFE_NID_BE;
    }
  }

  // Name area: "name" or, for a rename that carries its source, "name\0sname".
  const bool two_names = record.has_rename && (!record.sname.empty() || !record.sfid.zero());
  size_t namelen = record.name.size() + (two_names ? 1 + record.sname.size() : 0);
  namelen = std::min<size_t>(namelen, UINT16_MAX);

  const size_t head = RecordOffset(flags, ef);
  out.assign(head + namelen, '\0');

  changelog_rec rec{};
  rec.cr_namelen = static_cast<uint16_t>(namelen);
  rec.cr_flags = flags;
  rec.cr_type = record.type;
  rec.cr_index = record.index;
  rec.cr_prev = record.prev;
  rec.cr_time = (record.time_ns / internal::kNsPerSec) << 30 | (record.time_ns % internal::kNsPerSec);
  rec.cr_tfid = ToAbi(record.tfid);
  rec.cr_pfid = ToAbi(record.pfid);
  Put(out, 0, rec);

  size_t off = sizeof(changelog_rec);
  if (flags & CLF_RENAME) {
    changelog_ext_rename rnm{ToAbi(record.sfid), ToAbi(record.spfid)};
    Put(out, off, rnm);
    off += sizeof rnm;
  }
  if (flags & CLF_JOBID) {
    PutFixedString(out, off, record.jobid, LUSTRE_JOBID_SIZE);
    off += LUSTRE_JOBID_SIZE;
  }
  if (flags & CLF_EXTRA_FLAGS) {
    Put(out, off, ef);
    off += sizeof(changelog_ext_extra_flags);
    if (ef & CLFE_UIDGID) {
      changelog_ext_uidgid ug{record.uid, record.gid};
      Put(out, off, ug);
      off += sizeof ug;
    }
    if (ef & CLFE_NID) {
      if (ef & CLFE_NID_BE) {
        auto wire = NidToLnetNid(nid);
        std::memcpy(out.data() + off, wire.data(), wire.size());
      } else {
        Put(out, off, *NidToNid4(nid));
      }
      off += sizeof(changelog_ext_nid);
    }
    if (ef & CLFE_OPEN) {
      Put(out, off, record.open_flags);
      off += sizeof(changelog_ext_openmode);
    }
    if (ef & CLFE_XATTR) {
      PutFixedString(out, off, record.xattr, sizeof(changelog_ext_xattr));
      off += sizeof(changelog_ext_xattr);
    }
  }

  char* name = out.data() + off;
  size_t n = std::min(record.name.size(), namelen);
  std::memcpy(name, record.name.data(), n);
  if (two_names && namelen > n + 1) {
    std::memcpy(name + n + 1, record.sname.data(), namelen - n - 1);
  }
}

Status UnpackRecordInto(std::span<const std::byte> bytes, ChangelogRecord& r, size_t* consumed) {
  Reader in(bytes);
  Status st;
  const std::byte* p = in.Take(sizeof(changelog_rec), "fixed 64-byte head", &st);
  if (p == nullptr) return st;
  const auto rec = Get<changelog_rec>(p);
  in.SetIndex(rec.cr_index);

  ResetKeepingStorage(r);
  r.index = rec.cr_index;
  r.type = rec.cr_type;
  r.flags = static_cast<uint16_t>(rec.cr_flags & CLF_FLAGMASK);
  r.prev = rec.cr_prev;
  const uint64_t nsec = rec.cr_time & kNsecMask;
  if (nsec >= internal::kNsPerSec) {
    return in.Error("cr_time has " + std::to_string(nsec) +
                    " nanoseconds (must be < 1000000000): not a Lustre record");
  }
  r.time_ns = (rec.cr_time >> 30) * internal::kNsPerSec + nsec;
  r.tfid = FromAbi(rec.cr_tfid);
  r.pfid = FromAbi(rec.cr_pfid);

  if (rec.cr_flags & CLF_RENAME) {
    if ((p = in.Take(sizeof(changelog_ext_rename), "rename extension", &st)) == nullptr) return st;
    const auto rnm = Get<changelog_ext_rename>(p);
    r.has_rename = true;
    r.sfid = FromAbi(rnm.cr_sfid);
    r.spfid = FromAbi(rnm.cr_spfid);
  }
  if (rec.cr_flags & CLF_JOBID) {
    if ((p = in.Take(LUSTRE_JOBID_SIZE, "jobid extension", &st)) == nullptr) return st;
    if (!in.FixedString(p, LUSTRE_JOBID_SIZE, &r.jobid)) {
      return in.Error("the jobid is not NUL-terminated within its 32 bytes");
    }
    r.has_jobid = true;
  }
  if (rec.cr_flags & CLF_EXTRA_FLAGS) {
    if ((p = in.Take(sizeof(changelog_ext_extra_flags), "extra-flags extension", &st)) == nullptr) {
      return st;
    }
    const auto ef = Get<uint64_t>(p);
    if (ef & ~uint64_t{CLFE_SUPPORTED}) {
      char hex[32];
      std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(ef));
      return in.Error(std::string("unknown extra flags ") + hex +
                      " (known: CLFE_UIDGID|NID|OPEN|XATTR|NID_BE = 0x1f); a newer Lustre? "
                      "start the changelog without CHANGELOG_FLAG_EXTRA_FLAGS");
    }
    if ((ef & CLFE_NID_BE) && !(ef & CLFE_NID)) {
      return in.Error("extra flags have CLFE_NID_BE without CLFE_NID");
    }
    r.has_extra_flags = true;
    r.extra_flags = ef;
    if (ef & CLFE_UIDGID) {
      if ((p = in.Take(sizeof(changelog_ext_uidgid), "uid/gid extension", &st)) == nullptr) {
        return st;
      }
      const auto ug = Get<changelog_ext_uidgid>(p);
      r.uid = ug.cr_uid;
      r.gid = ug.cr_gid;
    }
    if (ef & CLFE_NID) {
      if ((p = in.Take(sizeof(changelog_ext_nid), "NID extension", &st)) == nullptr) return st;
      if (ef & CLFE_NID_BE) {
        Result<Nid> nid = NidFromLnetNid(std::span<const uint8_t, kLnetNidBytes>(
            reinterpret_cast<const uint8_t*>(p), kLnetNidBytes));
        if (!nid.ok()) return in.Error(nid.status().message());
        r.nid = FormatNid(*nid);
      } else {
        const auto nid4 = Get<uint64_t>(p);
        if (nid4 != kNidAny && ((nid4 >> 56) != 0 || (nid4 >> 48) == 0xff)) {
          return in.Error("lnet_nid_t " + std::to_string(nid4) +
                          " has bits set above its LND type byte, or LND 0xff without being "
                          "LNET_NID_ANY");
        }
        r.nid = FormatNid4(nid4);
      }
    }
    if (ef & CLFE_OPEN) {
      if ((p = in.Take(sizeof(changelog_ext_openmode), "open-mode extension", &st)) == nullptr) {
        return st;
      }
      r.open_flags = Get<uint32_t>(p);
    }
    if (ef & CLFE_XATTR) {
      if ((p = in.Take(sizeof(changelog_ext_xattr), "xattr extension", &st)) == nullptr) return st;
      if (!in.FixedString(p, sizeof(changelog_ext_xattr), &r.xattr)) {
        return in.Error("the xattr name is not NUL-terminated within its 256 bytes");
      }
    }
  }

  if ((p = in.Take(rec.cr_namelen, "name", &st)) == nullptr) return st;
  const char* name = reinterpret_cast<const char*>(p);
  const char* nul = static_cast<const char*>(std::memchr(name, '\0', rec.cr_namelen));
  if (nul == nullptr) {
    r.name.assign(name, rec.cr_namelen);
  } else if (!r.has_rename) {
    return in.Error("the name has a NUL byte at offset " + std::to_string(nul - name) + " of " +
                    std::to_string(rec.cr_namelen) + " (only a rename carries two names)");
  } else {
    const char* sname = nul + 1;
    const size_t slen = rec.cr_namelen - static_cast<size_t>(sname - name);
    if (std::memchr(sname, '\0', slen) != nullptr) {
      return in.Error("the rename's old name has a NUL byte (expected \"new\\0old\")");
    }
    r.name.assign(name, nul);
    r.sname.assign(sname, slen);
  }
  if (consumed != nullptr) *consumed = in.offset();
  return Status::Ok();
}

Status UnpackRecordInto(const changelog_rec* record, ChangelogRecord& out) {
  const auto* base = reinterpret_cast<const std::byte*>(record);
  const auto head = Get<changelog_rec>(base);
  uint64_t ef = 0;
  if (head.cr_flags & CLF_EXTRA_FLAGS) {
    const uint16_t before = head.cr_flags & (CLF_VERSION | CLF_RENAME | CLF_JOBID);
    ef = Get<uint64_t>(base + RecordOffset(before, 0));
  }
  const size_t size = RecordOffset(head.cr_flags, ef) + head.cr_namelen;
  return UnpackRecordInto(std::span<const std::byte>(base, size), out);
}

Result<ChangelogRecord> UnpackRecord(std::span<const std::byte> bytes, size_t* consumed) {
  ChangelogRecord r;
  FATHOM_RETURN_IF_ERROR(UnpackRecordInto(bytes, r, consumed));
  return r;
}

Result<ChangelogRecord> UnpackRecord(const changelog_rec* record) {
  ChangelogRecord r;
  FATHOM_RETURN_IF_ERROR(UnpackRecordInto(record, r));
  return r;
}

}  // namespace fathom::lustre

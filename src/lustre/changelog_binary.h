// changelog_binary.h — ChangelogRecord <-> Lustre's packed struct changelog_rec bytes.
//
// PackRecord writes the exact layout a Lustre client hands out: the 64-byte head,
// extensions in flag order (rename, jobid, extra flags → uid/gid, nid, open mode, xattr),
// then the name ("new\0old" for a rename). `want_*` select which extensions are packed, as
// llapi_changelog_start's CHANGELOG_FLAG_JOBID / _EXTRA_FLAGS and set_xflags do; the
// rename extension is packed whenever the record has one. NIDs are packed as the 64-bit
// lnet_nid_t form (CLFE_NID without CLFE_NID_BE) unless `want_extra` has CLFE_NID_BE or the
// address has no 64-bit form (IPv6): then as struct lnet_nid, with CLFE_NID_BE, as Lustre
// does for `lfs changelog`; NID text that does not parse is packed as LNET_NID_ANY ("<?>").
// CLF_VERSION is always set. The binary form cannot hold, and PackRecord cuts: a jobid past
// 31 bytes, an xattr name past 255, names past 65535 bytes in all, times past 2^34 seconds;
// names must not contain NUL (UnpackRecord refuses it; "new\0old" is how a rename is kept).
// UnpackRecord validates everything (sizes against the buffer, unknown flags, name lengths,
// NUL placement) and never reads outside `bytes`; errors say what is wrong and at which
// record index when it could be read. It returns the record's total size in `*consumed`.
// It reads both NID forms (record.nid is their libcfs text), keeps CLFE_NID_BE in
// extra_flags, and accepts any cr_type (RecordTypeName tells the known ones). Every bit of
// cr_flags has a meaning (low 12 per type, high 4 the extensions), so none is refused;
// unknown cr_extra_flags bits, CLFE_NID_BE without CLFE_NID, unterminated jobid or xattr,
// a NUL in a non-rename name and cr_time nanoseconds >= 10^9 are.
// Pure functions, any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "fathom/status.h"
#include "lustre/changelog_record.h"

namespace fathom::lustre {

struct PackOptions {
  bool want_jobid = true;
  uint64_t want_extra = CLFE_UIDGID | CLFE_NID | CLFE_OPEN | CLFE_XATTR;  // 0: no ef extension
};

std::string PackRecord(const ChangelogRecord& record, const PackOptions& options = {});
// Same, into `out` (replaced; its storage is reused).
void PackRecordInto(const ChangelogRecord& record, const PackOptions& options, std::string& out);
Result<ChangelogRecord> UnpackRecord(std::span<const std::byte> bytes, size_t* consumed = nullptr);
// Same, from a struct handed out by liblustreapi (trusted size: changelog_rec_size + namelen).
Result<ChangelogRecord> UnpackRecord(const changelog_rec* record);
// The same two, into `out`, whose strings keep their storage (a reader unpacking record
// after record into the same few allocates nothing). Every field of `out` is set; after an
// error it holds nothing useful.
Status UnpackRecordInto(std::span<const std::byte> bytes, ChangelogRecord& out,
                        size_t* consumed = nullptr);
Status UnpackRecordInto(const changelog_rec* record, ChangelogRecord& out);

// Size of the head plus extensions for these flags (Lustre's changelog_rec_offset).
size_t RecordOffset(uint16_t cr_flags, uint64_t extra_flags);

}  // namespace fathom::lustre

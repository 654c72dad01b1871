// changelog_record.h — one Lustre changelog record as a plain value, and the record types.
//
// ChangelogRecord is what the binary (struct changelog_rec) and text (`lfs changelog`)
// codecs produce and consume, what fathom-lustre-sim stores, and what the Lustre source
// resolves. Fields that a record does not carry are zero/empty. Value type, no threads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fathom/status.h"
#include "lustre/fid.h"

namespace fathom::lustre {

struct ChangelogRecord {
  uint64_t index = 0;    // record number, strictly increasing per MDT
  uint32_t type = 0;     // enum changelog_rec_type (CL_CREATE, ...)
  uint16_t flags = 0;    // per-type flags only (low 12 bits: CLF_UNLINK_LAST, la_valid bits)
  uint64_t prev = 0;     // cr_prev
  uint64_t time_ns = 0;  // nanoseconds since the epoch (cr_time is sec << 30 | nsec)
  Fid tfid;              // target
  Fid pfid;              // parent (zero when the record has none)
  std::string name;      // target name ("" when none)
  // Rename extension (present when has_rename): the renamed object and its old parent/name.
  bool has_rename = false;
  Fid sfid;
  Fid spfid;
  std::string sname;
  // Jobid extension (present when has_jobid; may be empty).
  bool has_jobid = false;
  std::string jobid;
  // Extra-flags extension (present when has_extra_flags) and what it announces.
  bool has_extra_flags = false;
  uint64_t extra_flags = 0;   // CLFE_* bits actually packed
  uint64_t uid = 0, gid = 0;  // CLFE_UIDGID
  std::string nid;            // CLFE_NID, text form, e.g. "0@lo" or "10.0.0.1@tcp"
  uint32_t open_flags = 0;    // CLFE_OPEN
  std::string xattr;          // CLFE_XATTR

  bool operator==(const ChangelogRecord&) const = default;
};

// "CREAT", "MKDIR", ... as lfs prints them; nullopt for an unknown type.
std::optional<std::string_view> RecordTypeName(uint32_t type);
// Inverse of RecordTypeName (exact, upper case).
std::optional<uint32_t> ParseRecordTypeName(std::string_view name);

// Applies a changelog mask expression as `lctl set_param mdd.*.changelog_mask=` accepts it
// to `mask`: "ALL", "DEFAULT", a list of type names replacing the mask ("CREAT MKDIR"), or
// +NAME / -NAME edits. CL_MARK can never be masked out. Errors name the bad word.
// Kernel quirks kept (see changelog_record.cpp): names are case-insensitive and may be
// separated by commas; an operator applies to the next word only; "NONE" is accepted;
// "DEFAULT" only as the last word; +/- edits of the minimal mask start from the default.
Result<uint64_t> ApplyMaskExpression(uint64_t mask, std::string_view expression);
// Space-separated type names of a mask, as `lctl get_param` prints it: each name followed
// by one space ("MARK CREAT ... "), "" for no bits; the caller adds the newline.
std::string FormatMask(uint64_t mask);

}  // namespace fathom::lustre

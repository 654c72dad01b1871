// changelog_text.h — ChangelogRecord <-> one line of `lfs changelog` output.
//
// FormatRecordText prints exactly what `lfs changelog` prints (no trailing newline):
//   INDEX TTNAME HH:MM:SS.NNNNNNNNN YYYY.MM.DD 0xFLAGS t=[fid] [j=JOB] [ef=0xN [u=U:G]
//   [nid=NID] [m=rwx] [x=XATTR]] [p=[fid]] [NAME] [s=[fid] sp=[fid] OLDNAME]
// (time in UTC; TT the two-digit type number, name left-justified in 5 columns).
// ParseRecordText accepts that format and also the tab-separated form of FSMonitor's
// Table I; it rejects malformed lines with a message naming the field, never crashes.
// Fields are separated by runs of spaces, tabs or newlines (so a Table I RENME spread over
// lines reads as one record); the name is everything after the last field, up to
// " s=[FID] sp=[FID] OLDNAME" for a rename, without leading/trailing whitespace. A line
// has no cr_prev, no empty jobid and only lfs's three-letter open mode (m=r--: FMODE_READ,
// -w-: FMODE_WRITE, rw-: both, --x: FMODE_EXEC); NIDs are read into their canonical text.
// Pure functions, any thread.
#pragma once

#include <string>
#include <string_view>

#include "fathom/status.h"
#include "lustre/changelog_record.h"

namespace fathom::lustre {

std::string FormatRecordText(const ChangelogRecord& record);
Result<ChangelogRecord> ParseRecordText(std::string_view line);

}  // namespace fathom::lustre

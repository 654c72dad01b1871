// fuzz_unpack_record — UnpackRecord on arbitrary bytes (what a changelog reader receives).
//
// Beyond "no crash, no read outside the input" (ASan/UBSan), an accepted record must:
// report a size within the input; unpack the same into a record that held another one (as
// a reader reuses its records), and a refused one be refused there too; pack back (same
// extensions) to bytes that unpack to the same record; and print as an lfs line that reads back to the same record, for the fields
// an lfs line can carry and names it can delimit.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>

#include "lustre/changelog_binary.h"
#include "lustre/changelog_text.h"

namespace {

using fathom::lustre::ChangelogRecord;
using fathom::lustre::Fid;

constexpr uint64_t kPayload = CLFE_UIDGID | CLFE_NID | CLFE_OPEN | CLFE_XATTR;

[[noreturn]] void Fail(const char* what, const ChangelogRecord& r) {
  std::fprintf(stderr, "property violated: %s\nrecord: %s\n", what,
               fathom::lustre::FormatRecordText(r).c_str());
  std::abort();
}

// No separator lfs output could confuse with a field boundary.
bool Plain(std::string_view s) {
  return s.find_first_of(std::string_view(" \t\r\n", 4)) == std::string_view::npos;
}

// The record as its lfs line describes it.
ChangelogRecord AsText(ChangelogRecord r) {
  r.prev = 0;  // lfs does not print cr_prev
  if (r.jobid.empty()) r.has_jobid = false;
  if (r.pfid.zero()) r.pfid = Fid{};
  if (r.has_rename && r.sfid.zero()) {
    r.has_rename = false;
    r.sfid = r.spfid = Fid{};
    r.sname.clear();
  }
  if (r.extra_flags & CLFE_OPEN) {
    const uint32_t f = r.open_flags;
    r.open_flags = (f & 04) ? 04 : ((f & 01) | ((f & (02 | 01000 | 02000)) ? 02 : 0));
  }
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  size_t consumed = 0;
  auto rec = fathom::lustre::UnpackRecord(
      std::span<const std::byte>(reinterpret_cast<const std::byte*>(data), size), &consumed);
  // A record with every field set, as the previous one a reader unpacked.
  static ChangelogRecord reused = [] {
    ChangelogRecord full;
    full.index = full.prev = full.time_ns = 9;
    full.type = CL_RENAME;
    full.flags = 1;
    full.tfid = full.pfid = full.sfid = full.spfid = Fid{1, 2, 3};
    full.name = full.sname = full.jobid = full.nid = full.xattr = std::string(40, 'x');
    full.has_rename = full.has_jobid = full.has_extra_flags = true;
    full.extra_flags = kPayload;
    full.uid = full.gid = full.open_flags = 5;
    return full;
  }();
  ChangelogRecord into = reused;
  size_t into_consumed = 0;
  const bool into_ok = fathom::lustre::UnpackRecordInto(
      std::span<const std::byte>(reinterpret_cast<const std::byte*>(data), size), into, &into_consumed).ok();
  if (!rec.ok()) {
    if (into_ok) Fail("unpacked into a used record, refused into a fresh one", into);
    return 0;
  }
  const ChangelogRecord& r = *rec;
  if (!into_ok || !(into == r) || into_consumed != consumed) Fail("unpacks otherwise into a used record", r);
  if (consumed > size || consumed < sizeof(changelog_rec)) Fail("consumed out of range", r);

  fathom::lustre::PackOptions same{true, kPayload | (r.extra_flags & CLFE_NID_BE)};
  const std::string again = fathom::lustre::PackRecord(r, same);
  auto back = fathom::lustre::UnpackRecord(
      std::span<const std::byte>(reinterpret_cast<const std::byte*>(again.data()), again.size()));
  if (!back.ok()) Fail("repacked record does not unpack", r);
  if (!(*back == r)) Fail("repacked record differs", r);

  const std::string line = fathom::lustre::FormatRecordText(r);
  const bool delimited = Plain(r.name) && Plain(r.sname) && Plain(r.jobid) && Plain(r.xattr) &&
                         (!r.pfid.zero() || r.name.find('=') == std::string::npos);
  if (delimited) {
    auto parsed = fathom::lustre::ParseRecordText(line);
    if (!parsed.ok()) Fail(parsed.status().message().c_str(), r);
    if (!(*parsed == AsText(r))) Fail("lfs line reads back differently", r);
  }
  return 0;
}

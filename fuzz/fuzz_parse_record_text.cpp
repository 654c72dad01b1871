// fuzz_parse_record_text — ParseRecordText on arbitrary text (lfs changelog lines, Table I).
//
// An accepted line must print (FormatRecordText) as a line that reads back to the same
// record, and the record must survive PackRecord/UnpackRecord, apart from what the binary
// form cannot hold (jobids past 31 bytes, xattr names past 255, times past 2^34 seconds).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string_view>

#include "lustre/changelog_binary.h"
#include "lustre/changelog_text.h"
#include "lustre/nid.h"

namespace {

using fathom::lustre::ChangelogRecord;

constexpr uint64_t kPayload = CLFE_UIDGID | CLFE_NID | CLFE_OPEN | CLFE_XATTR;

[[noreturn]] void Fail(const char* what, std::string_view input) {
  std::fprintf(stderr, "property violated: %s\ninput: %.*s\n", what, static_cast<int>(input.size()),
               input.data());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto rec = fathom::lustre::ParseRecordText(input);
  if (!rec.ok()) return 0;
  const ChangelogRecord& r = *rec;

  const std::string line = fathom::lustre::FormatRecordText(r);
  auto again = fathom::lustre::ParseRecordText(line);
  if (!again.ok()) Fail(again.status().message().c_str(), input);
  if (!(*again == r)) Fail("printed line reads back differently", input);

  if (r.time_ns / 1'000'000'000 >= (uint64_t{1} << 34)) return 0;
  if (r.name.size() + 1 + r.sname.size() > UINT16_MAX) return 0;
  ChangelogRecord expected = r;
  if (expected.jobid.size() > LUSTRE_JOBID_SIZE - 1) expected.jobid.resize(LUSTRE_JOBID_SIZE - 1);
  if (expected.xattr.size() > LUSTRE_XATTR_NAME_MAX) expected.xattr.resize(LUSTRE_XATTR_NAME_MAX);
  if (r.extra_flags & CLFE_NID) {
    auto nid = fathom::lustre::ParseNid(r.nid);
    if (!nid.ok()) Fail("accepted NID does not parse", input);
    if (nid->addr_len == 16) expected.extra_flags |= CLFE_NID_BE;
  }
  fathom::lustre::PackOptions same{true, kPayload | (r.extra_flags & CLFE_NID_BE)};
  const std::string bytes = fathom::lustre::PackRecord(r, same);
  auto back = fathom::lustre::UnpackRecord(
      std::span<const std::byte>(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()));
  if (!back.ok()) Fail(back.status().message().c_str(), input);
  if (!(*back == expected)) Fail("packed record unpacks differently", input);
  return 0;
}

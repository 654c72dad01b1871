#include "sources/lustre/record_batch.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "lustre/changelog_binary.h"

namespace fathom::lustre_source {
namespace {

// Warnings about malformed records beyond this many go to the debug log.
constexpr uint64_t kMaxWarnings = 20;

}  // namespace

bool RecordBatch::Add(const changelog_rec* raw) {
  ++added_;
  // The 64-byte head is always there (the library hands out whole structs); its index is
  // what moves the position past the record whatever the rest holds.
  last_index_ = std::max<uint64_t>(last_index_, raw->cr_index);
  if (size_ == records_.size()) records_.emplace_back();
  const Status unpacked = lustre::UnpackRecordInto(raw, records_[size_]);
  if (!unpacked.ok()) {
    ++malformed_;
    const uint64_t index = raw->cr_index;
    if (first_malformed_ == 0 || index < first_malformed_) first_malformed_ = index;
    if (++warned_ <= kMaxWarnings) {
      spdlog::warn("lustre: skipped a malformed record (index {}): {}", index,
                   unpacked.message());
    } else {
      spdlog::debug("lustre: skipped a malformed record (index {}): {}", index,
                    unpacked.message());
    }
    return false;
  }
  ++size_;
  return true;
}

void RecordBatch::Clear() {
  size_ = 0;
  added_ = 0;
  last_index_ = 0;
  malformed_ = 0;
  first_malformed_ = 0;
}

}  // namespace fathom::lustre_source

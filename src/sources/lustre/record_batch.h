// record_batch.h — records handed out by liblustreapi, unpacked into one batch.
//
// Add() validates and unpacks one struct changelog_rec (lustre/changelog_binary.h). A
// record that does not unpack (unknown extension flags, a name that overruns, ...) is
// counted, logged with its index, and left out of the batch; its index still counts in
// last_index(), so the changelog position moves past it and it is never read again.
// Records are unpacked into the ones a Clear() left, keeping their strings' storage.
// Value type, one thread.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "lustre/changelog_record.h"
#include "lustre/lustre_abi.h"

namespace fathom::lustre_source {

class RecordBatch {
 public:
  // Unpacks `raw` into the batch; false when it was malformed and skipped.
  bool Add(const changelog_rec* raw);
  // Empties the batch.
  void Clear();

  std::span<const lustre::ChangelogRecord> records() const { return {records_.data(), size_}; }
  // Records added since Clear(), malformed ones included.
  size_t added() const { return added_; }
  // Highest record index added since Clear() (0 when none).
  uint64_t last_index() const { return last_index_; }
  // Malformed records skipped since Clear(), and the index of the first (0: none).
  uint64_t malformed() const { return malformed_; }
  uint64_t first_malformed() const { return first_malformed_; }

 private:
  std::vector<lustre::ChangelogRecord> records_;  // the first size_ are the batch
  size_t size_ = 0;
  size_t added_ = 0;
  uint64_t last_index_ = 0;
  uint64_t malformed_ = 0;
  uint64_t first_malformed_ = 0;
  uint64_t warned_ = 0;  // malformed records logged as warnings (the first few)
};

}  // namespace fathom::lustre_source

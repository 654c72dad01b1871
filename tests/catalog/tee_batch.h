// tee_batch.h — a Batch that applies every change to two catalogs' batches, the catalog under
// test and a reference, and fails the test when they answer differently (the same changes
// on two new catalogs give the same entry ids). Header-only; one thread.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <span>
#include <string>

#include "fathom/catalog.h"

namespace fathom::testing {

class TeeBatch final : public catalog::Batch {
 public:
  TeeBatch(std::unique_ptr<catalog::Batch> tested, std::unique_ptr<catalog::Batch> reference)
      : tested_(std::move(tested)), reference_(std::move(reference)) {}

  Result<catalog::EntryId> Lookup(std::string_view path) override {
    return Same(tested_->Lookup(path), reference_->Lookup(path), "Lookup");
  }
  Result<catalog::EntryId> LookupDirectory(std::string_view path) override {
    return Same(tested_->LookupDirectory(path), reference_->LookupDirectory(path), "LookupDirectory");
  }
  Result<std::vector<std::string>> PathsOf(uint64_t dev, uint64_t ino) override {
    auto tested = tested_->PathsOf(dev, ino);
    auto reference = reference_->PathsOf(dev, ino);
    EXPECT_EQ(tested.ok(), reference.ok()) << "PathsOf";
    if (tested.ok() && reference.ok()) {
      EXPECT_EQ(tested.value(), reference.value()) << "PathsOf";
    }
    return tested;
  }
  Result<catalog::EntryId> PutRoot(std::string_view path, const catalog::Attrs& attrs,
                                   const catalog::Observation& seen) override {
    return Same(tested_->PutRoot(path, attrs, seen), reference_->PutRoot(path, attrs, seen), "PutRoot");
  }
  Status Expect(std::span<const catalog::Identity> objects) override {
    return Same(tested_->Expect(objects), reference_->Expect(objects), "Expect");
  }
  // Each Put is announced by Expect on the tested side too, so that what a backend reads
  // ahead (PostgreSQL's read of the objects a scan is about to put) answers like the
  // reference, which reads each one when put.
  Result<catalog::EntryId> Put(catalog::EntryId parent, std::string_view name, const catalog::Attrs& attrs,
                               const catalog::Observation& seen) override {
    const catalog::Identity object{attrs.dev, attrs.ino};
    if (Status expected = tested_->Expect(std::span<const catalog::Identity>(&object, 1)); !expected.ok()) {
      return expected;
    }
    return Same(tested_->Put(parent, name, attrs, seen), reference_->Put(parent, name, attrs, seen), "Put");
  }
  Status Remove(catalog::EntryId parent, std::string_view name, const catalog::Removal& removal) override {
    return Same(tested_->Remove(parent, name, removal), reference_->Remove(parent, name, removal), "Remove");
  }
  Status Move(catalog::EntryId parent, std::string_view name, catalog::EntryId new_parent,
              std::string_view new_name, const catalog::Observation& seen,
              const catalog::Removal& replaced) override {
    return Same(tested_->Move(parent, name, new_parent, new_name, seen, replaced),
                reference_->Move(parent, name, new_parent, new_name, seen, replaced), "Move");
  }
  Status Commit(std::string_view stream, uint64_t last_applied, std::span<const std::string> pending) override {
    return Same(tested_->Commit(stream, last_applied, pending), reference_->Commit(stream, last_applied, pending),
                "Commit");
  }

 private:
  static Status Same(Status tested, const Status& reference, const char* call) {
    EXPECT_EQ(tested.ok(), reference.ok()) << call << ": " << tested.message() << " / " << reference.message();
    return tested;
  }
  static Result<catalog::EntryId> Same(Result<catalog::EntryId> tested, const Result<catalog::EntryId>& reference,
                                       const char* call) {
    EXPECT_EQ(tested.ok(), reference.ok()) << call;
    if (tested.ok() && reference.ok()) {
      EXPECT_EQ(tested.value(), reference.value()) << call;
    }
    return tested;
  }

  std::unique_ptr<catalog::Batch> tested_;
  std::unique_ptr<catalog::Batch> reference_;
};

}  // namespace fathom::testing

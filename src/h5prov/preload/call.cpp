// call.cpp — one traced call: its place among the thread's calls, and its record.
#include "h5prov/preload/tracer.h"

namespace fathom::h5prov::preload {
namespace {

namespace f = format;

__thread uint64_t t_seq __attribute__((tls_model("initial-exec"))) = 0;      // calls so far
__thread uint64_t t_current __attribute__((tls_model("initial-exec"))) = 0;  // the call running

}  // namespace

Call::Call(uint8_t op) : op_(op) {
  traced_ = Tracing();
  if (!traced_) return;
  seq_ = ++t_seq;
  parent_ = t_current;
  t_current = seq_;
}

Call::~Call() {
  if (traced_) t_current = parent_;
}

void Call::Location(h5::hid_t loc) {
  ObjectView view;
  if (FindObject(loc, &view)) location_ = view.id;
}

void Call::Finish(int64_t result, bool failed) {
  if (!traced_) return;
  if (end_ == 0) end_ = Now();
  uint32_t flags = 0;
  if (failed) flags |= f::kCallFailed;
  if (object_ != 0) flags |= f::kCallObject;
  if (location_ != 0) flags |= f::kCallLocation;
  if (name_ != nullptr) flags |= f::kCallName;
  if (name2_ != nullptr) flags |= f::kCallName2;
  if (has_data_) flags |= f::kCallData;
  if (has_data_ && data_.variable_length) flags |= f::kCallVariableLength;
  if (has_data_ && data_.transfer == 1) flags |= f::kCallIndependent;
  if (has_data_ && data_.transfer == 2) flags |= f::kCallCollective;
  RecordBuilder r(f::kCall);
  r.Byte(op_);
  r.Varint(flags);
  r.Varint(seq_);
  r.Varint(parent_);
  r.Varint(end_ - start_);
  r.Signed(result);
  if (object_ != 0) r.Varint(object_);
  if (location_ != 0) r.Varint(location_);
  if (name_ != nullptr) r.String(name_);
  if (name2_ != nullptr) r.String(name2_);
  if (has_data_) {
    r.Varint(data_.mem_bytes);
    r.Varint(data_.file_bytes);
    r.Varint(data_.selection);
    r.Varint(data_.points);
    if (data_.selection == f::kSelectRegular) {
      r.Varint(static_cast<uint64_t>(data_.rank));
      for (const h5::hsize_t* v : {data_.start, data_.stride, data_.count, data_.block}) {
        for (int d = 0; d < data_.rank; ++d) r.Varint(v[d]);
      }
    } else if (data_.selection == f::kSelectIrregular) {
      r.Varint(data_.nblocks);
    }
  }
  r.Commit(start_);
  CountCall();
}

}  // namespace fathom::h5prov::preload

// wrap_common.h — the shapes of the wrappers: open or create (a new object), close (an object
// gone), data (bytes and a selection), and any other call on objects and names.
//
// Each takes the real call as a callable, so that a wrapper is the function's signature, its
// real function and the shape it has.
#pragma once

#include <atomic>

#include "h5prov/preload/h5_real.h"
#include "h5prov/preload/tracer.h"

namespace fathom::h5prov::preload {

using h5::herr_t;
using h5::hid_t;
using h5::hsize_t;
namespace f = format;

// Binds `real_fn` to HDF5's `fn`; a program that calls a function its HDF5 lacks gets
// `failure` and one warning.
#define FATHOM_H5_REAL_OR(fn, failure)                                  \
  const auto real_fn = real::fn();                                      \
  if (real_fn == nullptr) {                                             \
    static std::atomic<bool> said{false};                               \
    WarnOnce(said, "cannot find HDF5's", #fn);                          \
    return failure;                                                     \
  }

// The file object of a location (a file, or an object in one); 0 if unknown.
inline uint64_t FileOf(hid_t loc) {
  ObjectView view;
  if (!FindObject(loc, &view)) return 0;
  return view.kind == f::kFile ? view.id : view.file;
}

// The table's view of `hid`, adding the object if the tracer has not seen it opened (an id
// from a path it does not wrap). Called before the program's call.
inline bool View(hid_t hid, ObjectView* view) {
  if (FindObject(hid, view)) return true;
  ObjectInfo info;
  info.discovered = true;
  {
    Quiet quiet;
    const uint8_t kind = KindOf(hid);
    if (kind == 0) return false;
    if (kind == f::kFile) {
      DescribeFile(hid, nullptr, &info);
    } else {
      Describe(hid, kind, 0, &info);
    }
  }
  AddObject(hid, info);
  return FindObject(hid, view);
}

// The object `r` that a successful call made or opened: described and added.
inline void Opened(Call& call, hid_t r, uint8_t kind, uint64_t file, const char* file_name = nullptr) {
  ObjectInfo info;
  {
    Quiet quiet;
    if (kind == 0) kind = KindOf(r);
    if (kind == 0) return;
    if (kind == f::kFile) {
      DescribeFile(r, file_name, &info);
    } else {
      Describe(r, kind, file, &info);
    }
  }
  call.Object(AddObject(r, info));
}

// A call that returns a new object (kind 0: ask HDF5 which) at `loc` under `name`.
template <typename Real>
hid_t TraceOpen(uint8_t op, uint8_t kind, hid_t loc, const char* name, const char* name2, Real call_real) {
  Call call(op);
  if (!call.traced()) return call_real();
  call.Location(loc);
  call.Name(name);
  call.Name2(name2);
  const uint64_t file = FileOf(loc);
  call.Start();
  const hid_t r = call_real();
  call.Returned();
  if (r >= 0) Opened(call, r, kind, file);
  call.Finish(r, r < 0);
  return r;
}

// A call that releases `id` (a close, H5Idec_ref): the object closes when it held the last
// reference. With `only_known`, ids the tracer does not follow (transient datatypes,
// property lists) are passed through unrecorded.
template <typename Real>
auto TraceRelease(uint8_t op, hid_t id, f::CloseHow how, bool only_known, Real call_real) -> decltype(call_real()) {
  if (!Tracing()) return call_real();
  ObjectView view;
  const bool known = FindObject(id, &view);
  if (!known && only_known) return call_real();
  Call call(op);
  if (!call.traced()) return call_real();
  uint64_t stored = 0;
  if (known) {
    if (view.kind == f::kDataset) {
      Internal internal;
      auto size = real::H5Dget_storage_size();
      if (size != nullptr && IsA(id, h5::kIdDataset)) stored = size(id) + 1;
    }
    call.Object(view.id);
  }
  call.Start();
  const auto r = call_real();
  call.Returned();
  call.Finish(r, r < 0);
  if (r < 0 || !known) return r;
  // Freed? H5Idec_ref returns the references left. A close frees the id unless the program
  // holds more references than its open gave it (H5Iinc_ref, or a file h5py holds twice):
  // HDF5 is asked then.
  bool freed;
  if (how == f::kClosedByDecRef) {
    freed = r == 0;
  } else if (view.one_reference && view.kind != f::kFile) {
    freed = true;
  } else {
    Internal internal;
    auto is_valid = real::H5Iis_valid();
    freed = is_valid == nullptr || is_valid(id) <= 0;
  }
  if (freed) {
    CloseObject(id, how, stored);
    if (view.kind == f::kFile) CloseObjectsOfFile(view.id);
  }
  return r;
}

// H5Dread/H5Dwrite: bytes and selection worked out before the call, counted on the dataset
// after it.
template <typename Real>
herr_t TraceTransfer(uint8_t op, Access access, hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space,
                     hid_t dxpl, Real call_real) {
  Call call(op);
  if (!call.traced()) return call_real();
  ObjectView view;
  const bool known = View(dset, &view);
  DataInfo& data = call.Data();
  if (known) {
    Internal internal;
    DescribeTransfer(view, mem_type, mem_space, file_space, dxpl, &data);
    call.Object(view.id);
  }
  call.Start();
  const herr_t r = call_real();
  call.Returned();
  call.Finish(r, r < 0);
  if (r >= 0 && call.outermost()) Account(dset, access, data.mem_bytes, data.file_bytes, call.duration());
  return r;
}

// Any other call: `object` (an id the call is about, or 0), a location and names, recorded
// with the call's result; counted on the object.
template <typename Real>
auto TraceOther(uint8_t op, hid_t object, hid_t loc, const char* name, const char* name2, Real call_real)
    -> decltype(call_real()) {
  Call call(op);
  if (!call.traced()) return call_real();
  ObjectView view;
  if (object != 0 && View(object, &view)) call.Object(view.id);
  if (loc != 0) call.Location(loc);
  call.Name(name);
  call.Name2(name2);
  call.Start();
  const auto r = call_real();
  call.Returned();
  call.Finish(r, r < 0);
  if (object != 0 && call.outermost()) Account(object, Access::kOther, 0, 0, call.duration());
  return r;
}

}  // namespace fathom::h5prov::preload

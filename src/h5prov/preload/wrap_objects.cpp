// wrap_objects.cpp — H5O (objects of any kind), H5L (links), H5T (named datatypes), H5I
// (references to ids: h5py closes everything with H5Idec_ref) and H5R (dereferences).
#include "h5prov/preload/wrap_common.h"

using namespace fathom::h5prov::preload;

namespace {

// H5Tcommit*: the datatype `type` becomes a named datatype, an object of the file.
template <typename Real>
herr_t TraceCommit(uint8_t op, hid_t loc, hid_t type, const char* name, Real call_real) {
  Call call(op);
  if (!call.traced()) return call_real();
  call.Location(loc);
  call.Name(name);
  const uint64_t file = FileOf(loc);
  call.Start();
  const herr_t r = call_real();
  call.Returned();
  if (r >= 0) Opened(call, type, f::kDatatype, file);
  call.Finish(r, r < 0);
  return r;
}

}  // namespace

#pragma GCC visibility push(default)  // the wrappers: the library's only exports
extern "C" {

hid_t H5Oopen(hid_t loc, const char* name, hid_t lapl) {
  FATHOM_H5_REAL_OR(H5Oopen, -1)
  return TraceOpen(f::kOopen, 0, loc, name, nullptr, [&] { return real_fn(loc, name, lapl); });
}

hid_t H5Oopen_by_addr(hid_t loc, h5::haddr_t addr) {
  FATHOM_H5_REAL_OR(H5Oopen_by_addr, -1)
  return TraceOpen(f::kOopenByAddr, 0, loc, nullptr, nullptr, [&] { return real_fn(loc, addr); });
}

hid_t H5Oopen_by_idx(hid_t loc, const char* group, int index_type, int order, hsize_t n, hid_t lapl) {
  FATHOM_H5_REAL_OR(H5Oopen_by_idx, -1)
  return TraceOpen(f::kOopenByIdx, 0, loc, group, nullptr,
                   [&] { return real_fn(loc, group, index_type, order, n, lapl); });
}

herr_t H5Oclose(hid_t object) {
  FATHOM_H5_REAL_OR(H5Oclose, -1)
  return TraceRelease(f::kOclose, object, f::kClosedByClose, false, [&] { return real_fn(object); });
}

herr_t H5Ocopy(hid_t src_loc, const char* src_name, hid_t dst_loc, const char* dst_name, hid_t ocpypl, hid_t lcpl) {
  FATHOM_H5_REAL_OR(H5Ocopy, -1)
  return TraceOther(f::kOcopy, dst_loc, src_loc, src_name, dst_name,
                    [&] { return real_fn(src_loc, src_name, dst_loc, dst_name, ocpypl, lcpl); });
}

// H5Olink gives an anonymous object (H5Dcreate_anon...) its name: a kRenamed record follows.
herr_t H5Olink(hid_t object, hid_t new_loc, const char* new_name, hid_t lcpl, hid_t lapl) {
  FATHOM_H5_REAL_OR(H5Olink, -1)
  const herr_t r = TraceOther(f::kOlink, object, new_loc, new_name, nullptr,
                              [&] { return real_fn(object, new_loc, new_name, lcpl, lapl); });
  if (r >= 0 && Tracing()) NoteRenamed(object);
  return r;
}

herr_t H5Lcreate_hard(hid_t cur_loc, const char* cur_name, hid_t dst_loc, const char* dst_name, hid_t lcpl,
                      hid_t lapl) {
  FATHOM_H5_REAL_OR(H5Lcreate_hard, -1)
  return TraceOther(f::kLcreateHard, dst_loc, cur_loc, cur_name, dst_name,
                    [&] { return real_fn(cur_loc, cur_name, dst_loc, dst_name, lcpl, lapl); });
}

herr_t H5Lcreate_soft(const char* target, hid_t loc, const char* name, hid_t lcpl, hid_t lapl) {
  FATHOM_H5_REAL_OR(H5Lcreate_soft, -1)
  return TraceOther(f::kLcreateSoft, 0, loc, name, target, [&] { return real_fn(target, loc, name, lcpl, lapl); });
}

herr_t H5Lcreate_external(const char* file, const char* object, hid_t loc, const char* name, hid_t lcpl,
                          hid_t lapl) {
  FATHOM_H5_REAL_OR(H5Lcreate_external, -1)
  return TraceOther(f::kLcreateExternal, 0, loc, name, object,
                    [&] { return real_fn(file, object, loc, name, lcpl, lapl); });
}

herr_t H5Lcreate_ud(hid_t loc, const char* name, int type, const void* data, size_t size, hid_t lcpl, hid_t lapl) {
  FATHOM_H5_REAL_OR(H5Lcreate_ud, -1)
  return TraceOther(f::kLcreateUd, 0, loc, name, nullptr,
                    [&] { return real_fn(loc, name, type, data, size, lcpl, lapl); });
}

// The objects open under a moved link take their new paths in the reader (HDF5 1.10 does not
// always rename them itself: H5Iget_name still gives the old path).
herr_t H5Lmove(hid_t src_loc, const char* src_name, hid_t dst_loc, const char* dst_name, hid_t lcpl, hid_t lapl) {
  FATHOM_H5_REAL_OR(H5Lmove, -1)
  return TraceOther(f::kLmove, dst_loc, src_loc, src_name, dst_name,
                    [&] { return real_fn(src_loc, src_name, dst_loc, dst_name, lcpl, lapl); });
}

herr_t H5Lcopy(hid_t src_loc, const char* src_name, hid_t dst_loc, const char* dst_name, hid_t lcpl, hid_t lapl) {
  FATHOM_H5_REAL_OR(H5Lcopy, -1)
  return TraceOther(f::kLcopy, dst_loc, src_loc, src_name, dst_name,
                    [&] { return real_fn(src_loc, src_name, dst_loc, dst_name, lcpl, lapl); });
}

herr_t H5Ldelete(hid_t loc, const char* name, hid_t lapl) {
  FATHOM_H5_REAL_OR(H5Ldelete, -1)
  return TraceOther(f::kLdelete, 0, loc, name, nullptr, [&] { return real_fn(loc, name, lapl); });
}

herr_t H5Ldelete_by_idx(hid_t loc, const char* group, int index_type, int order, hsize_t n, hid_t lapl) {
  FATHOM_H5_REAL_OR(H5Ldelete_by_idx, -1)
  return TraceOther(f::kLdeleteByIdx, 0, loc, group, nullptr,
                    [&] { return real_fn(loc, group, index_type, order, n, lapl); });
}

herr_t H5Tcommit1(hid_t loc, const char* name, hid_t type) {
  FATHOM_H5_REAL_OR(H5Tcommit1, -1)
  return TraceCommit(f::kTcommit1, loc, type, name, [&] { return real_fn(loc, name, type); });
}

herr_t H5Tcommit2(hid_t loc, const char* name, hid_t type, hid_t lcpl, hid_t tcpl, hid_t tapl) {
  FATHOM_H5_REAL_OR(H5Tcommit2, -1)
  return TraceCommit(f::kTcommit2, loc, type, name, [&] { return real_fn(loc, name, type, lcpl, tcpl, tapl); });
}

herr_t H5Tcommit_anon(hid_t loc, hid_t type, hid_t tcpl, hid_t tapl) {
  FATHOM_H5_REAL_OR(H5Tcommit_anon, -1)
  return TraceCommit(f::kTcommitAnon, loc, type, nullptr, [&] { return real_fn(loc, type, tcpl, tapl); });
}

hid_t H5Topen1(hid_t loc, const char* name) {
  FATHOM_H5_REAL_OR(H5Topen1, -1)
  return TraceOpen(f::kTopen1, f::kDatatype, loc, name, nullptr, [&] { return real_fn(loc, name); });
}

hid_t H5Topen2(hid_t loc, const char* name, hid_t tapl) {
  FATHOM_H5_REAL_OR(H5Topen2, -1)
  return TraceOpen(f::kTopen2, f::kDatatype, loc, name, nullptr, [&] { return real_fn(loc, name, tapl); });
}

// Only named datatypes are objects; the many transient types a program closes are not traced.
herr_t H5Tclose(hid_t type) {
  FATHOM_H5_REAL_OR(H5Tclose, -1)
  return TraceRelease(f::kTclose, type, f::kClosedByClose, true, [&] { return real_fn(type); });
}

int H5Idec_ref(hid_t id) {
  FATHOM_H5_REAL_OR(H5Idec_ref, -1)
  return TraceRelease(f::kIdecRef, id, f::kClosedByDecRef, true, [&] { return real_fn(id); });
}

int H5Iinc_ref(hid_t id) {
  FATHOM_H5_REAL_OR(H5Iinc_ref, -1)
  ObjectView view;
  if (!Tracing() || !FindObject(id, &view)) return real_fn(id);
  const int r = TraceOther(f::kIincRef, id, 0, nullptr, nullptr, [&] { return real_fn(id); });
  if (r >= 0) CountIncRef(id);
  return r;
}

hid_t H5Rdereference1(hid_t object, int type, const void* ref) {
  FATHOM_H5_REAL_OR(H5Rdereference1, -1)
  return TraceOpen(f::kRdereference1, 0, object, nullptr, nullptr, [&] { return real_fn(object, type, ref); });
}

hid_t H5Rdereference2(hid_t object, hid_t oapl, int type, const void* ref) {
  FATHOM_H5_REAL_OR(H5Rdereference2, -1)
  return TraceOpen(f::kRdereference2, 0, object, nullptr, nullptr, [&] { return real_fn(object, oapl, type, ref); });
}

}  // extern "C"
#pragma GCC visibility pop

// wrap_attributes.cpp — H5A (attributes).
#include "h5prov/preload/wrap_common.h"

using namespace fathom::h5prov::preload;

namespace {

// H5Aread/H5Awrite: the whole attribute moves; memory bytes by the memory type's size, file
// bytes by the attribute's.
template <typename Real>
herr_t TraceAttributeData(uint8_t op, Access access, hid_t attr, hid_t mem_type, Real call_real) {
  Call call(op);
  if (!call.traced()) return call_real();
  ObjectView view;
  DataInfo& data = call.Data();
  if (View(attr, &view)) {
    Internal internal;
    DescribeTransfer(view, mem_type, h5::kAll, h5::kAll, h5::kDefault, &data);
    data.transfer = 0;  // attributes are written by the library's metadata path, not MPI-IO
    call.Object(view.id);
  }
  call.Start();
  const herr_t r = call_real();
  call.Returned();
  call.Finish(r, r < 0);
  if (r >= 0 && call.outermost()) Account(attr, access, data.mem_bytes, data.file_bytes, call.duration());
  return r;
}

}  // namespace

#pragma GCC visibility push(default)  // the wrappers: the library's only exports
extern "C" {

hid_t H5Acreate1(hid_t loc, const char* name, hid_t type, hid_t space, hid_t acpl) {
  FATHOM_H5_REAL_OR(H5Acreate1, -1)
  return TraceOpen(f::kAcreate1, f::kAttribute, loc, nullptr, name, [&] { return real_fn(loc, name, type, space, acpl); });
}

hid_t H5Acreate2(hid_t loc, const char* name, hid_t type, hid_t space, hid_t acpl, hid_t aapl) {
  FATHOM_H5_REAL_OR(H5Acreate2, -1)
  return TraceOpen(f::kAcreate2, f::kAttribute, loc, nullptr, name,
                   [&] { return real_fn(loc, name, type, space, acpl, aapl); });
}

hid_t H5Acreate_by_name(hid_t loc, const char* object, const char* name, hid_t type, hid_t space, hid_t acpl,
                        hid_t aapl, hid_t lapl) {
  FATHOM_H5_REAL_OR(H5Acreate_by_name, -1)
  return TraceOpen(f::kAcreateByName, f::kAttribute, loc, object, name,
                   [&] { return real_fn(loc, object, name, type, space, acpl, aapl, lapl); });
}

hid_t H5Aopen(hid_t object, const char* name, hid_t aapl) {
  FATHOM_H5_REAL_OR(H5Aopen, -1)
  return TraceOpen(f::kAopen, f::kAttribute, object, nullptr, name, [&] { return real_fn(object, name, aapl); });
}

hid_t H5Aopen_name(hid_t loc, const char* name) {
  FATHOM_H5_REAL_OR(H5Aopen_name, -1)
  return TraceOpen(f::kAopenName, f::kAttribute, loc, nullptr, name, [&] { return real_fn(loc, name); });
}

hid_t H5Aopen_idx(hid_t loc, unsigned index) {
  FATHOM_H5_REAL_OR(H5Aopen_idx, -1)
  return TraceOpen(f::kAopenIdx, f::kAttribute, loc, nullptr, nullptr, [&] { return real_fn(loc, index); });
}

hid_t H5Aopen_by_name(hid_t loc, const char* object, const char* name, hid_t aapl, hid_t lapl) {
  FATHOM_H5_REAL_OR(H5Aopen_by_name, -1)
  return TraceOpen(f::kAopenByName, f::kAttribute, loc, object, name,
                   [&] { return real_fn(loc, object, name, aapl, lapl); });
}

hid_t H5Aopen_by_idx(hid_t loc, const char* object, int index_type, int order, hsize_t n, hid_t aapl, hid_t lapl) {
  FATHOM_H5_REAL_OR(H5Aopen_by_idx, -1)
  return TraceOpen(f::kAopenByIdx, f::kAttribute, loc, object, nullptr,
                   [&] { return real_fn(loc, object, index_type, order, n, aapl, lapl); });
}

herr_t H5Aread(hid_t attr, hid_t mem_type, void* buf) {
  FATHOM_H5_REAL_OR(H5Aread, -1)
  return TraceAttributeData(f::kAread, Access::kRead, attr, mem_type, [&] { return real_fn(attr, mem_type, buf); });
}

herr_t H5Awrite(hid_t attr, hid_t mem_type, const void* buf) {
  FATHOM_H5_REAL_OR(H5Awrite, -1)
  return TraceAttributeData(f::kAwrite, Access::kWrite, attr, mem_type, [&] { return real_fn(attr, mem_type, buf); });
}

herr_t H5Aclose(hid_t attr) {
  FATHOM_H5_REAL_OR(H5Aclose, -1)
  return TraceRelease(f::kAclose, attr, f::kClosedByClose, false, [&] { return real_fn(attr); });
}

herr_t H5Adelete(hid_t loc, const char* name) {
  FATHOM_H5_REAL_OR(H5Adelete, -1)
  return TraceOther(f::kAdelete, 0, loc, nullptr, name, [&] { return real_fn(loc, name); });
}

herr_t H5Adelete_by_name(hid_t loc, const char* object, const char* name, hid_t lapl) {
  FATHOM_H5_REAL_OR(H5Adelete_by_name, -1)
  return TraceOther(f::kAdeleteByName, 0, loc, object, name, [&] { return real_fn(loc, object, name, lapl); });
}

herr_t H5Adelete_by_idx(hid_t loc, const char* object, int index_type, int order, hsize_t n, hid_t lapl) {
  FATHOM_H5_REAL_OR(H5Adelete_by_idx, -1)
  return TraceOther(f::kAdeleteByIdx, 0, loc, object, nullptr,
                    [&] { return real_fn(loc, object, index_type, order, n, lapl); });
}

herr_t H5Arename(hid_t loc, const char* old_name, const char* new_name) {
  FATHOM_H5_REAL_OR(H5Arename, -1)
  return TraceOther(f::kArename, 0, loc, old_name, new_name, [&] { return real_fn(loc, old_name, new_name); });
}

herr_t H5Arename_by_name(hid_t loc, const char* object, const char* old_name, const char* new_name, hid_t lapl) {
  FATHOM_H5_REAL_OR(H5Arename_by_name, -1)
  return TraceOther(f::kArenameByName, 0, loc, old_name, new_name,
                    [&] { return real_fn(loc, object, old_name, new_name, lapl); });
}

}  // extern "C"
#pragma GCC visibility pop

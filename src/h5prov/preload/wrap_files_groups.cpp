// wrap_files_groups.cpp — H5F (files) and H5G (groups).
#include "h5prov/preload/wrap_common.h"

using namespace fathom::h5prov::preload;

namespace {

// H5Fcreate/H5Fopen: the file's real path and identity are taken once it exists.
template <typename Real>
hid_t TraceFileOpen(uint8_t op, const char* name, Real call_real) {
  Call call(op);
  if (!call.traced()) return call_real();
  call.Name(name);
  call.Start();
  const hid_t r = call_real();
  call.Returned();
  if (r >= 0) Opened(call, r, f::kFile, 0, name);
  call.Finish(r, r < 0);
  return r;
}

}  // namespace

#pragma GCC visibility push(default)  // the wrappers: the library's only exports
extern "C" {

hid_t H5Fcreate(const char* name, unsigned flags, hid_t fcpl, hid_t fapl) {
  FATHOM_H5_REAL_OR(H5Fcreate, -1)
  return TraceFileOpen(f::kFcreate, name, [&] { return real_fn(name, flags, fcpl, fapl); });
}

hid_t H5Fopen(const char* name, unsigned flags, hid_t fapl) {
  FATHOM_H5_REAL_OR(H5Fopen, -1)
  return TraceFileOpen(f::kFopen, name, [&] { return real_fn(name, flags, fapl); });
}

hid_t H5Freopen(hid_t file) {
  FATHOM_H5_REAL_OR(H5Freopen, -1)
  return TraceOpen(f::kFreopen, f::kFile, file, nullptr, nullptr, [&] { return real_fn(file); });
}

herr_t H5Fflush(hid_t object, int scope) {
  FATHOM_H5_REAL_OR(H5Fflush, -1)
  return TraceOther(f::kFflush, object, 0, nullptr, nullptr, [&] { return real_fn(object, scope); });
}

herr_t H5Fclose(hid_t file) {
  FATHOM_H5_REAL_OR(H5Fclose, -1)
  return TraceRelease(f::kFclose, file, f::kClosedByClose, false, [&] { return real_fn(file); });
}

hid_t H5Gcreate1(hid_t loc, const char* name, size_t size_hint) {
  FATHOM_H5_REAL_OR(H5Gcreate1, -1)
  return TraceOpen(f::kGcreate1, f::kGroup, loc, name, nullptr, [&] { return real_fn(loc, name, size_hint); });
}

hid_t H5Gcreate2(hid_t loc, const char* name, hid_t lcpl, hid_t gcpl, hid_t gapl) {
  FATHOM_H5_REAL_OR(H5Gcreate2, -1)
  return TraceOpen(f::kGcreate2, f::kGroup, loc, name, nullptr, [&] { return real_fn(loc, name, lcpl, gcpl, gapl); });
}

hid_t H5Gcreate_anon(hid_t loc, hid_t gcpl, hid_t gapl) {
  FATHOM_H5_REAL_OR(H5Gcreate_anon, -1)
  return TraceOpen(f::kGcreateAnon, f::kGroup, loc, nullptr, nullptr, [&] { return real_fn(loc, gcpl, gapl); });
}

hid_t H5Gopen1(hid_t loc, const char* name) {
  FATHOM_H5_REAL_OR(H5Gopen1, -1)
  return TraceOpen(f::kGopen1, f::kGroup, loc, name, nullptr, [&] { return real_fn(loc, name); });
}

hid_t H5Gopen2(hid_t loc, const char* name, hid_t gapl) {
  FATHOM_H5_REAL_OR(H5Gopen2, -1)
  return TraceOpen(f::kGopen2, f::kGroup, loc, name, nullptr, [&] { return real_fn(loc, name, gapl); });
}

herr_t H5Gclose(hid_t group) {
  FATHOM_H5_REAL_OR(H5Gclose, -1)
  return TraceRelease(f::kGclose, group, f::kClosedByClose, false, [&] { return real_fn(group); });
}

}  // extern "C"
#pragma GCC visibility pop

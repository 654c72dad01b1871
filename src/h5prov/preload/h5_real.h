// h5_real.h — HDF5's own functions, found in the process at first use.
//
// A function is looked up with dlsym(RTLD_NEXT) and, when that finds nothing (Python loads
// h5py's libhdf5 with RTLD_LOCAL, so it is not in the global scope), in the HDF5 library
// already loaded: dl_iterate_phdr names it, dlopen(RTLD_NOLOAD) opens it without loading
// anything. A function that cannot be found is nullptr; the wrappers then fail the call
// (a missing core function) or skip the look-up (a missing helper), and say so once.
//
// Threading: any thread; a lookup may be repeated by two threads, with the same result.
#pragma once

#include <atomic>

#include "h5prov/preload/h5_abi.h"

namespace fathom::h5prov::preload::real {

// The definition of `name` in HDF5 (the high-level library for H5DO*), not ours.
void* Find(const char* name);
// Whether the process has an HDF5 C library loaded.
bool Hdf5Loaded();
// The HDF5 library the functions come from: its flavour (serial, openmpi) from its file name.
uint8_t Flavour();

// A function's slot: looked up once, found or not (a function the HDF5 of the process lacks,
// such as H5Pget_dxpl_mpio in the serial flavour, is not searched for again at every call).
template <typename F>
struct Slot {
  std::atomic<F> fn{nullptr};
  std::atomic<bool> looked{false};
};

template <typename F>
F Resolve(Slot<F>& slot, const char* name) {
  if (slot.looked.load(std::memory_order_acquire)) return slot.fn.load(std::memory_order_relaxed);
  F f = reinterpret_cast<F>(Find(name));
  // Before HDF5 is loaded (a call through dlsym of a program that loads it later) nothing is
  // found: looked up again until found.
  slot.fn.store(f, std::memory_order_relaxed);
  if (f != nullptr || Hdf5Loaded()) slot.looked.store(true, std::memory_order_release);
  return f;
}

#define FATHOM_H5_REAL(fn, ret, ...)                                        \
  using fn##_t = ret (*)(__VA_ARGS__);                                      \
  inline fn##_t fn() {                                                      \
    static Slot<fn##_t> slot;                                               \
    return ::fathom::h5prov::preload::real::Resolve(slot, #fn);             \
  }

using h5::haddr_t;
using h5::herr_t;
using h5::hid_t;
using h5::hsize_t;
using h5::hssize_t;
using h5::htri_t;

// The wrapped functions.
FATHOM_H5_REAL(H5Fcreate, hid_t, const char*, unsigned, hid_t, hid_t)
FATHOM_H5_REAL(H5Fopen, hid_t, const char*, unsigned, hid_t)
FATHOM_H5_REAL(H5Freopen, hid_t, hid_t)
FATHOM_H5_REAL(H5Fflush, herr_t, hid_t, int)
FATHOM_H5_REAL(H5Fclose, herr_t, hid_t)
FATHOM_H5_REAL(H5Gcreate1, hid_t, hid_t, const char*, size_t)
FATHOM_H5_REAL(H5Gcreate2, hid_t, hid_t, const char*, hid_t, hid_t, hid_t)
FATHOM_H5_REAL(H5Gcreate_anon, hid_t, hid_t, hid_t, hid_t)
FATHOM_H5_REAL(H5Gopen1, hid_t, hid_t, const char*)
FATHOM_H5_REAL(H5Gopen2, hid_t, hid_t, const char*, hid_t)
FATHOM_H5_REAL(H5Gclose, herr_t, hid_t)
FATHOM_H5_REAL(H5Dcreate1, hid_t, hid_t, const char*, hid_t, hid_t, hid_t)
FATHOM_H5_REAL(H5Dcreate2, hid_t, hid_t, const char*, hid_t, hid_t, hid_t, hid_t, hid_t)
FATHOM_H5_REAL(H5Dcreate_anon, hid_t, hid_t, hid_t, hid_t, hid_t, hid_t)
FATHOM_H5_REAL(H5Dopen1, hid_t, hid_t, const char*)
FATHOM_H5_REAL(H5Dopen2, hid_t, hid_t, const char*, hid_t)
FATHOM_H5_REAL(H5Dread, herr_t, hid_t, hid_t, hid_t, hid_t, hid_t, void*)
FATHOM_H5_REAL(H5Dwrite, herr_t, hid_t, hid_t, hid_t, hid_t, hid_t, const void*)
FATHOM_H5_REAL(H5Dset_extent, herr_t, hid_t, const hsize_t*)
FATHOM_H5_REAL(H5Dextend, herr_t, hid_t, const hsize_t*)
FATHOM_H5_REAL(H5Dflush, herr_t, hid_t)
FATHOM_H5_REAL(H5Dclose, herr_t, hid_t)
FATHOM_H5_REAL(H5Dread_chunk, herr_t, hid_t, hid_t, const hsize_t*, uint32_t*, void*)
FATHOM_H5_REAL(H5Dwrite_chunk, herr_t, hid_t, hid_t, uint32_t, const hsize_t*, size_t, const void*)
FATHOM_H5_REAL(H5DOwrite_chunk, herr_t, hid_t, hid_t, uint32_t, const hsize_t*, size_t, const void*)
FATHOM_H5_REAL(H5DOread_chunk, herr_t, hid_t, hid_t, const hsize_t*, uint32_t*, void*)
FATHOM_H5_REAL(H5Acreate1, hid_t, hid_t, const char*, hid_t, hid_t, hid_t)
FATHOM_H5_REAL(H5Acreate2, hid_t, hid_t, const char*, hid_t, hid_t, hid_t, hid_t)
FATHOM_H5_REAL(H5Acreate_by_name, hid_t, hid_t, const char*, const char*, hid_t, hid_t, hid_t, hid_t, hid_t)
FATHOM_H5_REAL(H5Aopen, hid_t, hid_t, const char*, hid_t)
FATHOM_H5_REAL(H5Aopen_name, hid_t, hid_t, const char*)
FATHOM_H5_REAL(H5Aopen_idx, hid_t, hid_t, unsigned)
FATHOM_H5_REAL(H5Aopen_by_name, hid_t, hid_t, const char*, const char*, hid_t, hid_t)
FATHOM_H5_REAL(H5Aopen_by_idx, hid_t, hid_t, const char*, int, int, hsize_t, hid_t, hid_t)
FATHOM_H5_REAL(H5Aread, herr_t, hid_t, hid_t, void*)
FATHOM_H5_REAL(H5Awrite, herr_t, hid_t, hid_t, const void*)
FATHOM_H5_REAL(H5Aclose, herr_t, hid_t)
FATHOM_H5_REAL(H5Adelete, herr_t, hid_t, const char*)
FATHOM_H5_REAL(H5Adelete_by_name, herr_t, hid_t, const char*, const char*, hid_t)
FATHOM_H5_REAL(H5Adelete_by_idx, herr_t, hid_t, const char*, int, int, hsize_t, hid_t)
FATHOM_H5_REAL(H5Arename, herr_t, hid_t, const char*, const char*)
FATHOM_H5_REAL(H5Arename_by_name, herr_t, hid_t, const char*, const char*, const char*, hid_t)
FATHOM_H5_REAL(H5Oopen, hid_t, hid_t, const char*, hid_t)
FATHOM_H5_REAL(H5Oopen_by_addr, hid_t, hid_t, haddr_t)
FATHOM_H5_REAL(H5Oopen_by_idx, hid_t, hid_t, const char*, int, int, hsize_t, hid_t)
FATHOM_H5_REAL(H5Oclose, herr_t, hid_t)
FATHOM_H5_REAL(H5Ocopy, herr_t, hid_t, const char*, hid_t, const char*, hid_t, hid_t)
FATHOM_H5_REAL(H5Olink, herr_t, hid_t, hid_t, const char*, hid_t, hid_t)
FATHOM_H5_REAL(H5Lcreate_hard, herr_t, hid_t, const char*, hid_t, const char*, hid_t, hid_t)
FATHOM_H5_REAL(H5Lcreate_soft, herr_t, const char*, hid_t, const char*, hid_t, hid_t)
FATHOM_H5_REAL(H5Lcreate_external, herr_t, const char*, const char*, hid_t, const char*, hid_t, hid_t)
FATHOM_H5_REAL(H5Lcreate_ud, herr_t, hid_t, const char*, int, const void*, size_t, hid_t, hid_t)
FATHOM_H5_REAL(H5Lmove, herr_t, hid_t, const char*, hid_t, const char*, hid_t, hid_t)
FATHOM_H5_REAL(H5Lcopy, herr_t, hid_t, const char*, hid_t, const char*, hid_t, hid_t)
FATHOM_H5_REAL(H5Ldelete, herr_t, hid_t, const char*, hid_t)
FATHOM_H5_REAL(H5Ldelete_by_idx, herr_t, hid_t, const char*, int, int, hsize_t, hid_t)
FATHOM_H5_REAL(H5Tcommit1, herr_t, hid_t, const char*, hid_t)
FATHOM_H5_REAL(H5Tcommit2, herr_t, hid_t, const char*, hid_t, hid_t, hid_t, hid_t)
FATHOM_H5_REAL(H5Tcommit_anon, herr_t, hid_t, hid_t, hid_t, hid_t)
FATHOM_H5_REAL(H5Topen1, hid_t, hid_t, const char*)
FATHOM_H5_REAL(H5Topen2, hid_t, hid_t, const char*, hid_t)
FATHOM_H5_REAL(H5Tclose, herr_t, hid_t)
FATHOM_H5_REAL(H5Idec_ref, int, hid_t)
FATHOM_H5_REAL(H5Iinc_ref, int, hid_t)
FATHOM_H5_REAL(H5Rdereference1, hid_t, hid_t, int, const void*)
FATHOM_H5_REAL(H5Rdereference2, hid_t, hid_t, hid_t, int, const void*)

// The look-ups the tracer makes (never recorded).
FATHOM_H5_REAL(H5get_libversion, herr_t, unsigned*, unsigned*, unsigned*)
FATHOM_H5_REAL(H5Eget_auto2, herr_t, hid_t, h5::AutoFn*, void**)
FATHOM_H5_REAL(H5Eset_auto2, herr_t, hid_t, h5::AutoFn, void*)
FATHOM_H5_REAL(H5Iget_name, ssize_t, hid_t, char*, size_t)
FATHOM_H5_REAL(H5Iget_type, int, hid_t)
FATHOM_H5_REAL(H5Iget_ref, int, hid_t)
FATHOM_H5_REAL(H5Iis_valid, htri_t, hid_t)
FATHOM_H5_REAL(H5Fget_name, ssize_t, hid_t, char*, size_t)
FATHOM_H5_REAL(H5Aget_name, ssize_t, hid_t, size_t, char*)
FATHOM_H5_REAL(H5Oget_info2, herr_t, hid_t, h5::ObjectInfo*, unsigned)
FATHOM_H5_REAL(H5Dget_space, hid_t, hid_t)
FATHOM_H5_REAL(H5Dget_type, hid_t, hid_t)
FATHOM_H5_REAL(H5Dget_create_plist, hid_t, hid_t)
FATHOM_H5_REAL(H5Dget_storage_size, hsize_t, hid_t)
FATHOM_H5_REAL(H5Dget_chunk_storage_size, herr_t, hid_t, const hsize_t*, hsize_t*)
FATHOM_H5_REAL(H5Aget_space, hid_t, hid_t)
FATHOM_H5_REAL(H5Aget_type, hid_t, hid_t)
FATHOM_H5_REAL(H5Tget_size, size_t, hid_t)
FATHOM_H5_REAL(H5Tget_class, int, hid_t)
FATHOM_H5_REAL(H5Tis_variable_str, htri_t, hid_t)
FATHOM_H5_REAL(H5Sget_simple_extent_ndims, int, hid_t)
FATHOM_H5_REAL(H5Sget_simple_extent_dims, int, hid_t, hsize_t*, hsize_t*)
FATHOM_H5_REAL(H5Sget_simple_extent_npoints, hssize_t, hid_t)
FATHOM_H5_REAL(H5Sget_select_npoints, hssize_t, hid_t)
FATHOM_H5_REAL(H5Sget_select_type, int, hid_t)
FATHOM_H5_REAL(H5Sis_regular_hyperslab, htri_t, hid_t)
FATHOM_H5_REAL(H5Sget_regular_hyperslab, htri_t, hid_t, hsize_t*, hsize_t*, hsize_t*, hsize_t*)
FATHOM_H5_REAL(H5Sget_select_hyper_nblocks, hssize_t, hid_t)
FATHOM_H5_REAL(H5Sclose, herr_t, hid_t)
FATHOM_H5_REAL(H5Pget_layout, int, hid_t)
FATHOM_H5_REAL(H5Pget_chunk, int, hid_t, int, hsize_t*)
FATHOM_H5_REAL(H5Pget_nfilters, int, hid_t)
FATHOM_H5_REAL(H5Pget_filter2, int, hid_t, unsigned, unsigned*, size_t*, unsigned*, size_t, char*, unsigned*)
FATHOM_H5_REAL(H5Pget_dxpl_mpio, herr_t, hid_t, int*)
FATHOM_H5_REAL(H5Pclose, herr_t, hid_t)

#undef FATHOM_H5_REAL

}  // namespace fathom::h5prov::preload::real

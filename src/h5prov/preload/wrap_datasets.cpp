// wrap_datasets.cpp — H5D (datasets), and direct chunk I/O (H5D*_chunk, H5DO*_chunk).
#include "h5prov/preload/wrap_common.h"

using namespace fathom::h5prov::preload;

namespace {

// H5Dset_extent/H5Dextend: the new extent is read back once the call succeeded, so that
// H5S_ALL transfers after it count the new size.
template <typename Real>
herr_t TraceExtent(uint8_t op, hid_t dset, Real call_real) {
  const herr_t r = TraceOther(op, dset, 0, nullptr, nullptr, call_real);
  if (r < 0 || !Tracing()) return r;
  Quiet quiet;
  auto get_space = real::H5Dget_space();
  auto ndims = real::H5Sget_simple_extent_ndims();
  auto dims = real::H5Sget_simple_extent_dims();
  auto sclose = real::H5Sclose();
  if (get_space == nullptr || ndims == nullptr || dims == nullptr || sclose == nullptr) return r;
  const hid_t space = get_space(dset);
  if (space < 0) return r;
  hsize_t extent[f::kMaxRank];
  const int rank = ndims(space);
  if (rank >= 0 && rank <= static_cast<int>(f::kMaxRank) && dims(space, extent, nullptr) == rank) {
    uint64_t points = 1;
    for (int d = 0; d < rank; ++d) points *= extent[d];
    SetExtent(dset, rank, extent, points);
  }
  sclose(space);
  return r;
}

// Direct chunk I/O: `size` stored bytes move, no selection, no conversion.
template <typename Real>
herr_t TraceChunk(uint8_t op, Access access, hid_t dset, uint64_t size, Real call_real) {
  Call call(op);
  if (!call.traced()) return call_real();
  ObjectView view;
  if (View(dset, &view)) call.Object(view.id);
  DataInfo& data = call.Data();
  data.selection = f::kSelectChunk;
  data.mem_bytes = data.file_bytes = size;
  call.Start();
  const herr_t r = call_real();
  call.Returned();
  call.Finish(r, r < 0);
  if (r >= 0 && call.outermost()) Account(dset, access, size, size, call.duration());
  return r;
}

// The stored size of the chunk at `offset`, asked before a direct read of it.
uint64_t ChunkSize(hid_t dset, const hsize_t* offset) {
  if (!Tracing()) return 0;
  Quiet quiet;
  hsize_t size = 0;
  auto get = real::H5Dget_chunk_storage_size();
  return get != nullptr && get(dset, offset, &size) >= 0 ? size : 0;
}

}  // namespace

#pragma GCC visibility push(default)  // the wrappers: the library's only exports
extern "C" {

hid_t H5Dcreate1(hid_t loc, const char* name, hid_t type, hid_t space, hid_t dcpl) {
  FATHOM_H5_REAL_OR(H5Dcreate1, -1)
  return TraceOpen(f::kDcreate1, f::kDataset, loc, name, nullptr, [&] { return real_fn(loc, name, type, space, dcpl); });
}

hid_t H5Dcreate2(hid_t loc, const char* name, hid_t type, hid_t space, hid_t lcpl, hid_t dcpl, hid_t dapl) {
  FATHOM_H5_REAL_OR(H5Dcreate2, -1)
  return TraceOpen(f::kDcreate2, f::kDataset, loc, name, nullptr,
                   [&] { return real_fn(loc, name, type, space, lcpl, dcpl, dapl); });
}

hid_t H5Dcreate_anon(hid_t loc, hid_t type, hid_t space, hid_t dcpl, hid_t dapl) {
  FATHOM_H5_REAL_OR(H5Dcreate_anon, -1)
  return TraceOpen(f::kDcreateAnon, f::kDataset, loc, nullptr, nullptr,
                   [&] { return real_fn(loc, type, space, dcpl, dapl); });
}

hid_t H5Dopen1(hid_t loc, const char* name) {
  FATHOM_H5_REAL_OR(H5Dopen1, -1)
  return TraceOpen(f::kDopen1, f::kDataset, loc, name, nullptr, [&] { return real_fn(loc, name); });
}

hid_t H5Dopen2(hid_t loc, const char* name, hid_t dapl) {
  FATHOM_H5_REAL_OR(H5Dopen2, -1)
  return TraceOpen(f::kDopen2, f::kDataset, loc, name, nullptr, [&] { return real_fn(loc, name, dapl); });
}

herr_t H5Dread(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space, hid_t dxpl, void* buf) {
  FATHOM_H5_REAL_OR(H5Dread, -1)
  return TraceTransfer(f::kDread, Access::kRead, dset, mem_type, mem_space, file_space, dxpl,
                       [&] { return real_fn(dset, mem_type, mem_space, file_space, dxpl, buf); });
}

herr_t H5Dwrite(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space, hid_t dxpl, const void* buf) {
  FATHOM_H5_REAL_OR(H5Dwrite, -1)
  return TraceTransfer(f::kDwrite, Access::kWrite, dset, mem_type, mem_space, file_space, dxpl,
                       [&] { return real_fn(dset, mem_type, mem_space, file_space, dxpl, buf); });
}

herr_t H5Dset_extent(hid_t dset, const hsize_t* size) {
  FATHOM_H5_REAL_OR(H5Dset_extent, -1)
  return TraceExtent(f::kDsetExtent, dset, [&] { return real_fn(dset, size); });
}

herr_t H5Dextend(hid_t dset, const hsize_t* size) {
  FATHOM_H5_REAL_OR(H5Dextend, -1)
  return TraceExtent(f::kDextend, dset, [&] { return real_fn(dset, size); });
}

herr_t H5Dflush(hid_t dset) {
  FATHOM_H5_REAL_OR(H5Dflush, -1)
  return TraceOther(f::kDflush, dset, 0, nullptr, nullptr, [&] { return real_fn(dset); });
}

herr_t H5Dclose(hid_t dset) {
  FATHOM_H5_REAL_OR(H5Dclose, -1)
  return TraceRelease(f::kDclose, dset, f::kClosedByClose, false, [&] { return real_fn(dset); });
}

herr_t H5Dread_chunk(hid_t dset, hid_t dxpl, const hsize_t* offset, uint32_t* filters, void* buf) {
  FATHOM_H5_REAL_OR(H5Dread_chunk, -1)
  return TraceChunk(f::kDreadChunk, Access::kRead, dset, ChunkSize(dset, offset),
                    [&] { return real_fn(dset, dxpl, offset, filters, buf); });
}

herr_t H5Dwrite_chunk(hid_t dset, hid_t dxpl, uint32_t filters, const hsize_t* offset, size_t size, const void* buf) {
  FATHOM_H5_REAL_OR(H5Dwrite_chunk, -1)
  return TraceChunk(f::kDwriteChunk, Access::kWrite, dset, size,
                    [&] { return real_fn(dset, dxpl, filters, offset, size, buf); });
}

herr_t H5DOwrite_chunk(hid_t dset, hid_t dxpl, uint32_t filters, const hsize_t* offset, size_t size, const void* buf) {
  FATHOM_H5_REAL_OR(H5DOwrite_chunk, -1)
  return TraceChunk(f::kDOwriteChunk, Access::kWrite, dset, size,
                    [&] { return real_fn(dset, dxpl, filters, offset, size, buf); });
}

herr_t H5DOread_chunk(hid_t dset, hid_t dxpl, const hsize_t* offset, uint32_t* filters, void* buf) {
  FATHOM_H5_REAL_OR(H5DOread_chunk, -1)
  return TraceChunk(f::kDOreadChunk, Access::kRead, dset, ChunkSize(dset, offset),
                    [&] { return real_fn(dset, dxpl, offset, filters, buf); });
}

}  // extern "C"
#pragma GCC visibility pop

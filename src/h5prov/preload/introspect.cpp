// introspect.cpp — what the tracer asks HDF5 about objects and selections.
//
// Every look-up runs under Quiet: HDF5's automatic error printing is off (a look-up on an id
// the program passed wrongly must not print HDF5-DIAG lines of its own), and the thread is
// inside the tracer, so that the library's calls to its own API are not recorded. The
// look-ups clear the thread's error stack, as any HDF5 call does: the wrappers make them
// before the program's call (which clears the stack itself) or after a call that succeeded
// (whose stack is empty), never after a failure.
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "h5prov/preload/h5_real.h"
#include "h5prov/preload/tracer.h"

namespace fathom::h5prov::preload {
namespace {

namespace f = format;

void Space(h5::hid_t space, ObjectInfo* info) {
  auto ndims = real::H5Sget_simple_extent_ndims();
  auto dims = real::H5Sget_simple_extent_dims();
  if (space < 0 || ndims == nullptr || dims == nullptr) return;
  const int rank = ndims(space);
  if (rank < 0 || rank > static_cast<int>(f::kMaxRank)) return;
  if (dims(space, info->dims, info->maxdims) == rank) info->rank = rank;
}

void Type(h5::hid_t type, ObjectInfo* info) {
  auto size = real::H5Tget_size();
  auto cls = real::H5Tget_class();
  auto is_vstr = real::H5Tis_variable_str();
  if (type < 0 || size == nullptr || cls == nullptr) return;
  info->type_size = size(type);
  info->type_class = cls(type);
  info->variable_length = info->type_class == h5::kClassVlen ||
                          (info->type_class == h5::kClassString && is_vstr != nullptr && is_vstr(type) > 0);
}

// HDF5's predefined native types: the library's globals H5T_NATIVE_*_g hold their ids (set when
// the library opens, again after H5close). A memory type that is one of them has its C type's
// size, and is neither variable-length nor a string.
struct Native {
  const char* symbol;
  int size;
  std::atomic<const h5::hid_t*> global{nullptr};
  std::atomic<bool> looked{false};
};
Native g_natives[] = {
    {"H5T_NATIVE_INT_g", sizeof(int)},          {"H5T_NATIVE_FLOAT_g", sizeof(float)},
    {"H5T_NATIVE_DOUBLE_g", sizeof(double)},    {"H5T_NATIVE_LONG_g", sizeof(long)},
    {"H5T_NATIVE_LLONG_g", sizeof(long long)},  {"H5T_NATIVE_UINT_g", sizeof(unsigned)},
    {"H5T_NATIVE_ULONG_g", sizeof(long)},       {"H5T_NATIVE_ULLONG_g", sizeof(long long)},
    {"H5T_NATIVE_SCHAR_g", 1},                  {"H5T_NATIVE_UCHAR_g", 1},
    {"H5T_NATIVE_SHORT_g", sizeof(short)},      {"H5T_NATIVE_USHORT_g", sizeof(short)},
    {"H5T_NATIVE_INT8_g", 1},                   {"H5T_NATIVE_UINT8_g", 1},
    {"H5T_NATIVE_INT16_g", 2},                  {"H5T_NATIVE_UINT16_g", 2},
    {"H5T_NATIVE_INT32_g", 4},                  {"H5T_NATIVE_UINT32_g", 4},
    {"H5T_NATIVE_INT64_g", 8},                  {"H5T_NATIVE_UINT64_g", 8},
    {"H5T_NATIVE_LDOUBLE_g", sizeof(long double)},
};

// The size of `type` if it is a native type; 0 if not (or unknown).
int NativeTypeSize(h5::hid_t type) {
  if (type <= 0) return 0;
  for (Native& n : g_natives) {
    const h5::hid_t* global = n.global.load(std::memory_order_acquire);
    if (global == nullptr) {
      if (n.looked.load(std::memory_order_acquire)) continue;
      global = static_cast<const h5::hid_t*>(real::Find(n.symbol));
      n.global.store(global, std::memory_order_release);
      n.looked.store(true, std::memory_order_release);
      if (global == nullptr) continue;
    }
    if (*global == type) return n.size;
  }
  return 0;
}

void Close(real::H5Sclose_t close, h5::hid_t id) {
  if (close != nullptr && id >= 0) close(id);
}

void CreationProperties(h5::hid_t dcpl, ObjectInfo* info) {
  auto layout = real::H5Pget_layout();
  auto chunk = real::H5Pget_chunk();
  auto nfilters = real::H5Pget_nfilters();
  auto filter = real::H5Pget_filter2();
  if (dcpl < 0) return;
  if (layout != nullptr) info->layout = layout(dcpl);
  if (info->layout == 2 && chunk != nullptr) {  // H5D_CHUNKED
    const int rank = chunk(dcpl, static_cast<int>(f::kMaxRank), info->chunk);
    if (rank > 0) info->chunk_rank = rank;
  }
  if (nfilters != nullptr && filter != nullptr) {
    const int n = nfilters(dcpl);
    for (int i = 0; i < n && i < static_cast<int>(f::kMaxFilters); ++i) {
      unsigned flags = 0, config = 0;
      size_t nvalues = 0;
      const int id = filter(dcpl, static_cast<unsigned>(i), &flags, &nvalues, nullptr, 0, nullptr, &config);
      if (id >= 0) info->filters[info->nfilters++] = id;
    }
  }
}

}  // namespace

Quiet::Quiet() {
  auto get = real::H5Eget_auto2();
  auto set = real::H5Eset_auto2();
  if (get == nullptr || set == nullptr || get(h5::kDefault, &func_, &data_) < 0) return;
  saved_ = set(h5::kDefault, nullptr, nullptr) >= 0;
}

Quiet::~Quiet() {
  if (saved_) real::H5Eset_auto2()(h5::kDefault, func_, data_);
}

bool IsA(h5::hid_t id, int type) {
  auto get_type = real::H5Iget_type();
  return get_type != nullptr && get_type(id) == type;
}

uint8_t KindOf(h5::hid_t hid) {
  auto type = real::H5Iget_type();
  if (type == nullptr) return 0;
  switch (type(hid)) {
    case h5::kIdFile:
      return f::kFile;
    case h5::kIdGroup:
      return f::kGroup;
    case h5::kIdDataset:
      return f::kDataset;
    case h5::kIdAttr:
      return f::kAttribute;
    case h5::kIdDatatype:
      return f::kDatatype;
    default:
      return 0;
  }
}

void Describe(h5::hid_t hid, uint8_t kind, uint64_t file, ObjectInfo* info) {
  info->kind = kind;
  info->file = file;
  if (auto name = real::H5Iget_name(); name != nullptr) {
    if (name(hid, info->path, sizeof(info->path)) < 0) info->path[0] = '\0';
  }
  if (auto get_info = real::H5Oget_info2(); get_info != nullptr) {
    h5::ObjectInfo oi;
    if (get_info(hid, &oi, h5::kObjectInfoBasic) >= 0) info->address = oi.addr + 1;
  }
  auto sclose = real::H5Sclose();
  auto tclose = real::H5Tclose();
  if (kind == f::kAttribute) {
    if (auto name = real::H5Aget_name(); name != nullptr) {
      if (name(hid, sizeof(info->name), info->name) < 0) info->name[0] = '\0';
    }
    if (auto get = real::H5Aget_type(); get != nullptr) {
      const h5::hid_t type = get(hid);
      Type(type, info);
      Close(tclose, type);
    }
    if (auto get = real::H5Aget_space(); get != nullptr) {
      const h5::hid_t space = get(hid);
      Space(space, info);
      Close(sclose, space);
    }
  }
  if (kind == f::kDataset) {
    if (auto get = real::H5Dget_type(); get != nullptr) {
      const h5::hid_t type = get(hid);
      Type(type, info);
      Close(tclose, type);
    }
    if (auto get = real::H5Dget_space(); get != nullptr) {
      const h5::hid_t space = get(hid);
      Space(space, info);
      Close(sclose, space);
    }
    if (auto get = real::H5Dget_create_plist(); get != nullptr) {
      const h5::hid_t dcpl = get(hid);
      CreationProperties(dcpl, info);
      Close(real::H5Pclose(), dcpl);
    }
  }
}

void DescribeFile(h5::hid_t hid, const char* name, ObjectInfo* info) {
  info->kind = f::kFile;
  char given[PATH_MAX];
  if (name == nullptr) {
    auto get_name = real::H5Fget_name();
    if (get_name == nullptr || get_name(hid, given, sizeof(given)) < 0) given[0] = '\0';
    name = given;
  }
  char resolved[PATH_MAX];
  const char* path = realpath(name, resolved) != nullptr ? resolved : name;
  size_t length = strlen(path);
  if (length >= sizeof(info->path)) length = sizeof(info->path) - 1;
  memcpy(info->path, path, length);
  info->path[length] = '\0';
  struct stat st;
  if (stat(path, &st) == 0) {
    info->dev = st.st_dev;
    info->ino = st.st_ino;
  }
}

void DescribeTransfer(const ObjectView& view, h5::hid_t mem_type, h5::hid_t mem_space, h5::hid_t file_space,
                      h5::hid_t dxpl, DataInfo* data) {
  // The memory type: a native one without asking HDF5.
  uint64_t mem_size = view.type_size;
  data->variable_length = view.variable_length;
  if (const int native = NativeTypeSize(mem_type); native > 0) {
    mem_size = static_cast<uint64_t>(native);
  } else if (IsA(mem_type, h5::kIdDatatype)) {
    if (auto size = real::H5Tget_size(); size != nullptr) mem_size = size(mem_type);
    if (auto cls = real::H5Tget_class(); cls != nullptr && cls(mem_type) == h5::kClassVlen) data->variable_length = true;
    if (auto is_vstr = real::H5Tis_variable_str(); is_vstr != nullptr && is_vstr(mem_type) > 0) {
      data->variable_length = true;
    }
  }

  // The elements moved and the file selection's shape. A regular hyperslab's elements are its
  // count × block.
  auto npoints = real::H5Sget_select_npoints();
  auto Points = [&](h5::hid_t space) -> uint64_t {
    const h5::hssize_t n = npoints != nullptr ? npoints(space) : -1;
    return n > 0 ? static_cast<uint64_t>(n) : 0;
  };
  data->selection = f::kSelectAll;
  data->points = view.points;
  if (file_space == h5::kAll) {
    if (mem_space != h5::kAll && IsA(mem_space, h5::kIdDataspace)) data->points = Points(mem_space);
  } else if (IsA(file_space, h5::kIdDataspace)) {
    auto type = real::H5Sget_select_type();
    switch (type != nullptr ? type(file_space) : h5::kSelAll) {
      case h5::kSelNone:
        data->selection = f::kSelectNone;
        data->points = 0;
        break;
      case h5::kSelPoints:
        data->selection = f::kSelectPoints;
        data->points = Points(file_space);
        break;
      case h5::kSelHyperslabs: {
        int rank = view.rank;
        if (rank <= 0) {
          auto ndims = real::H5Sget_simple_extent_ndims();
          rank = ndims != nullptr ? ndims(file_space) : -1;
        }
        auto is_regular = real::H5Sis_regular_hyperslab();
        auto regular = real::H5Sget_regular_hyperslab();
        if (is_regular != nullptr && regular != nullptr && rank > 0 && rank <= static_cast<int>(f::kMaxRank) &&
            is_regular(file_space) > 0 &&
            regular(file_space, data->start, data->stride, data->count, data->block) >= 0) {
          data->selection = f::kSelectRegular;
          data->rank = rank;
          data->points = 1;
          for (int d = 0; d < rank; ++d) data->points *= data->count[d] * data->block[d];
        } else {
          data->selection = f::kSelectIrregular;
          data->points = Points(file_space);
          if (auto nblocks = real::H5Sget_select_hyper_nblocks(); nblocks != nullptr) {
            const h5::hssize_t blocks = nblocks(file_space);
            data->nblocks = blocks > 0 ? static_cast<uint64_t>(blocks) : 0;
          }
        }
        break;
      }
      default:
        data->points = Points(file_space);
        break;
    }
  }
  data->mem_bytes = data->points * mem_size;
  data->file_bytes = data->points * view.type_size;

  // The MPI transfer mode, in a flavour that has it (H5P_DEFAULT is independent).
  if (auto mpio = real::H5Pget_dxpl_mpio(); mpio != nullptr) {
    int mode = 0;
    data->transfer = dxpl == h5::kDefault                                 ? 1
                     : IsA(dxpl, h5::kIdGenPropList) && mpio(dxpl, &mode) >= 0 ? (mode == h5::kXferCollective ? 2 : 1)
                                                                           : 0;
  }
}

}  // namespace fathom::h5prov::preload

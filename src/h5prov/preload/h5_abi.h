// h5_abi.h — the part of HDF5's ABI (1.10 and later) that libfathom-h5.so needs, declared here
// so that the tracer neither includes HDF5's headers nor links libhdf5: it serves the serial and
// the openmpi flavour alike, and a program that never loads HDF5 never sees it.
//
// Only plain types and the numeric values of enums: nothing that names a library global
// (H5T_NATIVE_*, H5P_* class ids), which would need libhdf5 at load time.
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

namespace fathom::h5prov::preload::h5 {

using hid_t = int64_t;
using herr_t = int;
using htri_t = int;
using hsize_t = unsigned long long;
using hssize_t = long long;
using haddr_t = unsigned long long;
using AutoFn = herr_t (*)(hid_t, void*);

inline constexpr hid_t kAll = 0;       // H5S_ALL
inline constexpr hid_t kDefault = 0;   // H5P_DEFAULT, H5E_DEFAULT
inline constexpr hsize_t kUnlimited = ~0ull;  // H5S_UNLIMITED

enum IdType : int {  // H5I_type_t
  kIdFile = 1,
  kIdGroup = 2,
  kIdDatatype = 3,
  kIdDataspace = 4,
  kIdDataset = 5,
  kIdAttr = 6,
  kIdGenPropList = 10,  // H5I_GENPROP_LST
};
enum SelType : int {  // H5S_sel_type
  kSelNone = 0,
  kSelPoints = 1,
  kSelHyperslabs = 2,
  kSelAll = 3,
};
enum TypeClass : int {  // H5T_class_t
  kClassString = 3,
  kClassVlen = 9,
};
inline constexpr int kXferCollective = 1;  // H5FD_MPIO_COLLECTIVE (H5FD_mpio_xfer_t)
inline constexpr unsigned kObjectInfoBasic = 1;  // H5O_INFO_BASIC

// H5O_info_t's first members (1.10): what H5Oget_info2 fills with H5O_INFO_BASIC. The rest
// of the structure is room: the library writes the whole of it.
struct ObjectInfo {
  unsigned long fileno;
  haddr_t addr;
  int type;
  unsigned rc;
  unsigned char rest[512];
};

}  // namespace fathom::h5prov::preload::h5

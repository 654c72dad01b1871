// analysis_common.h — what the analyses of src/h5prov/analysis/ share: looking up a call's
// objects, the dataset accesses of the programs' own calls, medians. Pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fathom/h5prov.h"
#include "h5prov/h5_format.h"

namespace fathom::h5prov::analysis {

// The object of `id` in the trace, or null.
const Object* FindObject(const Trace& trace, uint64_t id);
// The file an object is in (the object itself for a file), or null.
const Object* FileOf(const Trace& trace, const Object& object);
// "file.h5:/grp/ds" (a file: its path; an attribute: "file.h5:/grp/ds@name"); "" if unknown.
std::string ObjectName(const Trace& trace, uint64_t id);

inline format::OpClass ClassOf(const Call& call) { return format::Info(call.op).op_class; }

// A read or write of a dataset that the program made (parent 0) and that succeeded.
struct DatasetAccess {
  const Object* dataset = nullptr;
  const Object* file = nullptr;   // null if unknown
  bool write = false;
};
std::optional<DatasetAccess> AccessOf(const Trace& trace, const Call& call);

// The file's real path of an access ("" if unknown).
inline std::string FilePath(const DatasetAccess& access) { return access.file ? access.file->path : ""; }

// A wall-clock time as xsd:dateTime in UTC, to the microsecond: "2026-11-28T12:00:00.000123Z".
std::string IsoTime(uint64_t wall_ns);

// The median (the mean of the middle two of an even count); 0 for none.
uint64_t Median(std::vector<uint64_t> values);

}  // namespace fathom::h5prov::analysis

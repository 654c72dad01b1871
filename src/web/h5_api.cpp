// h5_api.cpp — /api/v1/h5/...: the HDF5 traces' report and lineage (docs/api.md).
#include "web/serve_context.h"

namespace fathom::web {

void AddH5Routes(httplib::Server&, ServeContext&) {}

}  // namespace fathom::web

// jobs_api.cpp — /api/v1/jobs/...: the jobs of the I/O traces' directory and each one's report (docs/api.md).
#include "web/serve_context.h"

namespace fathom::web {

void AddJobRoutes(httplib::Server&, ServeContext&) {}

}  // namespace fathom::web

// policies_api.cpp — /api/v1/policies/...: the policies file's definitions, runs and actions from the journal, dry-run previews, alerts (docs/api.md).
#include "web/serve_context.h"

namespace fathom::web {

void AddPolicyRoutes(httplib::Server&, ServeContext&) {}

}  // namespace fathom::web

// rules_api.cpp — /api/v1/rules/...: the rules file's rules and their deliveries from the outbox, dead letters and their replay (docs/api.md).
#include "web/serve_context.h"

namespace fathom::web {

void AddRuleRoutes(httplib::Server&, ServeContext&) {}

}  // namespace fathom::web

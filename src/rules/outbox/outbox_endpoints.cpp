// outbox_endpoints.cpp — the webhook endpoints disabled by HTTP 410 Gone: recording, reading
// and enabling them again (table disabled_endpoints, schema 3).
#include "rules/outbox/outbox.h"
#include "rules/outbox/outbox_state.h"

namespace fathom::rules {
namespace {

constexpr const char* kColumns = "SELECT rule, url, reason, since FROM disabled_endpoints";

Outbox::DisabledEndpoint ReadEndpoint(const store::Statement& stmt) {
  Outbox::DisabledEndpoint e;
  stmt.ColumnText(0, e.rule);
  stmt.ColumnText(1, e.url);
  stmt.ColumnText(2, e.reason);
  e.since_ns = stmt.ColumnInt(3);
  return e;
}

}  // namespace

Status Outbox::DisableEndpoint(const DisabledEndpoint& endpoint) {
  std::lock_guard lock(s_->mu);
  const std::string_view what = "disabling an endpoint";
  return s_->InTransaction(what, [&]() -> Status {
    FATHOM_ASSIGN_OR_RETURN(store::Statement set,
                            s_->db.Prepare("INSERT INTO disabled_endpoints(rule, url, reason, since) VALUES(?1, ?2, ?3,"
                                           " ?4) ON CONFLICT(rule, url) DO UPDATE SET reason = excluded.reason,"
                                           " since = excluded.since",
                                           what));
    set.BindText(1, endpoint.rule);
    set.BindText(2, endpoint.url);
    set.BindText(3, endpoint.reason);
    set.BindInt(4, endpoint.since_ns);
    return s_->db.StepDone(set, what);
  });
}

Result<std::optional<Outbox::DisabledEndpoint>> Outbox::DisabledEndpointOf(std::string_view rule,
                                                                           std::string_view url) {
  std::lock_guard lock(s_->mu);
  const std::string_view what = "reading a disabled endpoint";
  FATHOM_ASSIGN_OR_RETURN(store::Statement get,
                          s_->db.Prepare(std::string(kColumns) + " WHERE rule = ?1 AND url = ?2", what));
  get.BindText(1, rule);
  get.BindText(2, url);
  const int rc = sqlite3_step(get.get());
  if (rc == SQLITE_DONE) return std::optional<DisabledEndpoint>();
  if (rc != SQLITE_ROW) return s_->db.Error(rc, what);
  return std::optional<DisabledEndpoint>(ReadEndpoint(get));
}

Result<std::vector<Outbox::DisabledEndpoint>> Outbox::DisabledEndpoints() {
  std::lock_guard lock(s_->mu);
  const std::string_view what = "reading the disabled endpoints";
  std::vector<DisabledEndpoint> out;
  FATHOM_ASSIGN_OR_RETURN(store::Statement list, s_->db.Prepare(std::string(kColumns) + " ORDER BY rule, url", what));
  for (;;) {
    const int rc = sqlite3_step(list.get());
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) return s_->db.Error(rc, what);
    out.push_back(ReadEndpoint(list));
  }
  return out;
}

Result<size_t> Outbox::EnableEndpoints(std::string_view rule) {
  std::lock_guard lock(s_->mu);
  const std::string_view what = "enabling endpoints";
  size_t enabled = 0;
  FATHOM_RETURN_IF_ERROR(s_->InTransaction(what, [&]() -> Status {
    FATHOM_ASSIGN_OR_RETURN(store::Statement drop,
                            s_->db.Prepare("DELETE FROM disabled_endpoints WHERE rule = ?1", what));
    drop.BindText(1, rule);
    FATHOM_RETURN_IF_ERROR(s_->db.StepDone(drop, what));
    enabled = static_cast<size_t>(sqlite3_changes64(s_->db.get()));
    return Status::Ok();
  }));
  return enabled;
}

}  // namespace fathom::rules

// outbox_read.cpp — reading the outbox: the counts per rule, lists of deliveries, one
// delivery; the names of the states.
#include <array>
#include <map>

#include "rules/outbox/outbox.h"
#include "rules/outbox/outbox_state.h"

namespace fathom::rules {
namespace {

constexpr std::array<std::string_view, 5> kStateNames = {"pending", "running", "waiting", "succeeded", "dead"};

}  // namespace

std::string_view StateName(DeliveryState state) { return kStateNames.at(static_cast<size_t>(state)); }

std::optional<DeliveryState> StateFromName(std::string_view name) {
  for (size_t i = 0; i < kStateNames.size(); ++i) {
    if (kStateNames[i] == name) return static_cast<DeliveryState>(i);
  }
  return std::nullopt;
}

Result<uint64_t> Outbox::Unfinished() {
  std::lock_guard lock(s_->mu);
  FATHOM_ASSIGN_OR_RETURN(int64_t n, s_->db.QueryInt("SELECT count(*) FROM deliveries INDEXED BY deliveries_open"
                                                     " WHERE state < 3 AND state != 2",
                                                     "counting unfinished deliveries"));
  return static_cast<uint64_t>(n);
}

Result<std::vector<Outbox::RuleCounts>> Outbox::Counts() {
  std::lock_guard lock(s_->mu);
  const std::string_view what = "counting deliveries";
  const store::Connection& db = s_->db;
  std::map<std::string, RuleCounts, std::less<>> by_rule;
  {
    FATHOM_ASSIGN_OR_RETURN(store::Statement count,
                            db.Prepare("SELECT rule, state, count(*), sum(attempts > 1), max(last_event)"
                                       " FROM deliveries GROUP BY rule, state",
                                       what));
    for (;;) {
      const int rc = sqlite3_step(count.get());
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) return db.Error(rc, what);
      std::string rule = count.ColumnText(0);
      RuleCounts& c = by_rule[rule];
      c.rule = std::move(rule);
      const auto n = static_cast<uint64_t>(count.ColumnInt(2));
      switch (static_cast<DeliveryState>(count.ColumnInt(1))) {
        case DeliveryState::kPending: c.pending += n; break;
        case DeliveryState::kRunning: c.running += n; break;
        case DeliveryState::kWaiting: c.waiting += n; break;
        case DeliveryState::kSucceeded: c.succeeded += n; break;
        case DeliveryState::kDead: c.dead += n; break;
      }
      c.retried += static_cast<uint64_t>(count.ColumnInt(3));
      c.last_event = std::max(c.last_event, static_cast<uint64_t>(count.ColumnInt(4)));
    }
  }
  // The newest outcome of each rule (SQLite takes the bare column from the row of the max).
  FATHOM_ASSIGN_OR_RETURN(store::Statement last,
                          db.Prepare("SELECT last_result, max(finished) FROM deliveries WHERE rule = ?1 AND finished > 0",
                                     what));
  std::vector<RuleCounts> counts;
  counts.reserve(by_rule.size());
  for (auto& [rule, c] : by_rule) {
    last.BindText(1, rule);
    const int rc = sqlite3_step(last.get());
    if (rc != SQLITE_ROW) {
      last.Reset();
      return db.Error(rc, what);
    }
    if (!last.ColumnIsNull(1)) last.ColumnText(0, c.last_result);
    last.Reset();
    counts.push_back(std::move(c));
  }
  return counts;
}

Status Outbox::List(std::string_view rule, std::optional<DeliveryState> state, size_t limit,
                    const std::function<bool(const Delivery&)>& fn, uint64_t before_seq) {
  std::lock_guard lock(s_->mu);
  const std::string_view what = "listing deliveries";
  std::string sql = std::string("SELECT ") + kDeliveryColumns + " FROM deliveries WHERE 1";
  if (!rule.empty()) sql += " AND rule = ?1";
  if (state) sql += " AND state = ?2";
  if (before_seq > 0) sql += " AND seq < ?4";
  sql += " ORDER BY seq DESC";
  if (limit > 0) sql += " LIMIT ?3";
  FATHOM_ASSIGN_OR_RETURN(store::Statement list, s_->db.Prepare(sql, what));
  if (!rule.empty()) list.BindText(1, rule);
  if (state) list.BindInt(2, static_cast<int>(*state));
  if (limit > 0) list.BindInt(3, static_cast<int64_t>(limit));
  if (before_seq > 0) list.BindInt(4, static_cast<int64_t>(before_seq));
  Delivery d;
  for (;;) {
    const int rc = sqlite3_step(list.get());
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) return s_->db.Error(rc, what);
    ReadDelivery(list, d);
    if (!fn(d)) break;
  }
  return Status::Ok();
}

Result<std::optional<Delivery>> Outbox::Get(const std::string& id) {
  std::lock_guard lock(s_->mu);
  const std::string_view what = "reading a delivery";
  FATHOM_ASSIGN_OR_RETURN(store::Statement get,
                          s_->db.Prepare(std::string("SELECT ") + kDeliveryColumns + " FROM deliveries WHERE id = ?1",
                                         what));
  get.BindText(1, id);
  const int rc = sqlite3_step(get.get());
  if (rc == SQLITE_DONE) return std::optional<Delivery>();
  if (rc != SQLITE_ROW) return s_->db.Error(rc, what);
  Delivery d;
  ReadDelivery(get, d);
  return std::optional<Delivery>(std::move(d));
}

}  // namespace fathom::rules

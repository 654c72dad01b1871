// outbox.cpp — opening an Outbox; the rows of deliveries; recording deliveries and cursors.
#include "rules/outbox/outbox.h"

#include <algorithm>
#include <charconv>
#include <random>

#include "rules/outbox/outbox_state.h"

namespace fathom::rules {
namespace {

constexpr int kPending = static_cast<int>(DeliveryState::kPending);
constexpr int kWaiting = static_cast<int>(DeliveryState::kWaiting);
constexpr int kDead = static_cast<int>(DeliveryState::kDead);

std::function<double()> UniformJitter() {
  auto engine = std::make_shared<std::mt19937_64>(std::random_device{}());
  return [engine]() { return std::uniform_real_distribution<double>(0.0, 1.0)(*engine); };
}

Status CheckDelivery(const std::string& path, const NewDelivery& d) {
  std::string problem;
  if (d.rule.empty()) problem = "a delivery has no rule name";
  else if (d.event_ids.empty()) problem = "a delivery of rule " + d.rule + " has no event ids";
  else if (!std::is_sorted(d.event_ids.begin(), d.event_ids.end()) ||
           std::adjacent_find(d.event_ids.begin(), d.event_ids.end()) != d.event_ids.end()) {
    problem = "the event ids of a delivery of rule " + d.rule + " are not ascending";
  }
  if (problem.empty()) return Status::Ok();
  return Status::Error("rules outbox " + path + ": " + problem + "; nothing of this batch was recorded");
}

}  // namespace

std::string EventIdsText(std::span<const uint64_t> ids) {
  std::string text;
  for (uint64_t id : ids) {
    if (!text.empty()) text.push_back(',');
    text += std::to_string(id);
  }
  return text;
}

std::vector<uint64_t> EventIdsFrom(std::string_view text) {
  std::vector<uint64_t> ids;
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    uint64_t id = 0;
    auto [next, ec] = std::from_chars(p, end, id);
    if (ec != std::errc()) break;
    ids.push_back(id);
    p = next;
    if (p < end && *p == ',') ++p;
  }
  return ids;
}

void ReadDelivery(const store::Statement& stmt, Delivery& out) {
  stmt.ColumnText(0, out.id);
  out.seq = static_cast<uint64_t>(stmt.ColumnInt(1));
  stmt.ColumnText(2, out.rule);
  stmt.ColumnText(3, out.rule_version);
  out.path.assign(stmt.ColumnBlob(4));
  stmt.ColumnText(5, out.payload);
  std::string ids;
  stmt.ColumnText(6, ids);
  out.event_ids = EventIdsFrom(ids);
  out.state = static_cast<DeliveryState>(std::clamp<int64_t>(stmt.ColumnInt(7), kPending, kDead));
  out.attempts = static_cast<int>(stmt.ColumnInt(8));
  out.created_ns = stmt.ColumnInt(9);
  out.next_ns = stmt.ColumnInt(10);
  out.lease_until_ns = stmt.ColumnInt(11);
  out.finished_ns = stmt.ColumnInt(12);
  stmt.ColumnText(13, out.last_result);
  out.depth = static_cast<int>(stmt.ColumnInt(14));
}

Status Outbox::State::InTransaction(std::string_view what, const std::function<Status()>& work,
                                    Durability durability) {
  FATHOM_RETURN_IF_ERROR(Writable(what));
  const bool lazy = durability == Durability::kLazy;
  if (lazy) FATHOM_RETURN_IF_ERROR(db.Exec("PRAGMA synchronous=NORMAL", what));
  Status s = db.Exec("BEGIN IMMEDIATE", what);
  if (s.ok()) s = work();
  if (s.ok()) s = db.Exec("COMMIT", what);
  if (!s.ok()) db.RollbackIfOpen();
  if (lazy) {
    Status back = db.Exec("PRAGMA synchronous=FULL", what);
    if (s.ok()) s = back;
  }
  return s;
}

Status Outbox::State::Writable(std::string_view what) const {
  if (!read_only) return Status::Ok();
  return Status::Error("rules outbox " + db.path() + ": " + std::string(what) +
                       ": the outbox was opened read-only; only the rules' runner changes it");
}

Outbox::Outbox(std::unique_ptr<State> state) : s_(std::move(state)) {}
Outbox::~Outbox() = default;

const std::string& Outbox::path() const { return s_->db.path(); }

Result<std::unique_ptr<Outbox>> Outbox::Open(const std::string& path, bool read_only) {
  OutboxOptions options;
  options.read_only = read_only;
  return Open(path, std::move(options));
}

Result<std::unique_ptr<Outbox>> Outbox::Open(const std::string& path, OutboxOptions options) {
  auto state = std::make_unique<State>();
  FATHOM_ASSIGN_OR_RETURN(state->db, OpenOutboxDb(path, options.read_only, options.busy_timeout_ms));
  state->read_only = options.read_only;
  state->jitter = options.jitter ? std::move(options.jitter) : UniformJitter();
  return std::unique_ptr<Outbox>(new Outbox(std::move(state)));
}

Status Outbox::Record(std::span<const NewDelivery> deliveries, std::string_view consumer, uint64_t cursor) {
  std::lock_guard lock(s_->mu);
  for (const NewDelivery& d : deliveries) FATHOM_RETURN_IF_ERROR(CheckDelivery(path(), d));
  const std::string_view what = "recording deliveries";
  return s_->InTransaction(what, [&]() -> Status {
    const store::Connection& db = s_->db;
    FATHOM_ASSIGN_OR_RETURN(
        store::Statement insert,
        db.Prepare("INSERT INTO deliveries(id, rule, rule_version, path, payload, event_ids, last_event, state,"
                   " attempts, created, age_from, next, lease_until, finished, last_result, depth)"
                   " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?9, 0, ?8, ?8, ?10, 0, ?11, ?12, ?13) ON CONFLICT(id) DO NOTHING",
                   what));
    std::string id;
    std::string ids;
    for (const NewDelivery& d : deliveries) {
      id = DeliveryId(d.rule, d.rule_version, d.event_ids);
      ids = EventIdsText(d.event_ids);
      insert.BindText(1, id);
      insert.BindText(2, d.rule);
      insert.BindText(3, d.rule_version);
      insert.BindBlob(4, d.path);
      insert.BindText(5, d.payload);
      insert.BindText(6, ids);
      insert.BindInt(7, static_cast<int64_t>(d.event_ids.back()));
      insert.BindInt(8, d.created_ns);
      const bool dead = !d.dead_reason.empty();
      const bool later = !dead && d.not_before_ns > d.created_ns;
      insert.BindInt(9, dead ? kDead : later ? kWaiting : kPending);
      insert.BindInt(10, later ? d.not_before_ns : 0);
      insert.BindInt(11, dead ? d.created_ns : 0);
      insert.BindText(12, d.dead_reason);
      insert.BindInt(13, d.depth);
      FATHOM_RETURN_IF_ERROR(db.StepDone(insert, what));
    }
    FATHOM_ASSIGN_OR_RETURN(store::Statement set,
                            db.Prepare("INSERT INTO cursors(consumer, event_id) VALUES(?1, ?2) ON CONFLICT(consumer)"
                                       " DO UPDATE SET event_id = max(event_id, excluded.event_id)",
                                       "recording the cursor"));
    set.BindText(1, consumer);
    set.BindInt(2, static_cast<int64_t>(cursor));
    return db.StepDone(set, "recording the cursor");
  });
}

Result<uint64_t> Outbox::Cursor(std::string_view consumer) {
  std::lock_guard lock(s_->mu);
  FATHOM_ASSIGN_OR_RETURN(store::Statement get,
                          s_->db.Prepare("SELECT event_id FROM cursors WHERE consumer = ?1", "reading a cursor"));
  get.BindText(1, consumer);
  FATHOM_ASSIGN_OR_RETURN(int64_t cursor, s_->db.QueryInt(get, "reading a cursor", 0));
  return static_cast<uint64_t>(cursor);
}

}  // namespace fathom::rules

// action_journal.cpp — ActionJournal: runs and actions as rows of policy_runs and
// policy_actions, one set of statements for SQLite and PostgreSQL (journal_db.h).
#include <array>

#include "catalog/postgres/pg_uri.h"
#include "fathom/policy.h"
#include "policy/journal_db.h"

namespace fathom::policy {

int64_t IntOf(const SqlValue& v) {
  const auto* n = std::get_if<int64_t>(&v);
  return n != nullptr ? *n : 0;
}

int64_t PolicyLockKey(std::string_view policy) {
  uint64_t h = 1469598103934665603ULL;
  for (char c : policy) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return static_cast<int64_t>(h >> 2);
}

Status PolicyBusy(std::string_view policy) {
  return Status::Error("policy " + std::string(policy) +
                       " is already running on this catalog (another `fathom policy run`, or the daemon): wait for "
                       "it to end, or stop it");
}

std::string TextOf(const SqlValue& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* b = std::get_if<Blob>(&v)) return b->bytes;
  return {};
}

namespace {

constexpr std::array<std::string_view, 5> kRunStates = {"running", "done", "suspended", "limited", "failed"};
constexpr std::array<std::string_view, 3> kActionStates = {"started", "done", "failed"};

template <typename State, size_t N>
State StateFrom(const std::array<std::string_view, N>& names, const std::string& text) {
  for (size_t i = 0; i < N; ++i) {
    if (names[i] == text) return static_cast<State>(i);
  }
  return static_cast<State>(0);
}

constexpr const char* kRunColumns =
    "id, policy, \"user\", host, target, started, finished, state, actions, failed, skipped, volume, message";
constexpr const char* kActionColumns =
    "id, run, policy, rule, action, path, destination, dev, ino, fid, uid, gid, size, state, result, started, finished";

RunRecord RunFrom(const SqlRow& r) {
  RunRecord run;
  run.id = IntOf(r[0]);
  run.policy = TextOf(r[1]);
  run.user = TextOf(r[2]);
  run.host = TextOf(r[3]);
  run.target = TextOf(r[4]);
  run.started_ns = IntOf(r[5]);
  run.finished_ns = IntOf(r[6]);
  run.state = StateFrom<RunRecord::State>(kRunStates, TextOf(r[7]));
  run.actions = static_cast<uint64_t>(IntOf(r[8]));
  run.failed = static_cast<uint64_t>(IntOf(r[9]));
  run.skipped = static_cast<uint64_t>(IntOf(r[10]));
  run.volume = IntOf(r[11]);
  run.message = TextOf(r[12]);
  return run;
}

JournalAction ActionFrom(const SqlRow& r) {
  JournalAction a;
  a.id = IntOf(r[0]);
  a.run = IntOf(r[1]);
  a.policy = TextOf(r[2]);
  a.rule = TextOf(r[3]);
  a.action = TextOf(r[4]);
  a.path = TextOf(r[5]);
  a.destination = TextOf(r[6]);
  a.dev = static_cast<uint64_t>(IntOf(r[7]));
  a.ino = static_cast<uint64_t>(IntOf(r[8]));
  a.fid = TextOf(r[9]);
  a.uid = static_cast<uint32_t>(IntOf(r[10]));
  a.gid = static_cast<uint32_t>(IntOf(r[11]));
  a.size = IntOf(r[12]);
  a.state = StateFrom<JournalAction::State>(kActionStates, TextOf(r[13]));
  a.result = TextOf(r[14]);
  a.started_ns = IntOf(r[15]);
  a.finished_ns = IntOf(r[16]);
  return a;
}

class Journal final : public ActionJournal {
 public:
  Journal(std::unique_ptr<JournalDb> db, bool has_tables) : db_(std::move(db)), has_tables_(has_tables) {}

  Status Lock(std::string_view policy) override { return db_->LockPolicy(policy); }

  Result<std::optional<RunRecord>> Unfinished(std::string_view policy) override {
    if (!has_tables_) return std::optional<RunRecord>();
    FATHOM_ASSIGN_OR_RETURN(auto rows, db_->Query(std::string("SELECT ") + kRunColumns +
                                                      " FROM policy_runs WHERE policy = $1 AND finished = 0"
                                                      " ORDER BY id DESC LIMIT 1",
                                                  {std::string(policy)}, "read the policy journal's runs"));
    if (rows.empty()) return std::optional<RunRecord>();
    return std::optional<RunRecord>(RunFrom(rows[0]));
  }

  Status BeginRun(RunRecord& run) override {
    FATHOM_ASSIGN_OR_RETURN(
        auto rows,
        db_->Query("INSERT INTO policy_runs(policy, \"user\", host, target, started, finished, state, actions,"
                   " failed, skipped, volume, message) VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)"
                   " RETURNING id",
                   {run.policy, run.user, run.host, run.target, run.started_ns, run.finished_ns,
                    std::string(StateName(run.state)), static_cast<int64_t>(run.actions),
                    static_cast<int64_t>(run.failed), static_cast<int64_t>(run.skipped), run.volume, run.message},
                   "record a policy run in the journal"));
    run.id = IntOf(rows.at(0).at(0));
    return Status::Ok();
  }

  Status UpdateRun(const RunRecord& run) override {
    return db_->Query("UPDATE policy_runs SET finished = $2, state = $3, actions = $4, failed = $5, skipped = $6,"
                      " volume = $7, message = $8 WHERE id = $1",
                      {run.id, run.finished_ns, std::string(StateName(run.state)), static_cast<int64_t>(run.actions),
                       static_cast<int64_t>(run.failed), static_cast<int64_t>(run.skipped), run.volume, run.message},
                      "record a policy run's end in the journal")
        .status();
  }

  Status Started(std::span<JournalAction> actions) override {
    return InTransaction([&]() -> Status {
      for (JournalAction& a : actions) {
        FATHOM_ASSIGN_OR_RETURN(
            auto rows,
            db_->Query("INSERT INTO policy_actions(run, policy, rule, action, path, destination, dev, ino, fid, uid,"
                       " gid, size, state, result, started, finished) VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10,"
                       " $11, $12, $13, $14, $15, $16) RETURNING id",
                       {a.run, a.policy, a.rule, a.action, Blob{a.path}, Blob{a.destination},
                        static_cast<int64_t>(a.dev), static_cast<int64_t>(a.ino), a.fid, int64_t{a.uid}, int64_t{a.gid},
                        a.size, std::string(StateName(a.state)), a.result, a.started_ns, a.finished_ns},
                       "journal an action before it runs"));
        a.id = IntOf(rows.at(0).at(0));
      }
      return Status::Ok();
    });
  }

  Status Finished(std::span<const JournalAction> actions) override {
    return InTransaction([&]() -> Status {
      for (const JournalAction& a : actions) {
        FATHOM_RETURN_IF_ERROR(db_->Query("UPDATE policy_actions SET state = $2, result = $3, finished = $4 WHERE id = $1",
                                          {a.id, std::string(StateName(a.state)), a.result, a.finished_ns},
                                          "journal how an action ended")
                                   .status());
      }
      return Status::Ok();
    });
  }

  Status Actions(const ActionQuery& q, const std::function<bool(const JournalAction&)>& fn) override {
    if (!has_tables_) return Status::Ok();
    std::string sql = std::string("SELECT ") + kActionColumns + " FROM policy_actions WHERE started >= $1";
    std::vector<SqlValue> params = {q.since_ns};
    auto add = [&](const char* column, SqlValue v) {
      params.push_back(std::move(v));
      sql += std::string(" AND ") + column + " = $" + std::to_string(params.size());
    };
    if (q.run) add("run", *q.run);
    if (!q.policy.empty()) add("policy", q.policy);
    if (!q.action.empty()) add("action", q.action);
    if (q.state) add("state", std::string(StateName(*q.state)));
    if (!q.path.empty()) {
      params.push_back(Blob{q.path});
      params.push_back(q.path);
      sql += " AND (path = $" + std::to_string(params.size() - 1) + " OR fid = $" + std::to_string(params.size()) + ")";
    }
    if (q.before_id) {
      params.emplace_back(*q.before_id);
      sql += " AND id < $" + std::to_string(params.size());
    }
    sql += " ORDER BY id DESC";
    if (q.limit > 0) {
      params.emplace_back(static_cast<int64_t>(q.limit));
      sql += " LIMIT $" + std::to_string(params.size());
    }
    FATHOM_ASSIGN_OR_RETURN(auto rows, db_->Query(sql, params, "read the policy journal"));
    for (const SqlRow& r : rows) {
      if (!fn(ActionFrom(r))) break;
    }
    return Status::Ok();
  }

  Status Runs(std::string_view policy, int64_t since_ns, const std::function<bool(const RunRecord&)>& fn) override {
    if (!has_tables_) return Status::Ok();
    std::string sql = std::string("SELECT ") + kRunColumns + " FROM policy_runs WHERE started >= $1";
    std::vector<SqlValue> params = {since_ns};
    if (!policy.empty()) {
      sql += " AND policy = $2";
      params.emplace_back(std::string(policy));
    }
    sql += " ORDER BY id DESC";
    FATHOM_ASSIGN_OR_RETURN(auto rows, db_->Query(sql, params, "read the policy journal's runs"));
    for (const SqlRow& r : rows) {
      if (!fn(RunFrom(r))) break;
    }
    return Status::Ok();
  }

 private:
  Status InTransaction(const std::function<Status()>& work) {
    FATHOM_RETURN_IF_ERROR(db_->Begin());
    Status s = work();
    if (s.ok()) s = db_->Commit();
    if (!s.ok()) db_->Rollback();
    return s;
  }

  std::unique_ptr<JournalDb> db_;
  bool has_tables_;
};

}  // namespace

std::string_view StateName(RunRecord::State state) { return kRunStates.at(static_cast<size_t>(state)); }
std::string_view StateName(JournalAction::State state) { return kActionStates.at(static_cast<size_t>(state)); }

Result<std::unique_ptr<JournalDb>> OpenJournalDb(const std::string& catalog_uri, bool read_only) {
  std::unique_ptr<JournalDb> db;
  if (catalog::pg::IsPostgresUri(catalog_uri)) {
    FATHOM_ASSIGN_OR_RETURN(db, OpenPgJournal(catalog_uri, read_only));
  } else {
    std::string path = catalog_uri;
    if (path.starts_with("sqlite:")) path.erase(0, 7);
    FATHOM_ASSIGN_OR_RETURN(db, OpenSqliteJournal(path, read_only));
  }
  if (!read_only) FATHOM_RETURN_IF_ERROR(db->CreateTables());
  return db;
}

Result<std::unique_ptr<ActionJournal>> ActionJournal::Open(const std::string& catalog_uri, bool read_only) {
  FATHOM_ASSIGN_OR_RETURN(std::unique_ptr<JournalDb> db, OpenJournalDb(catalog_uri, read_only));
  FATHOM_ASSIGN_OR_RETURN(bool has_tables, db->HasTables());
  return std::unique_ptr<ActionJournal>(new Journal(std::move(db), has_tables));
}

}  // namespace fathom::policy

#include "catalog/postgres/pg_write_ahead.h"

#include <cstring>

#include "catalog/backend_columns.h"
#include "catalog/postgres/pg_rows.h"

namespace fathom::catalog::pg {
namespace {

// A row of the values an INSERT would take, in COPY's binary format (the same bytes).
void AddRow(CopyRows& rows, std::span<const Param> params) {
  rows.StartRow(static_cast<int>(params.size()));
  for (const Param& p : params) {
    if (p.null()) {
      rows.AddNull();
    } else {
      rows.AddBytes(std::string_view(p.data(), static_cast<size_t>(p.length())));
    }
  }
}

// dev and ino lists as the read-ahead statements take them: "1,2,3" (bigint as text).
std::string Joined(std::span<const Identity> objects, uint64_t Identity::*field) {
  std::string out;
  for (const Identity& o : objects) {
    if (!out.empty()) out += ',';
    out += std::to_string(static_cast<int64_t>(o.*field));
  }
  return out;
}

}  // namespace

std::string WriteAhead::NameKey(EntryId parent, std::string_view name) {
  std::string key(sizeof parent, '\0');
  std::memcpy(key.data(), &parent, sizeof parent);
  key.append(name);
  return key;
}

void WriteAhead::HoldEntry(const EntryRow& row, std::span<const Param> entry_params) {
  AddRow(entries_, entry_params);
  held_[row.id] = row;
  const Key key{row.attrs.dev, row.attrs.ino};
  held_identity_[key] = row.id;
  read_entries_.erase(key);  // the held row answers now, the table once it is sent
  inserted_.insert(row.id);
}

void WriteAhead::HoldName(const NameRow& row, std::span<const Param> name_params) {
  AddRow(names_, name_params);
  inserted_names_[NameKey(row.parent, row.name)] = row.id;
}

Status WriteAhead::Flush(Session& session) {
  if (entries_.rows() > 0) {
    FATHOM_RETURN_IF_ERROR(
        session.Copy(std::string("COPY entries(") + kEntryColumns + ") FROM STDIN (FORMAT binary)", entries_,
                     "insert entries").status());
  }
  if (names_.rows() > 0) {
    FATHOM_RETURN_IF_ERROR(
        session.Copy("COPY names(parent, name, id, gen) FROM STDIN (FORMAT binary)", names_, "insert names").status());
  }
  entries_.Clear();
  names_.Clear();
  held_.clear();
  held_identity_.clear();
  return Status::Ok();
}

void WriteAhead::Forget() {
  inserted_.clear();
  inserted_names_.clear();
  read_entries_.clear();
  read_removals_.clear();
}

void WriteAhead::End() {
  entries_.Clear();
  names_.Clear();
  held_.clear();
  held_identity_.clear();
  Forget();
}

std::optional<std::optional<EntryRow>> WriteAhead::EntryById(EntryId id) const {
  if (auto it = held_.find(id); it != held_.end()) return std::optional<EntryRow>(it->second);
  return std::nullopt;
}

std::optional<std::optional<EntryRow>> WriteAhead::EntryByIdentity(uint64_t dev, uint64_t ino) const {
  const Key key{dev, ino};
  if (auto it = held_identity_.find(key); it != held_identity_.end()) return EntryById(it->second);
  if (auto it = read_entries_.find(key); it != read_entries_.end()) return it->second;
  return std::nullopt;
}

std::optional<EntryId> WriteAhead::NameTarget(EntryId parent, std::string_view name) const {
  if (auto it = inserted_names_.find(NameKey(parent, name)); it != inserted_names_.end()) return it->second;
  if (inserted_.contains(parent)) return EntryId{0};
  return std::nullopt;
}

std::optional<int64_t> WriteAhead::LatestRemoval(uint64_t dev, uint64_t ino) const {
  if (auto it = read_removals_.find(Key{dev, ino}); it != read_removals_.end()) return it->second;
  return std::nullopt;
}

Status WriteAhead::Read(Session& session, const Statement& entries, const Statement& removals,
                        std::span<const Identity> objects) {
  if (objects.empty()) return Status::Ok();
  const std::string devs = Joined(objects, &Identity::dev);
  const std::string inos = Joined(objects, &Identity::ino);
  const Param params[] = {Param::Text(devs), Param::Text(inos)};
  FATHOM_ASSIGN_OR_RETURN(Rows found, session.Run(entries, params));
  FATHOM_ASSIGN_OR_RETURN(Rows removed, session.Run(removals, params));
  for (const Identity& o : objects) {
    const Key key{o.dev, o.ino};
    if (!held_identity_.contains(key)) read_entries_[key] = std::nullopt;
    read_removals_[key] = 0;
  }
  for (int i = 0; i < found.size(); ++i) {
    EntryRow row = ReadEntry(found, i, 0);
    const Key key{row.attrs.dev, row.attrs.ino};
    if (!held_identity_.contains(key)) read_entries_[key] = std::move(row);
  }
  for (int i = 0; i < removed.size(); ++i) {
    read_removals_[Key{static_cast<uint64_t>(removed.Int(i, 0)), static_cast<uint64_t>(removed.Int(i, 1))}] =
        removed.Int(i, 2);
  }
  return Status::Ok();
}

}  // namespace fathom::catalog::pg

// pg_write_ahead.h — what lets the PostgreSQL backend write a scan's new objects without a
// round trip per object: new entries and names are held and sent in bulk (binary COPY), and
// the reads a Put makes of them are answered here.
//
// Within one write (a transaction):
//  - InsertEntry/InsertName rows are held, then sent by Flush() in two COPYs (entries first,
//    then names), or sooner once they hold kSendBytes (memory stays bounded whatever the
//    transaction). EntryById/EntryByIdentity of a held entry is answered from it.
//  - The names inserted, and the entries inserted (held or sent), are remembered: a name
//    under an entry inserted in this write is one of the names inserted in this write (no
//    other transaction can see that entry; a rename, which could move a name there, makes
//    the backend Forget()). So NameTarget under such a parent needs no round trip.
//  - Read(), given the objects a scan is about to put, reads in one round trip each the
//    entries and the latest removals the catalog holds of them; the backend answers
//    EntryByIdentity and LatestRemoval of those objects from here until they may change:
//    an entry inserted for one of them replaces what was read of it (held, then in the
//    table), and any other change of entries, names or removals makes the backend Forget().
// An answer given here is the one the database would give after Flush(); a lookup not
// answered here goes to the database, which then needs no Flush() first (what is held
// cannot match it). Every other call of the backend Flushes first.
//
// One per backend; one thread at a time, like the session.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "catalog/catalog_backend.h"
#include "catalog/postgres/copy_rows.h"
#include "catalog/postgres/session.h"

namespace fathom::catalog::pg {

// The COPY data held before it is sent even if no other call needs it: about 20,000 entries,
// enough for COPY's speed (pg_benchmark: 324,000 rows/s by 10,000, 345,000 by 100,000).
inline constexpr size_t kSendBytes = 4 << 20;

class WriteAhead {
 public:
  // Holds the rows; `entry_params`/`name_params` are the row's values as the INSERTs take them.
  void HoldEntry(const EntryRow& row, std::span<const Param> entry_params);
  void HoldName(const NameRow& row, std::span<const Param> name_params);
  bool holding() const { return entries_.rows() + names_.rows() > 0; }
  // The bytes of the COPY data held.
  size_t held_bytes() const { return entries_.body().size() + names_.body().size(); }

  // Sends what is held (COPY); ok when nothing is. What is remembered and read ahead stays.
  Status Flush(Session& session);
  // Forgets everything known (after a change that may contradict it). Call Flush() first.
  void Forget();
  // The end of the write: what is held is dropped (rolled back) or was flushed (committed).
  void End();

  // The answers held here, nullopt when the database must be asked.
  std::optional<std::optional<EntryRow>> EntryById(EntryId id) const;
  std::optional<std::optional<EntryRow>> EntryByIdentity(uint64_t dev, uint64_t ino) const;
  std::optional<EntryId> NameTarget(EntryId parent, std::string_view name) const;
  std::optional<int64_t> LatestRemoval(uint64_t dev, uint64_t ino) const;

  // The catalog's entries and latest removals of `objects`, read ahead (two round trips).
  Status Read(Session& session, const Statement& entries, const Statement& removals,
              std::span<const Identity> objects);

 private:
  using Key = std::pair<uint64_t, uint64_t>;  // dev, ino
  struct KeyHash {
    size_t operator()(const Key& k) const { return std::hash<uint64_t>()(k.first * 0x9e3779b97f4a7c15ULL ^ k.second); }
  };

  // The key of a name in inserted_names_: the parent's 8 bytes, then the name.
  static std::string NameKey(EntryId parent, std::string_view name);

  CopyRows entries_, names_;
  std::unordered_map<EntryId, EntryRow> held_;                 // held entries by id
  std::unordered_map<Key, EntryId, KeyHash> held_identity_;   // ... by identity
  std::unordered_set<EntryId> inserted_;                       // entries inserted in this write
  std::unordered_map<std::string, EntryId> inserted_names_;    // NameKey(parent, name) -> id
  std::unordered_map<Key, std::optional<EntryRow>, KeyHash> read_entries_;
  std::unordered_map<Key, int64_t, KeyHash> read_removals_;
};

}  // namespace fathom::catalog::pg

// objects.cpp — the objects a process has open, by hid_t: H5Prov's homomorphic state.
//
// Each open (or create) of a file, group, dataset, attribute or named datatype gets a new
// object id and an entry, keyed by its hid_t, holding what its calls need (type size, extent)
// and what is counted on it (accesses, bytes, time). The entry is removed, and its kClosed
// record written, on every path that frees the hid_t: H5*close, H5Idec_ref to zero, its
// file's strong close, the process's end. HDF5 hands a freed hid_t out again; a new object
// under a hid_t still in the table (a close the tracer did not see) first closes the old one,
// so that no object inherits another's name.
//
// The table is fixed (kSlots entries, open addressing with linear probing and deletion by
// backward shift, so that it never fills with tombstones), mapped at first use, under one lock
// held for a lookup or an update, never across an HDF5 call.
#include <string.h>
#include <sys/mman.h>

#include "h5prov/preload/h5_real.h"
#include "h5prov/preload/tracer.h"

namespace fathom::h5prov::preload {
namespace {

namespace f = format;

constexpr size_t kSlots = 1 << 14;
constexpr size_t kMaxEntries = kSlots * 3 / 4;

struct Entry {
  h5::hid_t hid;  // 0: free
  uint64_t id;
  uint64_t file;
  uint8_t kind;
  bool variable_length;
  uint64_t type_size;
  uint64_t points;
  int rank;
  h5::hsize_t dims[f::kMaxRank];
  uint64_t reads, writes, read_mem, read_file, write_mem, write_file, read_ns, write_ns, calls, inc_refs;
  bool discovered;
};

SpinLock g_lock;
Entry* g_table = nullptr;
size_t g_entries = 0;
size_t g_members = 0;  // entries that are not files: none, and a file's close has nothing to look for
std::atomic<uint64_t> g_next_id{1};

size_t SlotOf(h5::hid_t hid) {
  uint64_t h = static_cast<uint64_t>(hid);
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return static_cast<size_t>(h) & (kSlots - 1);
}

bool Map() {
  if (g_table != nullptr) return true;
  void* memory = mmap(nullptr, kSlots * sizeof(Entry), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return false;
  g_table = static_cast<Entry*>(memory);
  return true;
}

// The entry of `hid`, or nullptr. Called with the lock held.
Entry* Lookup(h5::hid_t hid) {
  if (g_table == nullptr || hid <= 0) return nullptr;
  for (size_t i = SlotOf(hid);; i = (i + 1) & (kSlots - 1)) {
    if (g_table[i].hid == hid) return &g_table[i];
    if (g_table[i].hid == 0) return nullptr;
  }
}

// Removes the entry at `e`, moving later entries of its probe chain back. Lock held.
void Remove(Entry* e) {
  if (e->kind != f::kFile) --g_members;
  size_t i = static_cast<size_t>(e - g_table);
  size_t j = i;
  for (;;) {
    j = (j + 1) & (kSlots - 1);
    if (g_table[j].hid == 0) break;
    const size_t home = SlotOf(g_table[j].hid);
    // Entry j may fill hole i unless its home lies cyclically in (i, j].
    const bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
    if (!stays) {
      g_table[i] = g_table[j];
      i = j;
    }
  }
  g_table[i].hid = 0;
  --g_entries;
}

void WriteClosed(const Entry& e, f::CloseHow how, uint64_t stored_size_plus_one) {
  RecordBuilder r(f::kClosed);
  r.Varint(e.id);
  r.Varint(how);
  r.Varint(Now());
  r.Varint(e.reads);
  r.Varint(e.writes);
  r.Varint(e.read_mem);
  r.Varint(e.read_file);
  r.Varint(e.write_mem);
  r.Varint(e.write_file);
  r.Varint(e.read_ns);
  r.Varint(e.write_ns);
  r.Varint(e.calls);
  r.Varint(e.inc_refs);
  r.Varint(stored_size_plus_one);
  r.Varint(static_cast<uint64_t>(e.rank));
  for (int d = 0; d < e.rank; ++d) r.Varint(e.dims[d]);
  r.Commit();
}

void WriteObject(uint64_t id, h5::hid_t hid, const ObjectInfo& info) {
  RecordBuilder r(f::kObject);
  r.Varint(id);
  r.Varint(info.kind);
  r.Varint(info.file);
  r.Signed(hid);
  r.Varint(info.address);
  r.String(info.path);
  r.String(info.name);
  if (info.kind == f::kFile) {
    r.Varint(info.dev);
    r.Varint(info.ino);
  }
  if (info.kind == f::kDataset || info.kind == f::kAttribute) {
    r.Signed(info.type_class);
    r.Varint(info.type_size);
    r.Varint(info.variable_length ? 1 : 0);
    r.Varint(static_cast<uint64_t>(info.rank));
    for (int d = 0; d < info.rank; ++d) r.Varint(info.dims[d]);
    for (int d = 0; d < info.rank; ++d) r.Varint(info.maxdims[d] == h5::kUnlimited ? 0 : info.maxdims[d] + 1);
  }
  if (info.kind == f::kDataset) {
    r.Signed(info.layout);
    r.Varint(static_cast<uint64_t>(info.chunk_rank));
    for (int d = 0; d < info.chunk_rank; ++d) r.Varint(info.chunk[d]);
    r.Varint(static_cast<uint64_t>(info.nfilters));
    for (int i = 0; i < info.nfilters; ++i) r.Signed(info.filters[i]);
  }
  r.Commit();
}

// The objects of `file` (not the file itself) from slot *cursor on, at most `max` of them into
// `out`; *cursor moves past the slots read (kSlots: all read).
size_t HidsOfFile(uint64_t file, size_t* cursor, h5::hid_t* out, size_t max) {
  size_t n = 0;
  Hold hold(g_lock);
  if (g_table == nullptr) {
    *cursor = kSlots;
    return 0;
  }
  for (size_t& i = *cursor; i < kSlots && n < max; ++i) {
    const Entry& e = g_table[i];
    if (e.hid != 0 && e.file == file && e.kind != f::kFile) out[n++] = e.hid;
  }
  return n;
}

uint64_t Points(int rank, const h5::hsize_t* dims) {
  uint64_t n = 1;
  for (int d = 0; d < rank; ++d) n *= dims[d];
  return n;
}

}  // namespace

uint64_t AddObject(h5::hid_t hid, const ObjectInfo& info) {
  const uint64_t id = g_next_id.fetch_add(1, std::memory_order_relaxed);
  Entry replaced;
  bool unseen = false;
  {
    Hold hold(g_lock);
    if (Map()) {
      Entry* e = Lookup(hid);
      if (e != nullptr) {
        replaced = *e;
        unseen = true;
      } else if (g_entries < kMaxEntries) {
        size_t i = SlotOf(hid);
        while (g_table[i].hid != 0) i = (i + 1) & (kSlots - 1);
        e = &g_table[i];
        ++g_entries;
      }
      if (e != nullptr) {
        if (unseen && replaced.kind != f::kFile) --g_members;
        if (info.kind != f::kFile) ++g_members;
        memset(e, 0, sizeof(*e));
        e->hid = hid;
        e->id = id;
        e->file = info.kind == f::kFile ? id : info.file;
        e->kind = info.kind;
        e->variable_length = info.variable_length;
        e->type_size = info.type_size;
        e->rank = info.rank;
        memcpy(e->dims, info.dims, sizeof(e->dims));
        e->points = Points(info.rank, info.dims);
        e->discovered = info.discovered;
      }
    }
  }
  if (unseen) WriteClosed(replaced, f::kClosedUnseen, 0);
  WriteObject(id, hid, info);
  return id;
}

bool FindObject(h5::hid_t hid, ObjectView* view) {
  Hold hold(g_lock);
  const Entry* e = Lookup(hid);
  if (e == nullptr) return false;
  view->id = e->id;
  view->kind = e->kind;
  view->file = e->file;
  view->type_size = e->type_size;
  view->variable_length = e->variable_length;
  view->points = e->points;
  view->rank = e->rank;
  view->one_reference = !e->discovered && e->inc_refs == 0;
  return true;
}

void Account(h5::hid_t hid, Access access, uint64_t mem_bytes, uint64_t file_bytes, uint64_t ns) {
  Hold hold(g_lock);
  Entry* e = Lookup(hid);
  if (e == nullptr) return;
  ++e->calls;
  if (access == Access::kRead) {
    ++e->reads;
    e->read_mem += mem_bytes;
    e->read_file += file_bytes;
    e->read_ns += ns;
  } else if (access == Access::kWrite) {
    ++e->writes;
    e->write_mem += mem_bytes;
    e->write_file += file_bytes;
    e->write_ns += ns;
  }
}

void CountIncRef(h5::hid_t hid) {
  Hold hold(g_lock);
  if (Entry* e = Lookup(hid); e != nullptr) ++e->inc_refs;
}

void SetExtent(h5::hid_t hid, int rank, const h5::hsize_t* dims, uint64_t points) {
  Hold hold(g_lock);
  Entry* e = Lookup(hid);
  if (e == nullptr) return;
  e->rank = rank;
  memcpy(e->dims, dims, sizeof(h5::hsize_t) * static_cast<size_t>(rank));
  e->points = points;
}

void CloseObject(h5::hid_t hid, f::CloseHow how, uint64_t stored_size_plus_one) {
  Entry closed;
  {
    Hold hold(g_lock);
    Entry* e = Lookup(hid);
    if (e == nullptr) return;
    closed = *e;
    Remove(e);
  }
  WriteClosed(closed, how, stored_size_plus_one);
}

void CloseObjectsOfFile(uint64_t file) {
  auto is_valid = real::H5Iis_valid();
  if (is_valid == nullptr) return;
  {
    Hold hold(g_lock);
    if (g_members == 0) return;  // the usual case: the program closed everything first
  }
  // Removal moves entries back along their probe chains, so a pass that closed something may
  // have stepped over one: passes repeat until one closes nothing.
  for (bool closed_any = true; closed_any;) {
    closed_any = false;
    constexpr size_t kBatch = 256;
    h5::hid_t hids[kBatch];
    for (size_t cursor = 0; cursor < kSlots;) {
      const size_t n = HidsOfFile(file, &cursor, hids, kBatch);
      for (size_t k = 0; k < n; ++k) {
        bool valid;
        {
          Quiet quiet;
          valid = is_valid(hids[k]) > 0;
        }
        if (!valid) {
          CloseObject(hids[k], f::kClosedWithFile, 0);
          closed_any = true;
        }
      }
    }
  }
}

void NoteRenamed(h5::hid_t hid) {
  auto get_name = real::H5Iget_name();
  if (get_name == nullptr) return;
  char path[1024];
  {
    Quiet quiet;
    if (get_name(hid, path, sizeof(path)) <= 0) return;
  }
  uint64_t id = 0;
  {
    Hold hold(g_lock);
    const Entry* e = Lookup(hid);
    if (e == nullptr) return;
    id = e->id;
  }
  RecordBuilder renamed(f::kRenamed);
  renamed.Varint(id);
  renamed.String(path);
  renamed.Commit();
}

void CloseAllAtExit() {
  if (g_table == nullptr) return;
  // The scan stops at the last entry: a program that closed everything costs nothing here
  // (the table's untouched pages are never read).
  for (size_t i = 0; i < kSlots; ++i) {
    Entry closed;
    {
      Hold hold(g_lock);
      if (g_entries == 0) return;
      if (g_table[i].hid == 0) continue;
      closed = g_table[i];
      g_table[i].hid = 0;  // the whole table goes: no chain needs mending
      --g_entries;
      if (closed.kind != f::kFile) --g_members;
    }
    WriteClosed(closed, f::kClosedAtExit, 0);
  }
}

uint64_t OpenObjects() {
  Hold hold(g_lock);
  return g_entries;
}

void LockObjects() { g_lock.lock(); }
void UnlockObjects() { g_lock.unlock(); }
void ResetObjectsLock() { g_lock.Reset(); }

}  // namespace fathom::h5prov::preload

#include "catalog/postgres/pg_rows.h"

#include "catalog/backend_columns.h"

namespace fathom::catalog::pg {

std::vector<Type> AttrTypes() {
  std::vector<Type> types(11, Type::kInt);  // dev .. ctime
  types.push_back(Type::kBytes);            // symlink
  types.push_back(Type::kInt);              // projid
  types.push_back(Type::kText);             // fid
  types.insert(types.end(), 3, Type::kInt);  // mdt, stripe_count, stripe_size
  types.push_back(Type::kText);             // pool
  types.push_back(Type::kText);             // osts
  return types;
}

void AddAttrParams(std::vector<Param>& params, const Attrs& a, std::string& osts) {
  for (int64_t v : {static_cast<int64_t>(a.dev), static_cast<int64_t>(a.ino), int64_t{a.mode},
                    int64_t{a.uid}, int64_t{a.gid}, static_cast<int64_t>(a.nlink), a.size, a.blocks,
                    a.atime_ns, a.mtime_ns, a.ctime_ns}) {
    params.push_back(Param::Int(v));
  }
  params.push_back(a.symlink.empty() ? Param::Null(Type::kBytes) : Param::Bytes(a.symlink));
  params.push_back(a.projid ? Param::Int(*a.projid) : Param::Null(Type::kInt));
  if (a.lustre) {
    const LustreInfo& l = *a.lustre;
    osts = JoinOsts(l.osts);
    params.push_back(Param::Text(l.fid));
    params.push_back(Param::Int(l.mdt_index));
    params.push_back(Param::Int(l.stripe_count));
    params.push_back(Param::Int(static_cast<int64_t>(l.stripe_size)));
    params.push_back(Param::Text(l.pool));
    params.push_back(Param::Text(osts));
  } else {
    for (Type type : {Type::kText, Type::kInt, Type::kInt, Type::kInt, Type::kText, Type::kText}) {
      params.push_back(Param::Null(type));
    }
  }
}

Attrs ReadAttrs(const Rows& r, int row, int first) {
  Attrs a;
  a.dev = static_cast<uint64_t>(r.Int(row, first));
  a.ino = static_cast<uint64_t>(r.Int(row, first + 1));
  a.mode = static_cast<uint32_t>(r.Int(row, first + 2));
  a.uid = static_cast<uint32_t>(r.Int(row, first + 3));
  a.gid = static_cast<uint32_t>(r.Int(row, first + 4));
  a.nlink = static_cast<uint64_t>(r.Int(row, first + 5));
  a.size = r.Int(row, first + 6);
  a.blocks = r.Int(row, first + 7);
  a.atime_ns = r.Int(row, first + 8);
  a.mtime_ns = r.Int(row, first + 9);
  a.ctime_ns = r.Int(row, first + 10);
  if (!r.IsNull(row, first + 11)) a.symlink = std::string(r.Bytes(row, first + 11));
  if (!r.IsNull(row, first + 12)) a.projid = static_cast<uint32_t>(r.Int(row, first + 12));
  if (!r.IsNull(row, first + 13)) {
    LustreInfo l;
    l.fid = std::string(r.Bytes(row, first + 13));
    l.mdt_index = static_cast<uint32_t>(r.Int(row, first + 14));
    l.stripe_count = static_cast<uint32_t>(r.Int(row, first + 15));
    l.stripe_size = static_cast<uint64_t>(r.Int(row, first + 16));
    l.pool = std::string(r.Bytes(row, first + 17));
    l.osts = SplitOsts(r.Bytes(row, first + 18));
    a.lustre = std::move(l);
  }
  return a;
}

EntryRow ReadEntry(const Rows& r, int row, int first) {
  EntryRow entry;
  entry.id = r.Int(row, first);
  entry.attrs = ReadAttrs(r, row, first + 1);
  entry.seen_ns = r.Int(row, first + 1 + kAttrColumns);
  entry.generation = static_cast<uint64_t>(r.Int(row, first + 2 + kAttrColumns));
  return entry;
}

NameRow ReadName(const Rows& r, int row) {
  return NameRow{r.Int(row, 0), std::string(r.Bytes(row, 1)), r.Int(row, 2),
                 static_cast<uint64_t>(r.Int(row, 3))};
}

Totals ReadTotals(const Rows& r, int row, int first) {
  Totals t;
  t.files = static_cast<uint64_t>(r.Int(row, first));
  t.dirs = static_cast<uint64_t>(r.Int(row, first + 1));
  t.symlinks = static_cast<uint64_t>(r.Int(row, first + 2));
  t.others = static_cast<uint64_t>(r.Int(row, first + 3));
  t.size = r.Int(row, first + 4);
  t.blocks = r.Int(row, first + 5);
  t.max_mtime_ns = r.Int(row, first + 6);
  return t;
}

std::string Placeholders(int first, int n) {
  std::string text;
  for (int i = 0; i < n; ++i) {
    if (i > 0) text += ", ";
    text += "$" + std::to_string(first + i);
  }
  return text;
}

}  // namespace fathom::catalog::pg

// source_state.cpp — ReadStoreState, ReadCatalogState.
#include "web/source_state.h"

#include <sys/stat.h>

#include "web/serve_context.h"

namespace fathom::web {
namespace {

int64_t FileBytes(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_size : 0;
}

template <typename L, typename T>
Result<T> Kept(L& lease, Result<T> r) {
  if (!r.ok()) lease.Drop();
  return r;
}

}  // namespace

Result<StoreState> ReadStoreState(ServeContext& ctx) {
  if (!ctx.stores) return Status::Error(kNoStore);
  FATHOM_ASSIGN_OR_RETURN(auto store, ctx.stores->Acquire());
  StoreState s;
  FATHOM_ASSIGN_OR_RETURN(s.first_id, Kept(store, store->FirstId()));
  FATHOM_ASSIGN_OR_RETURN(s.last_id, Kept(store, store->LastId()));
  FATHOM_ASSIGN_OR_RETURN(s.consumers, Kept(store, store->ConsumerPositions()));
  s.bytes = FileBytes(ctx.options.store) + FileBytes(ctx.options.store + "-wal");
  return s;
}

Result<nlohmann::json> ReadAggregatorState(ServeContext& ctx) {
  return AggregatorCounters(ctx.options.from, ctx.options.from_keys, std::chrono::seconds(2));
}

Result<CatalogState> ReadCatalogState(ServeContext& ctx, std::optional<uint64_t> store_last_id) {
  if (!ctx.catalogs) return Status::Error(kNoCatalog);
  FATHOM_ASSIGN_OR_RETURN(auto cat, ctx.catalogs->Acquire());
  CatalogState s;
  FATHOM_ASSIGN_OR_RETURN(s.info, Kept(cat, cat->Info()));
  FATHOM_ASSIGN_OR_RETURN(s.commits, Kept(cat, cat->Commits()));
  FATHOM_ASSIGN_OR_RETURN(s.last_applied, Kept(cat, cat->LastApplied(ctx.options.catalog_stream)));
  if (store_last_id && s.last_applied > 0) {
    s.lag_events = *store_last_id > s.last_applied ? *store_last_id - s.last_applied : 0;
  }
  return s;
}

}  // namespace fathom::web

#include "cli/catalog_args.h"

#include <unistd.h>

namespace fathom::cli {

void AddCatalogOption(CLI::App& cmd, std::string& uri) {
  uri = catalog::CatalogOptions{}.uri;
  cmd.add_option("--catalog", uri,
                 "The catalog: FILE or sqlite:FILE, or postgresql://USER@HOST/DB (default: "
                 "$FATHOM_CATALOG, else fathom-catalog.db)")
      ->envname("FATHOM_CATALOG")
      ->type_name("URI");
}

Result<std::unique_ptr<catalog::Catalog>> OpenCatalog(const std::string& uri, bool read_only) {
  catalog::CatalogOptions options;
  options.uri = uri;
  options.read_only = read_only;
  auto opened = catalog::Catalog::Open(options);
  if (!opened.ok()) {
    return Status::Error("cannot open the catalog " + uri + ": " + opened.status().message() +
                         " (name another with --catalog or FATHOM_CATALOG)");
  }
  return std::move(opened).value();
}

void AddAsUserOption(CLI::App& cmd, std::string& user) {
  cmd.add_option("--as-user", user,
                 "Answer as USER (a name or uid) would see the file system: only what its "
                 "permissions let it list (root only; others always see their own view)")
      ->type_name("USER");
}

Result<std::unique_ptr<catalog::Catalog>> OpenCatalogForQueries(const std::string& uri,
                                                                const std::string& as_user) {
  const bool root = ::geteuid() == 0;
  if (!as_user.empty() && !root) {
    return Status::Error("--as-user needs root: a user other than root always sees what its own "
                         "permissions let it list (drop --as-user)");
  }
  catalog::Caller caller = catalog::Caller::Current();
  if (!as_user.empty()) {
    FATHOM_ASSIGN_OR_RETURN(caller, catalog::Caller::Named(as_user));
  }
  FATHOM_ASSIGN_OR_RETURN(std::unique_ptr<catalog::Catalog> opened, OpenCatalog(uri, /*read_only=*/true));
  if (root && as_user.empty()) return opened;
  return catalog::VisibleTo(std::move(opened), std::move(caller));
}

}  // namespace fathom::cli

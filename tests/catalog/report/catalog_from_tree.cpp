#include "catalog/report/catalog_from_tree.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <memory>
#include <vector>

namespace fathom::testing {
namespace {

Result<std::vector<std::string>> Names(const std::string& dir) {
  std::unique_ptr<DIR, int (*)(DIR*)> d(opendir(dir.c_str()), closedir);
  if (!d) return Status::FromErrno(errno, "opendir " + dir);
  std::vector<std::string> names;
  while (dirent* e = readdir(d.get())) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  return names;
}

Status FillBelow(catalog::Batch& batch, catalog::EntryId parent, const std::string& dir,
                 const catalog::Observation& seen) {
  FATHOM_ASSIGN_OR_RETURN(std::vector<std::string> names, Names(dir));
  for (const std::string& name : names) {
    std::string path = dir + "/" + name;
    FATHOM_ASSIGN_OR_RETURN(catalog::Attrs attrs, LstatAttrs(path));
    FATHOM_ASSIGN_OR_RETURN(catalog::EntryId id, batch.Put(parent, name, attrs, seen));
    if (S_ISDIR(attrs.mode)) {
      FATHOM_RETURN_IF_ERROR(FillBelow(batch, id, path, seen));
    }
  }
  return Status::Ok();
}

}  // namespace

Result<catalog::Attrs> LstatAttrs(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return Status::FromErrno(errno, "lstat " + path);
  catalog::Attrs a = catalog::AttrsFromStat(st);
  if (S_ISLNK(st.st_mode)) {
    std::vector<char> target(static_cast<size_t>(std::max<off_t>(st.st_size, 0)) + 1);
    ssize_t n = readlink(path.c_str(), target.data(), target.size());
    if (n < 0) return Status::FromErrno(errno, "readlink " + path);
    a.symlink.assign(target.data(), static_cast<size_t>(n));
  }
  return a;
}

Status FillCatalogFromTree(catalog::Catalog& catalog, const std::string& root) {
  catalog::Observation seen{
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::system_clock::now().time_since_epoch())
          .count(),
      0};
  FATHOM_ASSIGN_OR_RETURN(catalog::Attrs attrs, LstatAttrs(root));
  FATHOM_ASSIGN_OR_RETURN(std::unique_ptr<catalog::Batch> batch, catalog.Begin());
  FATHOM_ASSIGN_OR_RETURN(catalog::EntryId id, batch->PutRoot(root, attrs, seen));
  FATHOM_RETURN_IF_ERROR(FillBelow(*batch, id, root, seen));
  return batch->Commit();
}

Result<std::unique_ptr<catalog::Catalog>> CatalogOfTree(const std::string& db,
                                                        const std::string& root) {
  catalog::CatalogOptions options;
  options.uri = db;
  FATHOM_ASSIGN_OR_RETURN(std::unique_ptr<catalog::Catalog> catalog, catalog::Catalog::Open(options));
  FATHOM_RETURN_IF_ERROR(FillCatalogFromTree(*catalog, root));
  return catalog;
}

}  // namespace fathom::testing

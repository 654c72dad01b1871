// entry_attributes.cpp — EntryAttributes::Of.
#include "rules/entry_attributes.h"

#include <sys/stat.h>

namespace fathom::rules {

const catalog::Attrs* EntryAttributes::Of(AttributeSource source) {
  switch (source) {
    case AttributeSource::kNone: return nullptr;
    case AttributeSource::kLive:
      if (!live_read_) {
        live_read_ = true;
        struct stat st {};
        if (lstat(event_.path.c_str(), &st) == 0) live_ = catalog::AttrsFromStat(st);
      }
      return live_ ? &*live_ : nullptr;
    case AttributeSource::kCatalog:
      if (!catalog_read_ && catalog_ != nullptr) {
        catalog_read_ = true;
        auto node = catalog_->Stat(event_.path);
        if (node.ok() && node->has_value()) cataloged_ = (*node)->attrs;
      }
      return cataloged_ ? &*cataloged_ : nullptr;
  }
  return nullptr;
}

}  // namespace fathom::rules

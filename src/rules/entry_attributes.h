// entry_attributes.h — the attributes of an event's entry for the triggers that read them:
// from the live file system (lstat of the event's path) or from the catalog, each source read
// at most once per event.
//
// Ownership: keeps references to the event and the catalog (may be null). Threading: one
// thread.
#pragma once

#include <optional>

#include "fathom/catalog.h"
#include "fathom/rules.h"

namespace fathom::rules {

class EntryAttributes {
 public:
  EntryAttributes(const Event& event, catalog::Catalog* catalog) : event_(event), catalog_(catalog) {}
  // Null when the source is none, or the entry could not be read there (it is gone).
  const catalog::Attrs* Of(AttributeSource source);

 private:
  const Event& event_;
  catalog::Catalog* catalog_;
  bool live_read_ = false, catalog_read_ = false;
  std::optional<catalog::Attrs> live_, cataloged_;
};

}  // namespace fathom::rules

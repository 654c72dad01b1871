#include "fathom/source.h"
#include "sources/fanotify/fanotify_source.h"
#include "sources/inotify/inotify_source.h"

namespace fathom {

void RegisterBuiltinSources(SourceRegistry& registry) {
  registry.Register(InotifySourceInfo());
  registry.Register(FanotifySourceInfo());
}

}  // namespace fathom

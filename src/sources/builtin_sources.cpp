#include "fathom/source.h"
#include "sources/fanotify/fanotify_source.h"
#include "sources/inotify/inotify_source.h"
#include "sources/lustre/lustre_source.h"
#include "sources/poll/poll_source.h"

namespace fathom {

void RegisterBuiltinSources(SourceRegistry& registry) {
  registry.Register(InotifySourceInfo());
  registry.Register(FanotifySourceInfo());
  registry.Register(LustreSourceInfo());
  registry.Register(PollSourceInfo());
}

}  // namespace fathom

#include "fathom/format.h"

#include "format/formatters.h"

namespace fathom {

Result<Format> ParseFormat(std::string_view name) {
  if (name == "inotify") return Format::kInotify;
  if (name == "json") return Format::kJson;
  if (name == "kqueue") return Format::kKqueue;
  if (name == "fsevents") return Format::kFsevents;
  if (name == "windows") return Format::kWindows;
  return Status::Error("unknown format '" + std::string(name) +
                       "' (choose inotify, json, kqueue, fsevents or windows)");
}

std::unique_ptr<Formatter> MakeFormatter(Format format) {
  switch (format) {
    case Format::kInotify:
      return internal::MakeInotifyFormatter();
    case Format::kJson:
      return internal::MakeJsonFormatter();
    case Format::kKqueue:
      return internal::MakeKqueueFormatter();
    case Format::kFsevents:
      return internal::MakeFseventsFormatter();
    case Format::kWindows:
      return internal::MakeWindowsFormatter();
  }
  return internal::MakeInotifyFormatter();
}

}  // namespace fathom

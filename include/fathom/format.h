// format.h — turning standard events into text for people and tools.
//
// Formats: inotify (`ROOT KINDS /relative`, FSMonitor Table II / inotifywait -r), json (one
// object per line), and the vocabularies of kqueue, FSEvents and .NET FileSystemWatcher
// (mapping tables in docs/formats.md). A Formatter is stateful (the windows format pairs the
// two halves of a rename into one Renamed line), so use one per output stream, one thread.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "fathom/event.h"
#include "fathom/status.h"

namespace fathom {

enum class Format { kInotify, kJson, kKqueue, kFsevents, kWindows };

Result<Format> ParseFormat(std::string_view name);

class Formatter {
 public:
  virtual ~Formatter() = default;
  // Appends zero or more complete lines ('\n'-terminated) for `event` to `out`.
  virtual void Write(const Event& event, std::string& out) = 0;
  // Appends whatever is still held back (an unpaired rename half) to `out`.
  virtual void Flush(std::string& out) = 0;
};

std::unique_ptr<Formatter> MakeFormatter(Format format);

// Appends `s` to `out` as a JSON string literal (quotes included).
void AppendJsonString(std::string_view s, std::string& out);

}  // namespace fathom

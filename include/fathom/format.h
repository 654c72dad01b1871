// format.h — turning standard events into text for people and tools.
//
// Formats: inotify (`ROOT KINDS /relative`, FSMonitor Table II / inotifywait -r), json (one
// object per line), and the vocabularies of kqueue, FSEvents and .NET FileSystemWatcher
// (mapping tables in docs/formats.md). A Formatter is stateful (the windows format pairs the
// two halves of a rename into one Renamed line), so use one per output stream, one thread.
#pragma once

#include <cstddef>
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

// JSON text is always valid UTF-8. File names are bytes, so a string that is not valid UTF-8
// (RFC 3629) is written lossily, each ill-formed sequence (maximal subpart) as U+FFFD,
// and a member that carries a file name gets a companion with the exact bytes in base64
// (RFC 4648, padded): {"path":"/d/\ufffd.txt","path_b64":"L2QvgC50eHQ="}. Readers take
// `KEY_b64` when present, else `KEY` (docs/formats.md).
bool IsValidUtf8(std::string_view s);
// Room WriteJsonString() needs at most for `n` input bytes.
constexpr size_t JsonStringBound(size_t n) { return 6 * n + 2; }
// Writes `s` as a JSON string literal (quotes included) at `out`; returns the end.
char* WriteJsonString(std::string_view s, char* out);
// Appends `s` to `out` as a JSON string literal (quotes included).
void AppendJsonString(std::string_view s, std::string& out);
// Appends the member `"key":"value"`, plus `,"key_b64":"..."` when `value` is not UTF-8.
void AppendJsonNameMember(std::string_view key, std::string_view value, std::string& out);

}  // namespace fathom

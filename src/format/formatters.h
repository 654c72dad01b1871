// formatters.h — the concrete formatters behind MakeFormatter().
#pragma once

#include <memory>

#include "fathom/format.h"

namespace fathom::internal {

std::unique_ptr<Formatter> MakeInotifyFormatter();
std::unique_ptr<Formatter> MakeJsonFormatter();
std::unique_ptr<Formatter> MakeKqueueFormatter();
std::unique_ptr<Formatter> MakeFseventsFormatter();
std::unique_ptr<Formatter> MakeWindowsFormatter();

// "ROOT NAMES /relative\n" — the line shape shared by the inotify, kqueue and fsevents formats.
void AppendRootLine(const Event& event, std::string_view names, std::string& out);
// The " /relative\n" tail of that line.
void AppendRelativeTail(const Event& event, std::string& out);

}  // namespace fathom::internal

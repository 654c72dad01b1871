// output_format.cpp — -printf and -ls rendering.
#include "catalog/find/output_format.h"

#include <sys/stat.h>

#include <cinttypes>
#include <cstdio>
#include <ctime>

#include "catalog/find/mode.h"
#include "core/account_names.h"

namespace fathom::catalog::find {
namespace {

constexpr std::string_view kDirectives = "pfhPHdDsbkmMuUgGinlyYtacSTAC";
constexpr int kMaxField = 4096;  // widths and precisions beyond this are refused

// Appends `value` formatted by printf with `spec` (flags, width, precision) and `conv`.
template <typename T>
void AppendPrintf(std::string& out, const std::string& spec, const char* conv, T value) {
  std::string fmt = "%" + spec + conv;
  char small[128];
  int n = std::snprintf(small, sizeof small, fmt.c_str(), value);
  if (n < 0) return;
  if (static_cast<size_t>(n) < sizeof small) {
    out.append(small, static_cast<size_t>(n));
    return;
  }
  std::string big(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(big.data(), big.size(), fmt.c_str(), value);
  out.append(big.data(), static_cast<size_t>(n));
}

void AppendString(std::string& out, const std::string& spec, std::string_view s) {
  if (spec.empty()) {
    out.append(s);
    return;
  }
  std::string copy(s);
  AppendPrintf(out, spec, "s", copy.c_str());
}

void AppendInt(std::string& out, const std::string& spec, intmax_t v) {
  AppendPrintf(out, spec, "jd", v);
}

std::tm LocalTime(int64_t ns) {
  time_t secs = static_cast<time_t>(ns >= 0 ? ns / 1000000000 : (ns - 999999999) / 1000000000);
  std::tm tm{};
  localtime_r(&secs, &tm);
  return tm;
}

int64_t NanosPart(int64_t ns) {
  int64_t r = ns % 1000000000;
  return r < 0 ? r + 1000000000 : r;
}

std::string Strftime(const char* fmt, const std::tm& tm) {
  char buf[256];
  size_t n = std::strftime(buf, sizeof buf, fmt, &tm);
  return std::string(buf, n);
}

// GNU's fractional seconds: nine digits of nanoseconds and a '0'.
std::string Fraction(int64_t ns) {
  char buf[16];
  std::snprintf(buf, sizeof buf, ".%09" PRId64 "0", NanosPart(ns));
  return buf;
}

// %Ak, %Ck, %Tk and %a, %c, %t.
std::string TimeText(int64_t ns, char letter) {
  std::tm tm = LocalTime(ns);
  switch (letter) {
    case 0:  // ctime's layout, with GNU's fraction
      return Strftime("%a %b %e %H:%M:%S", tm) + Fraction(ns) + Strftime(" %Y", tm);
    case '@': {
      int64_t secs = (ns - NanosPart(ns)) / 1000000000;
      return std::to_string(secs) + Fraction(ns);
    }
    case '+':
      return Strftime("%Y-%m-%d+%H:%M:%S", tm) + Fraction(ns);
    case 'S': case 'T': case 'X':
      return Strftime(std::string{'%', letter}.c_str(), tm) + Fraction(ns);
    default:
      return Strftime(std::string{'%', letter}.c_str(), tm);
  }
}

int64_t TimeOf(const Attrs& a, char which) {
  return which == 'a' || which == 'A' ? a.atime_ns
         : which == 'c' || which == 'C' ? a.ctime_ns : a.mtime_ns;
}

std::string UserText(EvalContext& ctx, uint32_t uid) {
  auto name = ctx.names->UserName(uid);
  return name ? *name : std::to_string(uid);
}

std::string GroupText(EvalContext& ctx, uint32_t gid) {
  auto name = ctx.names->GroupName(gid);
  return name ? *name : std::to_string(gid);
}

std::string_view DirName(std::string_view path) {
  std::string_view base = BaseName(path, false);
  if (base.size() == path.size()) return path.find('/') == 0 ? "" : ".";
  return path.substr(0, path.size() - base.size() - 1);
}

// ls -b style: C escapes, "\ " for a space, octal for anything not printable ASCII.
std::string LsQuote(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    switch (c) {
      case '\a': out += "\\a"; break;
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\v': out += "\\v"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      case ' ': out += "\\ "; break;
      case '\\': out += "\\\\"; break;
      default:
        if (c > ' ' && c < 0x7f) {
          out += static_cast<char>(c);
        } else {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\%03o", c);
          out += buf;
        }
    }
  }
  return out;
}

// The escape after a backslash at `format[i]`; advances i past it. Returns false (and
// leaves the text as written) when GNU does not know it.
bool Escape(std::string_view format, size_t& i, std::string& text, bool& stop) {
  char c = format[i];
  if (c >= '0' && c <= '7') {
    int v = 0;
    size_t n = 0;
    while (n < 3 && i < format.size() && format[i] >= '0' && format[i] <= '7') {
      v = v * 8 + (format[i] - '0');
      ++i;
      ++n;
    }
    text += static_cast<char>(v);
    return true;
  }
  static constexpr std::string_view kFrom = "abfnrtv\\";
  static constexpr std::string_view kTo = "\a\b\f\n\r\t\v\\";
  ++i;
  if (c == 'c') {
    stop = true;
    return true;
  }
  size_t k = kFrom.find(c);
  if (k == std::string_view::npos) {
    text += '\\';
    text += c;
    return false;
  }
  text += kTo[k];
  return true;
}

}  // namespace

std::string_view BaseName(std::string_view path, bool strip_trailing) {
  size_t end = path.size();
  while (end > 0 && path[end - 1] == '/') --end;
  if (end == 0) return path.empty() ? path : path.substr(0, 1);
  size_t slash = path.rfind('/', end - 1);
  size_t begin = slash == std::string_view::npos ? 0 : slash + 1;
  return path.substr(begin, (strip_trailing ? end : path.size()) - begin);
}

Result<PrintfFormat> PrintfFormat::Compile(std::string_view format, std::string_view option,
                                           std::vector<std::string>* warnings) {
  PrintfFormat f;
  std::string text;
  auto flush = [&] {
    if (!text.empty()) f.pieces_.push_back(Piece{std::move(text), 0, 0, false});
    text.clear();
  };
  size_t i = 0;
  while (i < format.size()) {
    char c = format[i];
    if (c == '\\') {
      ++i;
      if (i == format.size()) {
        warnings->push_back("warning: escape `\\' followed by nothing at all");
        text += '\\';
        break;
      }
      bool stop = false;
      char escaped = format[i];
      if (!Escape(format, i, text, stop))
        warnings->push_back(std::string("warning: unrecognized escape `\\") + escaped + "'");
      if (stop) {
        flush();
        f.pieces_.push_back(Piece{"", 0, 0, true});
        return f;
      }
      continue;
    }
    if (c != '%') {
      text += c;
      ++i;
      continue;
    }
    size_t start = i++;
    std::string spec;
    while (i < format.size() && std::string_view("-+ #0").find(format[i]) != std::string_view::npos)
      spec += format[i++];
    for (int field = 0; field < 2; ++field) {  // the width, then the precision after '.'
      if (field == 1) {
        if (i == format.size() || format[i] != '.') break;
        spec += format[i++];
      }
      size_t digits = i;
      while (i < format.size() && format[i] >= '0' && format[i] <= '9') ++i;
      std::string_view number = format.substr(digits, i - digits);
      if (number.size() > 5 || (!number.empty() && std::stoi(std::string(number)) > kMaxField))
        return Status::Error(std::string(option) + ": the field width or precision \"" + std::string(number) +
                             "\" is too large (at most " + std::to_string(kMaxField) + ")");
      spec.append(number);
    }
    if (i == format.size())
      return Status::Error(std::string(option) + ": \"%\" at the end of the format (write %% for a percent sign)");
    char d = format[i++];
    if (d == '%') {
      text += '%';
      continue;
    }
    if (d == 'F' || d == 'Z')
      return Status::Error(std::string(option) + ": %" + d + " (" +
                           (d == 'F' ? "file-system type" : "SELinux context") +
                           ") is not kept in the catalog");
    if (kDirectives.find(d) == std::string_view::npos) {
      warnings->push_back(std::string("warning: unrecognized format directive `%") + d + "'");
      text.append(format.substr(start, i - start));
      continue;
    }
    char letter = 0;
    if (d == 'A' || d == 'C' || d == 'T') {
      if (i == format.size())
        return Status::Error(std::string(option) + ": %" + d + " needs a time letter after it (e.g. %" + d + "@ or %" + d + "Y)");
      letter = format[i++];
    }
    flush();
    f.pieces_.push_back(Piece{std::move(spec), d, letter, false});
  }
  flush();
  return f;
}

void PrintfFormat::Render(const Entry& e, EvalContext& ctx, std::string& out) const {
  const Attrs& a = e.node.attrs;
  for (const Piece& p : pieces_) {
    if (p.stop) return;
    if (p.directive == 0) {
      out += p.text;
      continue;
    }
    const std::string& spec = p.text;
    switch (p.directive) {
      case 'p': AppendString(out, spec, e.path); break;
      case 'f': AppendString(out, spec, BaseName(e.path, false)); break;
      case 'h': AppendString(out, spec, DirName(e.path)); break;
      case 'P': {
        std::string_view rest = e.path.substr(std::min(e.start.size(), e.path.size()));
        if (!rest.empty() && rest[0] == '/') rest.remove_prefix(1);
        AppendString(out, spec, rest);
        break;
      }
      case 'H': AppendString(out, spec, e.start); break;
      case 'd': AppendInt(out, spec, e.depth); break;
      case 'D': AppendPrintf(out, spec, "ju", static_cast<uintmax_t>(a.dev)); break;
      case 's': AppendInt(out, spec, a.size); break;
      case 'b': AppendInt(out, spec, a.blocks); break;
      case 'k': AppendInt(out, spec, (a.blocks + 1) / 2); break;
      case 'm': AppendPrintf(out, spec, "o", static_cast<unsigned>(a.mode & 07777)); break;
      case 'M': AppendString(out, spec, ModeString(a.mode)); break;
      case 'u': AppendString(out, spec, UserText(ctx, a.uid)); break;
      case 'U': AppendInt(out, spec, a.uid); break;
      case 'g': AppendString(out, spec, GroupText(ctx, a.gid)); break;
      case 'G': AppendInt(out, spec, a.gid); break;
      case 'i': AppendPrintf(out, spec, "ju", static_cast<uintmax_t>(a.ino)); break;
      case 'n': AppendPrintf(out, spec, "ju", static_cast<uintmax_t>(a.nlink)); break;
      case 'l': AppendString(out, spec, a.symlink); break;
      case 'y': AppendString(out, spec, std::string(1, TypeLetter(a.mode))); break;
      case 'Y': {
        char t = TypeLetter(a.mode);
        if (t == 'l') {
          Followed target = ctx.stat_follow(e.abs_path);
          t = target.attrs ? TypeLetter(target.attrs->mode) : target.loop ? 'L' : 'N';
        }
        AppendString(out, spec, std::string(1, t));
        break;
      }
      case 'S': {
        double sparse = a.size == 0 ? 1.0 : static_cast<double>(a.blocks) * 512.0 / static_cast<double>(a.size);
        AppendPrintf(out, spec, "g", sparse);
        break;
      }
      case 'a': case 'c': case 't':
        AppendString(out, spec, TimeText(TimeOf(a, p.directive), 0));
        break;
      case 'A': case 'C': case 'T':
        AppendString(out, spec, TimeText(TimeOf(a, p.directive), p.time_letter));
        break;
    }
  }
}

std::string LsLine(const Entry& e, EvalContext& ctx, int64_t now_ns) {
  const Attrs& a = e.node.attrs;
  std::string line;
  AppendPrintf(line, "9", "ju", static_cast<uintmax_t>(a.ino));
  line += ' ';
  AppendInt(line, "6", (a.blocks + 1) / 2);
  line += ' ' + ModeString(a.mode) + ' ';
  AppendPrintf(line, "3", "ju", static_cast<uintmax_t>(a.nlink));
  line += ' ';
  AppendString(line, "-8", UserText(ctx, a.uid));
  line += ' ';
  AppendString(line, "-8", GroupText(ctx, a.gid));
  line += ' ';
  // The catalog keeps no st_rdev: a device shows its size where ls shows "major, minor".
  AppendInt(line, "8", a.size);
  // GNU find shows the time of day for times from 180 days ago to an hour ahead.
  constexpr int64_t kSecondNs = 1000000000LL;
  bool recent = a.mtime_ns >= now_ns - 180 * 86400 * kSecondNs && a.mtime_ns <= now_ns + 3600 * kSecondNs;
  line += ' ' + Strftime(recent ? "%b %e %H:%M" : "%b %e  %Y", LocalTime(a.mtime_ns));
  line += ' ' + LsQuote(e.path);
  if (S_ISLNK(a.mode)) line += " -> " + LsQuote(a.symlink);
  line += '\n';
  return line;
}

}  // namespace fathom::catalog::find

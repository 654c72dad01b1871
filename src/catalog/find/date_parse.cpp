// date_parse.cpp — absolute dates for -newerXt.
#include "catalog/find/date_parse.h"

#include <cctype>
#include <ctime>
#include <string>

namespace fathom::catalog::find {
namespace {

// Reads exactly `n` digits at `i`.
bool Digits(std::string_view s, size_t& i, size_t n, int& out) {
  if (i + n > s.size()) return false;
  out = 0;
  for (size_t k = 0; k < n; ++k) {
    char c = s[i + k];
    if (c < '0' || c > '9') return false;
    out = out * 10 + (c - '0');
  }
  i += n;
  return true;
}

// ".123" -> 123000000 ns; leaves i unchanged without a fraction.
bool Fraction(std::string_view s, size_t& i, int64_t& ns) {
  ns = 0;
  if (i >= s.size() || (s[i] != '.' && s[i] != ',')) return true;
  ++i;
  int64_t scale = 100000000;
  size_t start = i;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    ns += (s[i] - '0') * scale;
    scale /= 10;
    ++i;
  }
  return i > start;
}

}  // namespace

Result<int64_t> ParseDate(std::string_view text) {
  auto bad = [&] {
    return Status::Error("cannot read the date \"" + std::string(text) +
                         "\" (use YYYY-MM-DD, YYYY-MM-DD HH:MM[:SS[.N]] with an optional Z or "
                         "+HH:MM, or @SECONDS)");
  };
  size_t i = 0;
  int64_t frac = 0;
  if (!text.empty() && text[0] == '@') {
    i = 1;
    bool negative = i < text.size() && text[i] == '-';
    if (negative) ++i;
    size_t start = i;
    int64_t secs = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      if (__builtin_mul_overflow(secs, 10, &secs) || __builtin_add_overflow(secs, text[i] - '0', &secs)) return bad();
      ++i;
    }
    if (i == start || !Fraction(text, i, frac) || i != text.size() || secs > INT64_MAX / 1000000000 - 1) return bad();
    int64_t ns = secs * 1000000000 + frac;
    return negative ? -ns : ns;
  }
  std::tm tm{};
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!Digits(text, i, 4, year) || i >= text.size() || text[i++] != '-' || !Digits(text, i, 2, month) ||
      i >= text.size() || text[i++] != '-' || !Digits(text, i, 2, day))
    return bad();
  if (i < text.size() && (text[i] == ' ' || text[i] == 'T')) {
    ++i;
    if (!Digits(text, i, 2, hour) || i >= text.size() || text[i++] != ':' || !Digits(text, i, 2, minute)) return bad();
    if (i < text.size() && text[i] == ':') {
      ++i;
      if (!Digits(text, i, 2, second) || !Fraction(text, i, frac)) return bad();
    }
  }
  while (i < text.size() && text[i] == ' ') ++i;
  bool utc = false;
  int offset = 0;  // seconds east of UTC
  std::string_view zone = text.substr(i);
  if (zone == "Z" || zone == "UTC" || zone == "GMT") {
    utc = true;
  } else if (!zone.empty() && (zone[0] == '+' || zone[0] == '-')) {
    size_t k = 1;
    int oh = 0, om = 0;
    if (!Digits(zone, k, 2, oh)) return bad();
    if (k < zone.size() && zone[k] == ':') ++k;
    if (!Digits(zone, k, 2, om) || k != zone.size()) return bad();
    utc = true;
    offset = (zone[0] == '-' ? -1 : 1) * (oh * 3600 + om * 60);
  } else if (!zone.empty()) {
    return bad();
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return bad();
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  tm.tm_isdst = -1;
  time_t t = utc ? timegm(&tm) : mktime(&tm);
  if (tm.tm_mday != day) return bad();  // 2024-02-31 and the like
  int64_t ns = 0;  // years far from now do not fit in 64-bit nanoseconds
  if (__builtin_mul_overflow(static_cast<int64_t>(t) - offset, 1000000000, &ns) ||
      __builtin_add_overflow(ns, frac, &ns))
    return Status::Error("the date \"" + std::string(text) +
                         "\" is out of range (times are kept in nanoseconds: years 1678 to 2261)");
  return ns;
}

}  // namespace fathom::catalog::find

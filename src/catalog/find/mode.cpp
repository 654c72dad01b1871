// mode.cpp — octal and symbolic permission modes, mode strings.
#include "catalog/find/mode.h"

#include <sys/stat.h>

namespace fathom::catalog::find {
namespace {

Status InvalidMode(std::string_view arg) {
  return Status::Error("-perm: invalid mode \"" + std::string(arg) +
                       "\" (use octal like 644, or symbolic like u=rwx,g+w,o-x; prefix - for "
                       "all of these bits, / for any of them)");
}

// The bits a class letter covers, its special bit included.
uint32_t WhoMask(char who) {
  switch (who) {
    case 'u': return S_ISUID | S_IRWXU;
    case 'g': return S_ISGID | S_IRWXG;
    case 'o': return S_ISVTX | S_IRWXO;
    default: return 07777;
  }
}

// The rwx of class `from` of `mode`, copied to every class.
uint32_t CopiedBits(uint32_t mode, char from) {
  uint32_t b = from == 'u' ? (mode >> 6) & 7 : from == 'g' ? (mode >> 3) & 7 : mode & 7;
  return b | (b << 3) | (b << 6);
}

bool IsOctal(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text)
    if (c < '0' || c > '7') return false;
  return true;
}

}  // namespace

Result<uint32_t> ParseModeBits(std::string_view text, bool for_directory) {
  if (IsOctal(text)) {
    uint32_t v = 0;
    for (char c : text) {
      v = v * 8 + static_cast<uint32_t>(c - '0');
      if (v > 07777) return InvalidMode(text);
    }
    return v;
  }
  uint32_t mode = 0;
  size_t i = 0;
  while (true) {
    uint32_t who = 0;
    while (i < text.size() && (text[i] == 'u' || text[i] == 'g' || text[i] == 'o' || text[i] == 'a')) {
      who |= WhoMask(text[i]);
      ++i;
    }
    if (who == 0) who = 07777;
    if (i >= text.size() || (text[i] != '+' && text[i] != '-' && text[i] != '=')) return InvalidMode(text);
    while (i < text.size() && (text[i] == '+' || text[i] == '-' || text[i] == '=')) {
      char op = text[i++];
      uint32_t bits = 0;
      if (i < text.size() && (text[i] == 'u' || text[i] == 'g' || text[i] == 'o')) {
        bits = CopiedBits(mode, text[i++]);
      } else {
        while (i < text.size() && std::string_view("rwxXst").find(text[i]) != std::string_view::npos) {
          switch (text[i]) {
            case 'r': bits |= 0444; break;
            case 'w': bits |= 0222; break;
            case 'x': bits |= 0111; break;
            case 'X':
              if (for_directory || (mode & 0111) != 0) bits |= 0111;
              break;
            case 's': bits |= S_ISUID | S_ISGID; break;
            case 't': bits |= S_ISVTX; break;
          }
          ++i;
        }
      }
      bits &= who;
      if (op == '=') mode = (mode & ~who) | bits;
      else if (op == '+') mode |= bits;
      else mode &= ~bits;
    }
    if (i == text.size()) return mode;
    if (text[i] != ',' || i + 1 == text.size()) return InvalidMode(text);
    ++i;
  }
}

Result<PermSpec> ParsePerm(std::string_view arg) {
  PermSpec spec;
  std::string_view bits = arg;
  if (!bits.empty() && bits[0] == '-') {
    spec.kind = PermSpec::Kind::kAll;
    bits.remove_prefix(1);
  } else if (!bits.empty() && bits[0] == '/') {
    spec.kind = PermSpec::Kind::kAny;
    bits.remove_prefix(1);
  }
  auto file = ParseModeBits(bits, false);
  if (!file.ok()) return InvalidMode(arg);
  auto dir = ParseModeBits(bits, true);
  if (!dir.ok()) return InvalidMode(arg);
  spec.file_bits = *file;
  spec.dir_bits = *dir;
  return spec;
}

bool PermSpec::Matches(uint32_t st_mode) const {
  uint32_t want = S_ISDIR(st_mode) ? dir_bits : file_bits;
  uint32_t have = st_mode & 07777;
  switch (kind) {
    case Kind::kExact: return have == want;
    case Kind::kAll: return (have & want) == want;
    case Kind::kAny: return want == 0 || (have & want) != 0;
  }
  return false;
}

char TypeLetter(uint32_t st_mode) {
  switch (st_mode & S_IFMT) {
    case S_IFREG: return 'f';
    case S_IFDIR: return 'd';
    case S_IFLNK: return 'l';
    case S_IFBLK: return 'b';
    case S_IFCHR: return 'c';
    case S_IFIFO: return 'p';
    case S_IFSOCK: return 's';
    default: return 'U';
  }
}

std::string ModeString(uint32_t m) {
  std::string s(10, '-');
  char t = TypeLetter(m);
  s[0] = t == 'f' ? '-' : t == 'U' ? '?' : t;
  const char* rwx = "rwxrwxrwx";
  for (int i = 0; i < 9; ++i)
    if (m & (0400u >> i)) s[1 + i] = rwx[i];
  if (m & S_ISUID) s[3] = (m & S_IXUSR) ? 's' : 'S';
  if (m & S_ISGID) s[6] = (m & S_IXGRP) ? 's' : 'S';
  if (m & S_ISVTX) s[9] = (m & S_IXOTH) ? 't' : 'T';
  return s;
}

}  // namespace fathom::catalog::find

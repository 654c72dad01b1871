// changelog_text.cpp — one `lfs changelog` line, printed and read.
//
// Printing follows lfs.c's lfs_changelog() field by field. Reading splits the line into
// whitespace-separated tokens (runs of spaces, tabs, CR or LF, so FSMonitor's tab-separated
// Table I and a RENME spread over several lines both read), takes the fixed fields, then the
// optional keyed fields in lfs's order, each only where lfs could have printed it (u= only
// when ef announces CLFE_UIDGID, ...). What remains is the name: it ends at the first
// " s=[FID] sp=[FID]" with a non-zero FID (the rename's source, printed only then), which is
// followed by the old name. Names therefore lose leading and trailing whitespace, and a name
// can only be told from a keyed field by position, as in lfs's own output.
#include "lustre/changelog_text.h"

#include <algorithm>
#include <array>

#include "lustre/civil_time.h"
#include "lustre/nid.h"
#include "lustre/number_text.h"

namespace fathom::lustre {
namespace {

constexpr uint32_t kFmodeRead = 01;      // MDS_FMODE_READ
constexpr uint32_t kFmodeWrite = 02;     // MDS_FMODE_WRITE
constexpr uint32_t kFmodeExec = 04;      // MDS_FMODE_EXEC
constexpr uint32_t kOpenTrunc = 01000;   // MDS_OPEN_TRUNC
constexpr uint32_t kOpenAppend = 02000;  // MDS_OPEN_APPEND

constexpr std::array<bool, 256> kSeparators = [] {
  std::array<bool, 256> t{};
  t[' '] = t['\t'] = t['\n'] = t['\r'] = true;
  return t;
}();

bool IsSep(char c) { return kSeparators[static_cast<unsigned char>(c)]; }

// lfs's three-letter open mode ("---" when nothing to show).
void OpenMode(uint32_t flags, char mode[3]) {
  mode[0] = mode[1] = mode[2] = '-';
  if (flags & kFmodeExec) {
    mode[2] = 'x';
  } else {
    if (flags & kFmodeRead) mode[0] = 'r';
    if (flags & (kFmodeWrite | kOpenTrunc | kOpenAppend)) mode[1] = 'w';
  }
}

std::string_view UpToNul(std::string_view s) { return s.substr(0, s.find('\0')); }

void AppendFid(std::string& out, const char* key, const Fid& fid) {
  char buf[8 + kMaxFidText];
  char* p = buf;
  while (*key) *p++ = *key++;
  p = FormatFidTo(fid, p);
  out.append(buf, p);
}

class LineReader {
 public:
  explicit LineReader(std::string_view line) : line_(line), s_(line) {
    while (!s_.empty() && (s_.back() == '\n' || s_.back() == '\r' || s_.back() == '\t')) {
      s_.remove_suffix(1);
    }
  }

  Status Error(std::string_view field, const std::string& why) const {
    std::string shown(line_.substr(0, 160));
    if (line_.size() > 160) shown += "...";
    return Status::Error("lfs changelog line '" + shown + "': " + std::string(field) + " " + why);
  }
  void SkipSeps() {
    while (pos_ < s_.size() && IsSep(s_[pos_])) ++pos_;
  }
  bool AtEnd() const { return pos_ >= s_.size(); }
  // The next token (without consuming it), after skipping separators.
  std::string_view Peek() {
    SkipSeps();
    if (peek_pos_ != pos_) {
      peek_pos_ = pos_;
      peek_end_ = pos_;
      while (peek_end_ < s_.size() && !IsSep(s_[peek_end_])) ++peek_end_;
    }
    return s_.substr(pos_, peek_end_ - pos_);
  }
  std::string_view Next() {
    std::string_view t = Peek();
    pos_ += t.size();
    return t;
  }
  std::string_view Rest() const { return s_.substr(std::min(pos_, s_.size())); }

 private:
  std::string_view line_;
  std::string_view s_;
  size_t pos_ = 0;
  size_t peek_pos_ = std::string_view::npos;  // where the token ending at peek_end_ starts
  size_t peek_end_ = 0;
};

bool KeyedFid(std::string_view token, std::string_view key, Fid* fid) {
  if (token.size() <= key.size() || token.substr(0, key.size()) != key ||
      token[key.size()] != '[') {
    return false;
  }
  Result<Fid> f = ParseFid(token.substr(key.size()));
  if (!f.ok()) return false;
  *fid = *f;
  return true;
}

// Reads "s=[FID] sp=[FID] OLDNAME" at the start of `tail`; sfid must be non-zero.
bool ReadRenameTail(std::string_view tail, ChangelogRecord* r) {
  size_t end = 0;
  while (end < tail.size() && !IsSep(tail[end])) ++end;
  Fid sfid, spfid;
  if (!KeyedFid(tail.substr(0, end), "s=", &sfid) || sfid.zero()) return false;
  size_t p = end;
  while (p < tail.size() && IsSep(tail[p])) ++p;
  if (p == end) return false;
  end = p;
  while (end < tail.size() && !IsSep(tail[end])) ++end;
  if (!KeyedFid(tail.substr(p, end - p), "sp=", &spfid)) return false;
  p = end;
  while (p < tail.size() && IsSep(tail[p])) ++p;
  r->has_rename = true;
  r->sfid = sfid;
  r->spfid = spfid;
  r->sname.assign(tail.substr(p));
  return true;
}

// The name and an optional rename tail, from what follows the keyed fields.
void ReadNames(std::string_view rest, ChangelogRecord* r) {
  for (size_t i = rest.find("s=["); i != std::string_view::npos; i = rest.find("s=[", i + 1)) {
    if (i != 0 && !IsSep(rest[i - 1])) continue;
    if (!ReadRenameTail(rest.substr(i), r)) continue;
    size_t end = i;
    while (end > 0 && IsSep(rest[end - 1])) --end;
    r->name.assign(rest.substr(0, end));
    return;
  }
  r->name.assign(rest);
}

Status ReadTime(LineReader& in, std::string_view hms, std::string_view ymd, uint64_t* time_ns) {
  // HH:MM:SS.NNNNNNNNN and YYYY.MM.DD, as "%02d:%02d:%02d.%09d %04d.%02d.%02d" prints them.
  unsigned hh, mi, ss, mo, dd;
  uint32_t ns;
  int64_t yy;
  if (hms.size() != 18 || hms[2] != ':' || hms[5] != ':' || hms[8] != '.' ||
      !internal::ReadDec(hms.substr(0, 2), &hh) || !internal::ReadDec(hms.substr(3, 2), &mi) ||
      !internal::ReadDec(hms.substr(6, 2), &ss) || !internal::ReadDec(hms.substr(9, 9), &ns) ||
      hh > 23 || mi > 59 || ss > 59) {
    return in.Error("time", "'" + std::string(hms) + "' is not HH:MM:SS.NNNNNNNNN");
  }
  if (ymd.size() != 10 || ymd[4] != '.' || ymd[7] != '.' ||
      !internal::ReadDec(ymd.substr(0, 4), &yy) || !internal::ReadDec(ymd.substr(5, 2), &mo) ||
      !internal::ReadDec(ymd.substr(8, 2), &dd) || yy < 1970 || mo < 1 || mo > 12 || dd < 1 ||
      dd > internal::DaysInMonth(yy, mo)) {
    return in.Error("date", "'" + std::string(ymd) + "' is not a date YYYY.MM.DD from 1970 on");
  }
  const auto days = static_cast<uint64_t>(internal::DaysFromCivil(yy, mo, dd));
  *time_ns = ((days * 24 + hh) * 60 + mi) * 60 * internal::kNsPerSec + ss * internal::kNsPerSec + ns;
  return Status::Ok();
}

Status ReadType(LineReader& in, std::string_view token, uint32_t* type) {
  size_t digits = token.empty() || token[0] != '-' ? 0 : 1;
  while (digits < token.size() && token[digits] >= '0' && token[digits] <= '9') ++digits;
  std::string_view num = token.substr(0, digits);
  std::string_view name = token.substr(digits);
  uint32_t magnitude = 0;
  const bool negative = !num.empty() && num[0] == '-';
  if (!internal::ReadDec(num.substr(negative ? 1 : 0), &magnitude) ||
      magnitude > (negative ? 0x80000000u : 0x7fffffffu)) {
    return in.Error("type", "'" + std::string(token) + "' is not NNNAME (e.g. 01CREAT)");
  }
  const uint32_t t = negative ? 0u - magnitude : magnitude;
  std::optional<std::string_view> expected = RecordTypeName(t);
  if (name != expected.value_or("(null)")) {
    return in.Error("type", "'" + std::string(token) + "': lfs prints type " + std::string(num) +
                                " as " + std::string(expected.value_or("(null)")));
  }
  *type = t;
  return Status::Ok();
}

}  // namespace

std::string FormatRecordText(const ChangelogRecord& r) {
  std::string out;
  out.reserve(160 + r.name.size() + r.sname.size() + r.jobid.size() + r.xattr.size() +
              r.nid.size());
  char buf[128];
  char* p = buf;
  // "%ju %02d%-5s %02d:%02d:%02d.%09d %04d.%02d.%02d 0x%x t="DFID
  p = internal::WriteDec(p, r.index);
  *p++ = ' ';
  const auto type = static_cast<int32_t>(r.type);
  if (type < 0) {
    *p++ = '-';
    p = internal::WriteDec(p, 0u - static_cast<uint32_t>(type));
  } else {
    if (type < 10) *p++ = '0';
    p = internal::WriteDec(p, static_cast<uint32_t>(type));
  }
  std::string_view name = RecordTypeName(r.type).value_or("(null)");
  for (char c : name) *p++ = c;
  for (size_t i = name.size(); i < 5; ++i) *p++ = ' ';
  *p++ = ' ';
  const uint64_t secs = r.time_ns / internal::kNsPerSec;
  const auto day_secs = static_cast<uint32_t>(secs % 86400);
  const internal::CivilDate date = internal::CivilFromDays(static_cast<int64_t>(secs / 86400));
  p = internal::WriteDecFixed(p, day_secs / 3600, 2);
  *p++ = ':';
  p = internal::WriteDecFixed(p, day_secs / 60 % 60, 2);
  *p++ = ':';
  p = internal::WriteDecFixed(p, day_secs % 60, 2);
  *p++ = '.';
  p = internal::WriteDecFixed(p, static_cast<uint32_t>(r.time_ns % internal::kNsPerSec), 9);
  *p++ = ' ';
  p = internal::WriteDec(p, static_cast<uint64_t>(date.year));  // from 1970 on: 4+ digits
  *p++ = '.';
  p = internal::WriteDecFixed(p, date.month, 2);
  *p++ = '.';
  p = internal::WriteDecFixed(p, date.day, 2);
  *p++ = ' ';
  *p++ = '0';
  *p++ = 'x';
  p = internal::WriteHex(p, r.flags & CLF_FLAGMASK);
  out.append(buf, p);
  AppendFid(out, " t=", r.tfid);

  if (r.has_jobid && !UpToNul(r.jobid).empty()) {
    out += " j=";
    out += UpToNul(r.jobid);
  }
  if (r.has_extra_flags) {
    p = buf;
    for (char c : std::string_view(" ef=0x")) *p++ = c;
    p = internal::WriteHex(p, r.extra_flags);
    if (r.extra_flags & CLFE_UIDGID) {
      for (char c : std::string_view(" u=")) *p++ = c;
      p = internal::WriteDec(p, r.uid);
      *p++ = ':';
      p = internal::WriteDec(p, r.gid);
    }
    out.append(buf, p);
    if (r.extra_flags & CLFE_NID) {
      out += " nid=";
      out += r.nid;
    }
    if (r.extra_flags & CLFE_OPEN) {
      char mode[3];
      OpenMode(r.open_flags, mode);
      if (std::string_view(mode, 3) != "---") {
        out += " m=";
        out.append(mode, 3);
      }
    }
    if ((r.extra_flags & CLFE_XATTR) && !UpToNul(r.xattr).empty()) {
      out += " x=";
      out += UpToNul(r.xattr);
    }
  }
  if (!r.pfid.zero()) AppendFid(out, " p=", r.pfid);
  // cr_namelen is non-zero when there is a name, or two names for a rename; lfs prints
  // up to the first NUL.
  const bool two_names = r.has_rename && (!r.sname.empty() || !r.sfid.zero());
  if (!r.name.empty() || two_names) {
    out += ' ';
    out += UpToNul(r.name);
  }
  if (r.has_rename && !r.sfid.zero()) {
    AppendFid(out, " s=", r.sfid);
    AppendFid(out, " sp=", r.spfid);
    out += ' ';
    out += UpToNul(r.sname);
  }
  return out;
}

Result<ChangelogRecord> ParseRecordText(std::string_view line) {
  LineReader in(line);
  if (line.find('\0') != std::string_view::npos) {
    return in.Error("text", "contains a NUL byte (lfs never prints one)");
  }
  ChangelogRecord r;
  std::string_view tok = in.Next();
  if (!internal::ReadDec(tok, &r.index)) {
    return in.Error("index", "'" + std::string(tok) + "' is not a record number");
  }
  FATHOM_RETURN_IF_ERROR(ReadType(in, in.Next(), &r.type));
  std::string_view hms = in.Next();
  std::string_view ymd = in.Next();
  FATHOM_RETURN_IF_ERROR(ReadTime(in, hms, ymd, &r.time_ns));
  tok = in.Next();
  if (!internal::ReadPrefixedHex(tok, &r.flags, false) || r.flags > CLF_FLAGMASK) {
    return in.Error("flags", "'" + std::string(tok) + "' is not 0x0..0xfff");
  }
  tok = in.Next();
  if (!KeyedFid(tok, "t=", &r.tfid)) {
    return in.Error("target", "'" + std::string(tok) + "' is not t=[0xSEQ:0xOID:0xVER]");
  }

  tok = in.Peek();
  if (tok.starts_with("j=") && tok.size() > 2) {
    r.has_jobid = true;
    r.jobid.assign(tok.substr(2));
    in.Next();
    tok = in.Peek();
  }
  if (tok.starts_with("ef=")) {
    if (!internal::ReadPrefixedHex(tok.substr(3), &r.extra_flags, false) ||
        (r.extra_flags & ~uint64_t{CLFE_SUPPORTED}) ||
        ((r.extra_flags & CLFE_NID_BE) && !(r.extra_flags & CLFE_NID))) {
      return in.Error("extra flags",
                      "'" + std::string(tok) + "' is not ef=0xN with CLFE_* bits (0x1f at most)");
    }
    r.has_extra_flags = true;
    in.Next();
    if (r.extra_flags & CLFE_UIDGID) {
      tok = in.Next();
      size_t colon = tok.find(':');
      if (!tok.starts_with("u=") || colon == std::string_view::npos ||
          !internal::ReadDec(tok.substr(2, colon - 2), &r.uid) ||
          !internal::ReadDec(tok.substr(colon + 1), &r.gid)) {
        return in.Error("uid/gid", "'" + std::string(tok) + "' is not u=UID:GID (ef has 0x1)");
      }
    }
    if (r.extra_flags & CLFE_NID) {
      tok = in.Next();
      if (!tok.starts_with("nid=")) {
        return in.Error("nid", "'" + std::string(tok) + "' is not nid=NID (ef has 0x2)");
      }
      Result<Nid> nid = ParseNid(tok.substr(4));
      if (!nid.ok()) return in.Error("nid", nid.status().message());
      std::optional<uint64_t> nid4 = NidToNid4(*nid);
      r.nid = nid4 ? FormatNid4(*nid4) : FormatNid(*nid);
    }
    tok = in.Peek();
    if ((r.extra_flags & CLFE_OPEN) && tok.starts_with("m=")) {
      std::string_view m = tok.substr(2);
      if (m == "r--") {
        r.open_flags = kFmodeRead;
      } else if (m == "-w-") {
        r.open_flags = kFmodeWrite;
      } else if (m == "rw-") {
        r.open_flags = kFmodeRead | kFmodeWrite;
      } else if (m == "--x") {
        r.open_flags = kFmodeExec;
      } else {
        return in.Error("open mode", "'" + std::string(tok) + "' is not m=r--, -w-, rw- or --x");
      }
      in.Next();
      tok = in.Peek();
    }
    if ((r.extra_flags & CLFE_XATTR) && tok.starts_with("x=") && tok.size() > 2) {
      r.xattr.assign(tok.substr(2));
      in.Next();
      tok = in.Peek();
    }
  }
  Fid pfid;
  if (KeyedFid(tok, "p=", &pfid) && !pfid.zero()) {  // lfs omits a zero parent
    r.pfid = pfid;
    in.Next();
  }
  in.SkipSeps();
  ReadNames(in.Rest(), &r);
  return r;
}

}  // namespace fathom::lustre

#include "sources/lustre/event_attrs.h"

#include <charconv>
#include <cstring>
#include <string>
#include <string_view>

#include "fathom/format.h"

namespace fathom::lustre_source {
namespace {

// Writes into a buffer the caller sized for the worst case.
class Writer {
 public:
  explicit Writer(char* p) : p_(p) {}
  char* end() const { return p_; }

  void Put(std::string_view s) {
    std::memcpy(p_, s.data(), s.size());
    p_ += s.size();
  }
  void Dec(uint64_t v) { p_ = std::to_chars(p_, p_ + 20, v).ptr; }
  void Hex(uint64_t v) {
    *p_++ = '0';
    *p_++ = 'x';
    p_ = std::to_chars(p_, p_ + 16, v, 16).ptr;
  }
  void Fid(const lustre::Fid& fid) {
    Put("\"[");
    Hex(fid.seq);
    *p_++ = ':';
    Hex(fid.oid);
    *p_++ = ':';
    Hex(fid.ver);
    Put("]\"");
  }
  // At most JsonStringBound(s.size()) bytes.
  void Json(std::string_view s) { p_ = WriteJsonString(s, p_); }
  // A member naming a file: `"key":"value"`, plus `"key_b64"` when the name is not UTF-8
  // (fathom/format.h); at most 8 bytes per byte of `value` plus 32.
  void NameMember(std::string_view key, std::string_view value) {
    if (IsValidUtf8(value)) {
      *p_++ = '"';
      Put(key);
      Put("\":");
      Json(value);
      return;
    }
    std::string member;
    AppendJsonNameMember(key, value, member);
    Put(member);
  }

 private:
  char* p_;
};

// Fixed members with the longest numbers (3 FIDs' worth of digits, 5 numbers of 20 digits).
constexpr size_t kFixedBound = 256;
constexpr size_t kStackBytes = 1024;

}  // namespace

void AppendEventAttrs(const lustre::ChangelogRecord& r, const lustre::Fid& fid,
                      const lustre::Fid& pfid, int mdt, const std::string* name, std::string& out) {
  const bool uidgid = r.has_extra_flags && (r.extra_flags & CLFE_UIDGID);
  const bool jobid = r.has_jobid && !r.jobid.empty();
  const bool nid = r.has_extra_flags && (r.extra_flags & CLFE_NID) && !r.nid.empty();
  const std::string_view type = lustre::RecordTypeName(r.type).value_or("?");
  const size_t bound = kFixedBound + type.size() + 6 * (r.jobid.size() + r.nid.size()) +
                       (name != nullptr ? 8 * name->size() + 32 : 0);
  char stack[kStackBytes];
  std::string heap;
  char* buf = stack;
  if (bound > sizeof stack) {
    heap.resize(bound);
    buf = heap.data();
  }
  Writer w(buf);
  w.Put("{\"fid\":");
  w.Fid(fid);
  if (!pfid.zero()) {
    w.Put(",\"pfid\":");
    w.Fid(pfid);
  }
  w.Put(",\"mdt\":");
  w.Dec(static_cast<uint64_t>(mdt));
  w.Put(",\"recno\":");
  w.Dec(r.index);
  w.Put(",\"type\":\"");
  w.Put(type);
  w.Put("\",\"flags\":");
  w.Dec(r.flags);
  if (uidgid) {
    w.Put(",\"uid\":");
    w.Dec(r.uid);
    w.Put(",\"gid\":");
    w.Dec(r.gid);
  }
  if (jobid) {
    w.Put(",\"jobid\":");
    w.Json(r.jobid);
  }
  if (nid) {
    w.Put(",\"nid\":");
    w.Json(r.nid);
  }
  if (name != nullptr) {
    w.Put(",");
    w.NameMember("name", *name);
  }
  w.Put("}");
  out.append(buf, static_cast<size_t>(w.end() - buf));
}

}  // namespace fathom::lustre_source

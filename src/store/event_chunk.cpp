#include "store/event_chunk.h"

#include "core/varint.h"

#include <algorithm>
#include <vector>

namespace fathom::store {
namespace {

uint64_t ZigZag(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }
int64_t UnZigZag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }

// Interns strings that repeat across a chunk (roots, sources): a handful per chunk.
class StringTable {
 public:
  void Put(std::string& out, std::string_view s) {
    auto it = std::find(strings_.begin(), strings_.end(), s);
    if (it != strings_.end()) {
      PutVarint(out, static_cast<uint64_t>(it - strings_.begin()));
      return;
    }
    PutVarint(out, strings_.size());
    PutString(out, s);
    strings_.push_back(s);
  }

 private:
  std::vector<std::string_view> strings_;
};

class Reader {
 public:
  explicit Reader(std::string_view blob) : p_(blob.data()), end_(blob.data() + blob.size()) {}

  bool Varint(uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64 && p_ < end_; shift += 7) {
      const auto byte = static_cast<uint8_t>(*p_++);
      v |= uint64_t{byte & 0x7fu} << shift;
      if ((byte & 0x80) == 0) return true;
    }
    return false;
  }
  bool Bytes(std::string_view& s) {
    uint64_t n = 0;
    if (!Varint(n) || n > static_cast<uint64_t>(end_ - p_)) return false;
    s = std::string_view(p_, n);
    p_ += n;
    return true;
  }
  bool Interned(std::vector<std::string_view>& table, std::string_view& s) {
    uint64_t index = 0;
    if (!Varint(index) || index > table.size()) return false;
    if (index < table.size()) {
      s = table[index];
      return true;
    }
    if (!Bytes(s)) return false;
    table.push_back(s);
    return true;
  }
  bool done() const { return p_ == end_; }

 private:
  const char* p_;
  const char* end_;
};

size_t SharedPrefix(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  size_t i = 0;
  while (i < n && a[i] == b[i]) ++i;
  return i;
}

const Event& Deref(const Event& e) { return e; }
const Event& Deref(const Event* e) { return *e; }

template <typename Span>
void EncodeChunkOf(Span events, std::string& out) {
  PutVarint(out, events.size());
  StringTable strings;
  int64_t prev_ts = 0;
  std::string_view prev_path;
  for (const auto& item : events) {
    const Event& e = Deref(item);
    PutVarint(out, ZigZag(static_cast<int64_t>(static_cast<uint64_t>(e.ts_ns) -
                                               static_cast<uint64_t>(prev_ts))));
    prev_ts = e.ts_ns;
    PutVarint(out, e.mask);
    PutVarint(out, e.cookie);
    strings.Put(out, e.root);
    strings.Put(out, e.source);
    const size_t shared = SharedPrefix(prev_path, e.path);
    PutVarint(out, shared);
    PutString(out, std::string_view(e.path).substr(shared));
    prev_path = e.path;
    PutString(out, e.attrs);
  }
}

}  // namespace

void EncodeChunk(std::span<const Event> events, std::string& out) { EncodeChunkOf(events, out); }
void EncodeChunk(std::span<const Event* const> events, std::string& out) {
  EncodeChunkOf(events, out);
}

Status DecodeChunk(std::string_view blob, uint64_t first_id,
                   const std::function<bool(const Event&)>& fn) {
  auto damaged = [&](uint64_t i) {
    return Status::Error("damaged event chunk at id " + std::to_string(first_id + i) +
                         ": the file is corrupt; move it aside");
  };
  Reader r(blob);
  uint64_t count = 0;
  if (!r.Varint(count) || count > kMaxChunkEvents) return damaged(0);
  std::vector<std::string_view> table;
  Event e;
  uint64_t zz = 0, mask = 0, cookie = 0, shared = 0;
  std::string_view root, source, rest, attrs;
  for (uint64_t i = 0; i < count; ++i) {
    if (!r.Varint(zz) || !r.Varint(mask) || !r.Varint(cookie) || !r.Interned(table, root) ||
        !r.Interned(table, source) || !r.Varint(shared) || shared > e.path.size() ||
        !r.Bytes(rest) || !r.Bytes(attrs)) {
      return damaged(i);
    }
    e.id = first_id + i;
    e.ts_ns = static_cast<int64_t>(static_cast<uint64_t>(e.ts_ns) +
                                   static_cast<uint64_t>(UnZigZag(zz)));
    e.mask = static_cast<uint32_t>(mask);
    e.cookie = static_cast<uint32_t>(cookie);
    e.root.assign(root);
    e.source.assign(source);
    e.path.resize(shared);
    e.path.append(rest);
    e.attrs.assign(attrs);
    if (!fn(e)) return Status::Ok();
  }
  if (!r.done()) return damaged(count);
  return Status::Ok();
}

}  // namespace fathom::store

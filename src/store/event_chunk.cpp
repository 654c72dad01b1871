#include "store/event_chunk.h"

#include "core/varint.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace fathom::store {
namespace {

uint64_t ZigZag(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }
int64_t UnZigZag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }

size_t SharedPrefix(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  size_t i = 0;
  while (i < n && a[i] == b[i]) ++i;
  return i;
}

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

// Attrs are split at ',' into pieces (for a JSON object: roughly one member each). Each piece
// is written against a piece of the previous event's attrs with the same key (the bytes
// through its first ':', "" without one), looked for from just after the last piece used, at
// most kMaxSkip further on: events from one source repeat most members exactly, the others
// share a prefix (a FID, a record number), and optional members only shift the rest.
constexpr size_t kMaxSkip = 8;

std::string_view PieceKey(std::string_view piece) {
  return piece.substr(0, piece.find(':') + 1);  // npos + 1 == 0: no key
}

class AttrsEncoder {
 public:
  void Put(std::string& out, std::string_view attrs) {
    cur_.clear();
    if (!attrs.empty()) {
      for (size_t start = 0;;) {
        const size_t comma = attrs.find(',', start);
        cur_.push_back(attrs.substr(start, comma - start));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
      }
    }
    PutVarint(out, cur_.size());
    size_t next = 0;  // where the search for a matching piece starts
    for (const std::string_view piece : cur_) {
      const std::string_view key = PieceKey(piece);
      size_t skip = 0;
      while (skip <= kMaxSkip && next + skip < prev_.size() &&
             PieceKey(prev_[next + skip]) != key) {
        ++skip;
      }
      if (skip > kMaxSkip || next + skip >= prev_.size()) {
        PutVarint(out, 0);
        PutString(out, piece);
        continue;
      }
      const std::string_view base = prev_[next + skip];
      next += skip + 1;
      const size_t shared = SharedPrefix(base, piece);
      if (shared == piece.size() && shared == base.size()) {
        PutVarint(out, 1 + 2 * skip);
        continue;
      }
      PutVarint(out, 2 + 2 * skip);
      PutVarint(out, shared);
      PutString(out, piece.substr(shared));
    }
    prev_.swap(cur_);
  }

 private:
  std::vector<std::string_view> prev_, cur_;
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
  // Attrs written by AttrsEncoder, read against the previous event's: `prev` is that attrs
  // text and `pieces` its pieces as (offset, length); both are replaced by this event's.
  bool Attrs(std::string& prev, std::vector<std::pair<size_t, size_t>>& pieces,
             std::string& next, std::vector<std::pair<size_t, size_t>>& next_pieces) {
    uint64_t n = 0;
    if (!Varint(n) || n > static_cast<uint64_t>(end_ - p_)) return false;
    next.clear();
    next_pieces.clear();
    size_t base = 0;  // the first piece of `prev` a tag may refer to
    for (uint64_t i = 0; i < n; ++i) {
      if (i > 0) next.push_back(',');
      const size_t start = next.size();
      uint64_t tag = 0;
      std::string_view rest;
      if (!Varint(tag)) return false;
      if (tag == 0) {
        if (!Bytes(rest)) return false;
        next.append(rest);
      } else {
        const uint64_t skip = (tag - 1) / 2;
        if (skip >= pieces.size() - std::min(base, pieces.size())) return false;
        const auto [offset, length] = pieces[base + skip];
        base += skip + 1;
        if (tag % 2 == 1) {
          next.append(prev, offset, length);
        } else {
          uint64_t shared = 0;
          if (!Varint(shared) || shared > length || !Bytes(rest)) return false;
          next.append(prev, offset, shared);
          next.append(rest);
        }
      }
      next_pieces.emplace_back(start, next.size() - start);
    }
    prev.swap(next);
    pieces.swap(next_pieces);
    return true;
  }
  bool done() const { return p_ == end_; }

 private:
  const char* p_;
  const char* end_;
};

// The first byte of a chunk in the current layout. A chunk of the earlier layout (attrs
// written whole) starts with its event count, never 0 when it holds events.
constexpr char kSplitAttrsMarker = 0;

bool SplitAttrs(std::string_view blob) { return blob.size() > 1 && blob[0] == kSplitAttrsMarker; }

const Event& Deref(const Event& e) { return e; }
const Event& Deref(const Event* e) { return *e; }

template <typename Span>
void EncodeChunkOf(Span events, std::string& out) {
  out.push_back(kSplitAttrsMarker);
  PutVarint(out, events.size());
  StringTable strings;
  AttrsEncoder attrs;
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
    attrs.Put(out, e.attrs);
  }
}

}  // namespace

void EncodeChunk(std::span<const Event> events, std::string& out) { EncodeChunkOf(events, out); }
void EncodeChunk(std::span<const Event* const> events, std::string& out) {
  EncodeChunkOf(events, out);
}

std::optional<uint64_t> ChunkEventCount(std::string_view blob) {
  Reader r(SplitAttrs(blob) ? blob.substr(1) : blob);
  uint64_t count = 0;
  if (!r.Varint(count)) return std::nullopt;
  return count;
}

Status DecodeChunk(std::string_view blob, uint64_t first_id,
                   const std::function<bool(const Event&)>& fn) {
  auto damaged = [&](uint64_t i) {
    return Status::Error("damaged event chunk at id " + std::to_string(first_id + i) +
                         ": the file is corrupt; move it aside");
  };
  const bool split_attrs = SplitAttrs(blob);
  Reader r(split_attrs ? blob.substr(1) : blob);
  uint64_t count = 0;
  if (!r.Varint(count) || count > kMaxChunkEvents) return damaged(0);
  std::vector<std::string_view> table;
  Event e;
  uint64_t zz = 0, mask = 0, cookie = 0, shared = 0;
  std::string_view root, source, rest, attrs;
  std::string next_attrs;
  std::vector<std::pair<size_t, size_t>> pieces, next_pieces;
  for (uint64_t i = 0; i < count; ++i) {
    if (!r.Varint(zz) || !r.Varint(mask) || !r.Varint(cookie) || !r.Interned(table, root) ||
        !r.Interned(table, source) || !r.Varint(shared) || shared > e.path.size() ||
        !r.Bytes(rest) ||
        !(split_attrs ? r.Attrs(e.attrs, pieces, next_attrs, next_pieces) : r.Bytes(attrs))) {
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
    if (!split_attrs) e.attrs.assign(attrs);
    if (!fn(e)) return Status::Ok();
  }
  if (!r.done()) return damaged(count);
  return Status::Ok();
}

}  // namespace fathom::store

#include "store/event_chunk.h"

#include "core/varint.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

namespace fathom::store {
namespace {

uint64_t ZigZag(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }
int64_t UnZigZag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }

uint64_t Load8(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Byte k of the text is byte k of the value (bits 8k..8k+7) on every machine.
uint64_t Load8LittleEndian(const char* p) {
  const uint64_t v = Load8(p);
  if constexpr (std::endian::native == std::endian::little) return v;
  return __builtin_bswap64(v);
}

// Eight bytes at a time: attrs pieces and paths share long prefixes.
size_t SharedPrefix(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const uint64_t x = Load8LittleEndian(a.data() + i);
    const uint64_t y = Load8LittleEndian(b.data() + i);
    if (x != y) return i + static_cast<size_t>(std::countr_zero(x ^ y)) / 8;
  }
  while (i < n && a[i] == b[i]) ++i;
  return i;
}

// Encodes into a buffer of its own, grown without being zero-filled, and appended to the
// output once: a std::string append per field costs a call each, a third of the encoding time.
class ChunkWriter {
 public:
  // Makes room for `n` more bytes; every write must have had room made for it.
  void Reserve(size_t n) {
    if (cap_ - len_ < n) Grow(n);
  }
  void Byte(char c) { buf_[len_++] = c; }
  void Varint(uint64_t v) { len_ = static_cast<size_t>(WriteVarint(buf_.get() + len_, v) - buf_.get()); }
  void String(std::string_view s) {
    Varint(s.size());
    std::memcpy(buf_.get() + len_, s.data(), s.size());
    len_ += s.size();
  }
  std::string_view view() const { return {buf_.get(), len_}; }

 private:
  void Grow(size_t n) {
    const size_t cap = std::max({2 * cap_, len_ + n, size_t{4096}});
    auto buf = std::make_unique_for_overwrite<char[]>(cap);
    if (len_ > 0) std::memcpy(buf.get(), buf_.get(), len_);
    buf_ = std::move(buf);
    cap_ = cap;
  }

  std::unique_ptr<char[]> buf_;
  size_t cap_ = 0;
  size_t len_ = 0;
};

// Interns strings that repeat across a chunk (roots, sources): a handful per chunk.
class StringTable {
 public:
  void Put(ChunkWriter& out, std::string_view s) {
    auto it = std::find(strings_.begin(), strings_.end(), s);
    if (it != strings_.end()) {
      out.Varint(static_cast<uint64_t>(it - strings_.begin()));
      return;
    }
    out.Varint(strings_.size());
    out.String(s);
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

class AttrsEncoder {
 public:
  // The most bytes Put() writes for `attrs`.
  static size_t Bound(std::string_view attrs) {
    return attrs.size() + (attrs.size() + 2) * 3 * kMaxVarintBytes;
  }

  void Put(ChunkWriter& out, std::string_view attrs) {
    Split(attrs, cur_);
    out.Varint(cur_.size());
    size_t next = 0;  // where the search for a matching piece starts
    for (const Piece& piece : cur_) {
      size_t skip = 0;
      while (skip <= kMaxSkip && next + skip < prev_.size() && !SameKey(prev_[next + skip], piece)) {
        ++skip;
      }
      if (skip > kMaxSkip || next + skip >= prev_.size()) {
        out.Varint(0);
        out.String(piece.text);
        continue;
      }
      const std::string_view base = prev_[next + skip].text;
      next += skip + 1;
      const size_t shared = SharedPrefix(base, piece.text);
      if (shared == base.size() && shared == piece.text.size()) {
        out.Varint(1 + 2 * skip);
        continue;
      }
      out.Varint(2 + 2 * skip);
      out.Varint(shared);
      out.String(piece.text.substr(shared));
    }
    prev_.swap(cur_);
  }

 private:
  struct Piece {
    std::string_view text;
    size_t key = 0;   // length of the key: through the first ':', 0 without one
    uint64_t head = 0;  // the key's first bytes (up to 8), the rest zero: compared first
  };

  // One pass over the text, eight bytes at a time (a search call per piece costs more than the
  // short pieces it searches).
  static void Split(std::string_view attrs, std::vector<Piece>& out) {
    out.clear();
    if (attrs.empty()) return;
    const char* const text = attrs.data();
    const size_t n = attrs.size();
    size_t start = 0;            // of the current piece
    size_t colon = kNone;        // the first ':' of the current piece, when seen
    auto emit = [&](size_t end) {
      // Field by field: a Piece built aside and copied in stalls on its own just-written bytes.
      Piece& piece = out.emplace_back();
      piece.text = std::string_view(text + start, end - start);
      piece.key = colon < end ? colon - start + 1 : 0;
      piece.head = Head(text + start, n - start, piece.key);
      start = end + 1;
      colon = kNone;
    };
    // The bytes equal to ',' and ':' as bit masks, walked in order.
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      const uint64_t word = Load8LittleEndian(text + i);
      uint64_t commas = BytesEqual(word, ',');
      uint64_t colons = BytesEqual(word, ':');
      while (commas != 0) {
        const size_t at = static_cast<size_t>(std::countr_zero(commas)) / 8;
        const uint64_t before = colons & ((uint64_t{1} << (8 * at)) - 1);
        if (colon == kNone && before != 0) colon = i + static_cast<size_t>(std::countr_zero(before)) / 8;
        emit(i + at);
        colons &= ~((uint64_t{2} << (8 * at + 7)) - 1);  // only those after the comma
        commas &= commas - 1;
      }
      if (colon == kNone && colons != 0) colon = i + static_cast<size_t>(std::countr_zero(colons)) / 8;
    }
    for (; i < n; ++i) {
      if (text[i] == ',') {
        emit(i);
      } else if (text[i] == ':' && colon == kNone) {
        colon = i;
      }
    }
    emit(n);
  }

  static constexpr size_t kNone = ~size_t{0};

  // The high bit of each byte of `word` that equals `c`, and no other bit.
  static uint64_t BytesEqual(uint64_t word, char c) {
    constexpr uint64_t kLow7 = 0x7f7f7f7f7f7f7f7full;
    const uint64_t x = word ^ (0x0101010101010101ull * static_cast<uint8_t>(c));
    return ~(((x & kLow7) + kLow7) | x) & ~kLow7;
  }

  // The first `key` bytes (at most 8) of the `left` bytes at p, the rest zero.
  static uint64_t Head(const char* p, size_t left, size_t key) {
    if (key == 0) return 0;
    if (left < 8) {
      char bytes[8] = {};
      std::memcpy(bytes, p, key);
      return Load8LittleEndian(bytes);
    }
    const uint64_t h = Load8LittleEndian(p);
    return key >= 8 ? h : h & ((uint64_t{1} << (8 * key)) - 1);
  }

  static bool SameKey(const Piece& a, const Piece& b) {
    return a.key == b.key && a.head == b.head &&
           (a.key <= 8 || std::memcmp(a.text.data() + 8, b.text.data() + 8, a.key - 8) == 0);
  }

  std::vector<Piece> prev_, cur_;
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
  // The same walk as Attrs() following only the pieces' lengths (`pieces` the previous
  // event's, replaced by this event's): `length` receives the attrs text's length.
  bool AttrsLengths(std::vector<size_t>& pieces, std::vector<size_t>& next_pieces,
                    uint64_t& length) {
    uint64_t n = 0;
    if (!Varint(n) || n > static_cast<uint64_t>(end_ - p_)) return false;
    next_pieces.clear();
    length = n > 0 ? n - 1 : 0;  // the commas
    size_t base = 0;
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t tag = 0;
      std::string_view rest;
      if (!Varint(tag)) return false;
      size_t piece = 0;
      if (tag == 0) {
        if (!Bytes(rest)) return false;
        piece = rest.size();
      } else {
        const uint64_t skip = (tag - 1) / 2;
        if (skip >= pieces.size() - std::min(base, pieces.size())) return false;
        const size_t matched = pieces[base + skip];
        base += skip + 1;
        if (tag % 2 == 1) {
          piece = matched;
        } else {
          uint64_t shared = 0;
          if (!Varint(shared) || shared > matched || !Bytes(rest)) return false;
          piece = shared + rest.size();
        }
      }
      length += piece;
      next_pieces.push_back(piece);
    }
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

const Event& Deref(const Event& e) { return e; }
const Event& Deref(const Event* e) { return *e; }

template <typename Span>
void EncodeChunkOf(Span events, std::string& out) {
  ChunkWriter w;
  w.Reserve(1 + kMaxVarintBytes);
  w.Byte(kSplitAttrsMarker);
  w.Varint(events.size());
  StringTable strings;
  AttrsEncoder attrs;
  int64_t prev_ts = 0;
  std::string_view prev_path;
  for (const auto& item : events) {
    const Event& e = Deref(item);
    w.Reserve(8 * kMaxVarintBytes + e.root.size() + e.source.size() + e.path.size() +
              AttrsEncoder::Bound(e.attrs));
    w.Varint(ZigZag(static_cast<int64_t>(static_cast<uint64_t>(e.ts_ns) -
                                         static_cast<uint64_t>(prev_ts))));
    prev_ts = e.ts_ns;
    w.Varint(e.mask);
    w.Varint(e.cookie);
    strings.Put(w, e.root);
    strings.Put(w, e.source);
    const size_t shared = SharedPrefix(prev_path, e.path);
    w.Varint(shared);
    w.String(std::string_view(e.path).substr(shared));
    prev_path = e.path;
    attrs.Put(w, e.attrs);
  }
  out.append(w.view());
}

}  // namespace

void EncodeChunk(std::span<const Event> events, std::string& out) { EncodeChunkOf(events, out); }
void EncodeChunk(std::span<const Event* const> events, std::string& out) {
  EncodeChunkOf(events, out);
}

bool ChunkInCurrentLayout(std::string_view blob) {
  return blob.size() > 1 && blob[0] == kSplitAttrsMarker;
}

std::optional<uint64_t> ChunkEventCount(std::string_view blob) {
  Reader r(ChunkInCurrentLayout(blob) ? blob.substr(1) : blob);
  uint64_t count = 0;
  if (!r.Varint(count)) return std::nullopt;
  return count;
}

namespace {

Status Damaged(uint64_t first_id, uint64_t i) {
  return Status::Error("damaged event chunk at id " + std::to_string(first_id + i) +
                       ": its bytes do not decode");
}

// What ChunkWalk reads of one event beyond what it rebuilds.
struct WalkedEvent {
  int64_t ts_ns = 0;
  uint32_t mask = 0, cookie = 0;
  std::string_view root, source;
  uint64_t path_size = 0, attrs_size = 0;
};

// Reads a chunk's events in order: with kDecode into `e`'s strings (the attrs text rebuilt),
// else following the attrs' lengths only, the path rebuilt into `e.path` when `paths`.
// `fn(walked)` is called per event until it returns false. DecodeChunk and ScanChunk are both
// this walk, so that they accept exactly the same blobs.
template <bool kDecode, typename Fn>
Status ChunkWalk(std::string_view blob, uint64_t first_id, bool paths, Event& e, Fn&& fn) {
  const bool split_attrs = ChunkInCurrentLayout(blob);
  Reader r(split_attrs ? blob.substr(1) : blob);
  uint64_t count = 0;
  if (!r.Varint(count) || count > kMaxChunkEvents) return Damaged(first_id, 0);
  std::vector<std::string_view> table;
  WalkedEvent w;
  uint64_t zz = 0, mask = 0, cookie = 0, shared = 0;
  std::string_view rest, attrs;
  std::string next_attrs;
  std::vector<std::pair<size_t, size_t>> pieces, next_pieces;
  std::vector<size_t> lengths, next_lengths;
  for (uint64_t i = 0; i < count; ++i) {
    if (!r.Varint(zz) || !r.Varint(mask) || !r.Varint(cookie) || !r.Interned(table, w.root) ||
        !r.Interned(table, w.source) || !r.Varint(shared) || shared > w.path_size ||
        !r.Bytes(rest)) {
      return Damaged(first_id, i);
    }
    bool attrs_read = false;
    if constexpr (kDecode) {
      attrs_read = split_attrs ? r.Attrs(e.attrs, pieces, next_attrs, next_pieces) : r.Bytes(attrs);
      if (attrs_read && !split_attrs) e.attrs.assign(attrs);
      w.attrs_size = e.attrs.size();
    } else {
      attrs_read = split_attrs ? r.AttrsLengths(lengths, next_lengths, w.attrs_size) : r.Bytes(attrs);
      if (attrs_read && !split_attrs) w.attrs_size = attrs.size();
    }
    if (!attrs_read) return Damaged(first_id, i);
    w.ts_ns = static_cast<int64_t>(static_cast<uint64_t>(w.ts_ns) + static_cast<uint64_t>(UnZigZag(zz)));
    w.mask = static_cast<uint32_t>(mask);
    w.cookie = static_cast<uint32_t>(cookie);
    w.path_size = shared + rest.size();
    if (kDecode || paths) {
      e.path.resize(shared);
      e.path.append(rest);
    }
    if (!fn(w)) return Status::Ok();
  }
  if (!r.done()) return Damaged(first_id, count);
  return Status::Ok();
}

template <typename Span>
EncodedChunk MakeChunkOf(Span events) {
  EncodedChunk chunk;
  auto data = std::make_shared<std::string>();
  EncodeChunkOf(events, *data);
  chunk.data = std::move(data);
  chunk.count = static_cast<uint32_t>(events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    const int64_t ts = Deref(events[i]).ts_ns;
    chunk.min_ts = i == 0 ? ts : std::min(chunk.min_ts, ts);
    chunk.max_ts = i == 0 ? ts : std::max(chunk.max_ts, ts);
  }
  return chunk;
}

}  // namespace

EncodedChunk MakeChunk(std::span<const Event> events) { return MakeChunkOf(events); }
EncodedChunk MakeChunk(std::span<const Event* const> events) { return MakeChunkOf(events); }

Status DecodeChunk(std::string_view blob, uint64_t first_id,
                   const std::function<bool(const Event&)>& fn) {
  Event e;
  e.id = first_id;
  bool first = true;
  return ChunkWalk<true>(blob, first_id, true, e, [&](const WalkedEvent& w) {
    e.id += first ? 0 : 1;
    first = false;
    e.ts_ns = w.ts_ns;
    e.mask = w.mask;
    e.cookie = w.cookie;
    e.root.assign(w.root);
    e.source.assign(w.source);
    return fn(e);
  });
}

Result<ChunkSummary> ScanChunk(std::string_view blob,
                               const std::function<bool(std::string_view)>& path) {
  Event scratch;  // the path, when asked for
  ChunkSummary summary;
  Status status = ChunkWalk<false>(blob, 0, path != nullptr, scratch, [&](const WalkedEvent& w) {
    if (path != nullptr && !path(scratch.path)) return false;
    summary.min_ts = summary.count == 0 ? w.ts_ns : std::min(summary.min_ts, w.ts_ns);
    summary.max_ts = summary.count == 0 ? w.ts_ns : std::max(summary.max_ts, w.ts_ns);
    summary.string_bytes += w.root.size() + w.source.size() + w.path_size + w.attrs_size;
    summary.kindless += (w.mask & kind::kAll) == 0 ? 1 : 0;
    ++summary.count;
    return true;
  });
  if (!status.ok()) return status;
  return summary;
}

}  // namespace fathom::store

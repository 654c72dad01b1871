// Event chunks (src/store/event_chunk.h): attrs written piece by piece against the previous
// event's, every shape of attrs coming back byte for byte, damage refused, and chunks of the
// earlier layout still read, directly and from a store file.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "core/varint.h"
#include "store/event_chunk.h"
#include "store/store_test_util.h"
#include "support/temp_dir.h"

namespace fathom {
namespace {

std::vector<Event> Decoded(std::string_view blob, Status* status = nullptr) {
  std::vector<Event> out;
  Status s = store::DecodeChunk(blob, 1, [&](const Event& e) {
    out.push_back(e);
    return true;
  });
  if (status != nullptr) *status = s;
  else EXPECT_TRUE(s.ok()) << s.message();
  return out;
}

std::vector<Event> WithAttrs(const std::vector<std::string>& attrs) {
  std::vector<Event> events;
  for (size_t i = 0; i < attrs.size(); ++i) {
    Event e = testing::MakeEvent("/watched/f" + std::to_string(i), 1000 + static_cast<int64_t>(i));
    e.id = 1 + i;
    e.attrs = attrs[i];
    events.push_back(e);
  }
  return events;
}

// Attrs as a Lustre changelog source writes them: pfid missing from CLOSE records, uid, gid
// and jobid changing every few records.
std::string LustreAttrs(uint64_t recno) {
  static const char* const kTypes[] = {"CREAT", "CLOSE", "SATTR", "MTIME"};
  const uint64_t file = recno / 4;
  std::string a = "{\"fid\":\"[0x200000400:0x" + std::to_string(0x1b + file) + ":0x0]\"";
  if (recno % 4 != 1) a += ",\"pfid\":\"[0x200000400:0x2:0x0]\"";
  a += ",\"mdt\":0,\"recno\":" + std::to_string(recno) + ",\"type\":\"" + kTypes[recno % 4] +
       "\",\"flags\":" + std::to_string(recno % 4 == 1 ? 66 : 0) + ",\"uid\":" +
       std::to_string(1000 + file) + ",\"gid\":1000,\"jobid\":\"bench." +
       std::to_string(1000 + file) + "\",\"nid\":\"0@lo\"}";
  return a;
}

TEST(EventChunk, AttrsOfEveryShapeRoundTrip) {
  const std::vector<std::string> attrs = {
      "", ",", ",,", "{}", "{\"a\":1}", "{\"a\":1}", "{\"a\":2}", "{\"a\":1,\"b\":2}",
      // a member appears, another goes, one moves: pieces are matched by key
      "{\"a\":1,\"x\":9,\"b\":2}", "{\"a\":1,\"b\":3}", "{\"b\":3,\"a\":1}",
      // keyless pieces (a comma inside a value), empty pieces, a key alone
      "{\"tags\":\"a,b,c\"}", "{\"tags\":\"a,b,d\"}", ",,x,", "k:", "k:v", "k:", "",
      "{\"a\":1}", "no json at all", "no json at all, twice"};
  const auto events = WithAttrs(attrs);
  std::string blob;
  store::EncodeChunk(events, blob);
  EXPECT_EQ(Decoded(blob), events);
}

// Attrs are split eight bytes at a time: commas and colons at every offset, of every length.
TEST(EventChunk, SeparatorsAtEveryOffsetRoundTrip) {
  std::mt19937 random(20261122);
  const std::string alphabet = ",:,:ab\"{";
  std::vector<std::string> attrs;
  for (int i = 0; i < 3000; ++i) {
    std::string a(random() % 41, ' ');
    for (char& c : a) c = alphabet[random() % alphabet.size()];
    attrs.push_back(a);
    if (i % 3 == 0) attrs.push_back(a);  // repeated pieces, matched against the previous event
  }
  for (size_t begin = 0; begin < attrs.size(); begin += store::kMaxChunkEvents) {
    const auto events = WithAttrs(std::vector<std::string>(
        attrs.begin() + begin, attrs.begin() + std::min(attrs.size(), begin + store::kMaxChunkEvents)));
    std::string blob;
    store::EncodeChunk(events, blob);
    ASSERT_EQ(Decoded(blob), events);
  }
}

TEST(EventChunk, PiecesPassedOverBeyondTheSearchLimitAreWrittenWhole) {
  std::string many = "{\"m0\":0";
  for (int i = 1; i < 20; ++i) many += ",\"m" + std::to_string(i) + "\":" + std::to_string(i);
  many += "}";
  // The second event keeps only the last members: 18 pieces before them go unmatched.
  const auto events = WithAttrs({many, "{\"m18\":18,\"m19\":19}", many, many});
  std::string blob;
  store::EncodeChunk(events, blob);
  EXPECT_EQ(Decoded(blob), events);
}

TEST(EventChunk, LustreAttrsTakeAFractionOfTheirText) {
  std::vector<Event> events;
  size_t text = 0;
  for (uint64_t recno = 100; recno < 4196; ++recno) {
    Event e = testing::MakeEvent("/mnt/lustre/d0/f" + std::to_string(recno / 4),
                                 1'700'000'000'000'000'000 + static_cast<int64_t>(recno) * 1000);
    e.id = recno - 99;
    e.source = "lustre:fs-MDT0000";
    e.attrs = LustreAttrs(recno);
    text += e.attrs.size();
    events.push_back(e);
  }
  std::string blob;
  store::EncodeChunk(events, blob);
  EXPECT_EQ(Decoded(blob), events);
  const double attrs_per_event = static_cast<double>(text) / static_cast<double>(events.size());
  const double bytes_per_event = static_cast<double>(blob.size()) / static_cast<double>(events.size());
  EXPECT_GT(attrs_per_event, 150);
  EXPECT_LT(bytes_per_event, 50) << "attrs of " << attrs_per_event << " bytes per event";
}

TEST(EventChunk, DamagedAttrsAreRefused) {
  // One event: marker, count 1, ts, mask, cookie, root new "", source entry 0, path "".
  const std::string head("\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00", 10);
  Status s;
  // A piece said to repeat the previous event's, which has none.
  Decoded(head + std::string("\x01\x01", 2), &s);
  EXPECT_FALSE(s.ok());
  // Two events: the second shares more of a piece than the piece holds.
  std::string two("\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00", 10);
  two += std::string("\x01\x00\x02{}", 5);                // attrs "{}"
  two += std::string("\x00\x00\x00\x00\x00\x00\x00", 7);  // second event, up to its attrs
  two += std::string("\x01\x02\x03\x00", 4);             // shares 3 bytes of "{}"
  const auto decoded = Decoded(two, &s);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(decoded.size(), 1u);
  // More pieces than bytes left.
  Decoded(head + std::string("\x05\x00", 2), &s);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("damaged event chunk at id 1"), std::string::npos) << s.message();
}

std::string EarlierLayoutChunk();

// The scan follows the same walk as decoding without building events: the same counts, ts
// range and string bytes, each path rebuilt on request, and a stop where the caller says.
TEST(EventChunk, ScanSummarisesWhatDecodingBuilds) {
  std::vector<Event> events;
  for (uint64_t i = 0; i < 300; ++i) {
    Event e = testing::MakeEvent("/lustre/d" + std::to_string(i % 7) + "/f" + std::to_string(i),
                                 5000 - static_cast<int64_t>(i % 50) * 3);
    e.attrs = LustreAttrs(i);
    e.mask = i == 17 ? kind::kIsDir : kind::kCreate;  // one event of no kind
    events.push_back(e);
  }
  std::string blob;
  store::EncodeChunk(events, blob);
  std::vector<std::string> paths;
  auto summary = store::ScanChunk(blob, [&](std::string_view path) {
    paths.emplace_back(path);
    return true;
  });
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_EQ(summary->count, 300u);
  EXPECT_EQ(summary->min_ts, 5000 - 49 * 3);
  EXPECT_EQ(summary->max_ts, 5000);
  EXPECT_EQ(summary->kindless, 1u);
  uint64_t bytes = 0;
  for (const auto& e : events) bytes += e.root.size() + e.path.size() + e.source.size() + e.attrs.size();
  EXPECT_EQ(summary->string_bytes, bytes);
  ASSERT_EQ(paths.size(), events.size());
  for (size_t i = 0; i < paths.size(); ++i) EXPECT_EQ(paths[i], events[i].path);
  EXPECT_EQ(store::ScanChunk(blob)->string_bytes, bytes);  // without paths

  size_t seen = 0;
  auto stopped = store::ScanChunk(blob, [&](std::string_view) { return ++seen < 10; });
  ASSERT_TRUE(stopped.ok());
  EXPECT_EQ(stopped->count, 9u);

  const EncodedChunk made = store::MakeChunk(events);
  EXPECT_EQ(*made.data, blob);
  EXPECT_EQ(made.count, 300u);
  EXPECT_EQ(made.min_ts, summary->min_ts);
  EXPECT_EQ(made.max_ts, summary->max_ts);
}

TEST(EventChunk, ScanRefusesExactlyWhatDecodingRefuses) {
  std::vector<Event> events;
  for (uint64_t i = 0; i < 40; ++i) {
    Event e = testing::MakeEvent("/w/f" + std::to_string(i), static_cast<int64_t>(i));
    e.attrs = LustreAttrs(i);
    events.push_back(e);
  }
  std::string blob;
  store::EncodeChunk(events, blob);
  std::mt19937 random(7);
  size_t refused = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string damaged = blob;
    const size_t at = random() % damaged.size();
    damaged[at] = static_cast<char>(random());
    if (trial % 3 == 0) damaged.resize(at);
    Status decoded;
    Decoded(damaged, &decoded);
    const auto scanned = store::ScanChunk(damaged);
    ASSERT_EQ(scanned.ok(), decoded.ok()) << "byte " << at << " of trial " << trial;
    refused += decoded.ok() ? 0 : 1;
  }
  EXPECT_GT(refused, 1000u);  // the trials did reach damage
  EXPECT_TRUE(store::ScanChunk(EarlierLayoutChunk()).ok());
}

// A chunk as earlier versions wrote it: no marker, attrs as one string.
std::string EarlierLayoutChunk() {
  std::string chunk;
  PutVarint(chunk, 2);
  for (int i = 0; i < 2; ++i) {
    PutVarint(chunk, i == 0 ? 2000 : 2);  // ts 1000, then 1001 (zigzag)
    PutVarint(chunk, kind::kCreate);
    PutVarint(chunk, 0);
    PutVarint(chunk, 0);  // root: entry 0
    if (i == 0) PutString(chunk, "/r");
    PutVarint(chunk, 1);  // source: entry 1
    if (i == 0) PutString(chunk, "s");
    PutVarint(chunk, i == 0 ? 0 : 3);
    PutString(chunk, i == 0 ? "/r/a" : "b");
    PutString(chunk, i == 0 ? "{\"n\":1,\"m\":2}" : "");
  }
  return chunk;
}

TEST(EventChunk, ChunksOfTheEarlierLayoutStillDecode) {
  const auto events = Decoded(EarlierLayoutChunk());
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].ts_ns, 1000);
  EXPECT_EQ(events[1].ts_ns, 1001);
  EXPECT_EQ(events[0].root, "/r");
  EXPECT_EQ(events[1].source, "s");
  EXPECT_EQ(events[0].path, "/r/a");
  EXPECT_EQ(events[1].path, "/r/b");
  EXPECT_EQ(events[0].attrs, "{\"n\":1,\"m\":2}");
  EXPECT_EQ(events[1].attrs, "");
  EXPECT_EQ(store::ChunkEventCount(EarlierLayoutChunk()), 2u);
}

TEST(EventChunk, AStoreWrittenWithTheEarlierLayoutReadsOnAndTakesNewChunks) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  {
    auto store = testing::OpenOrDie(testing::WriterOptions(db));
    ASSERT_NE(store, nullptr);
    auto batch = testing::MakeBatch(2);
    ASSERT_TRUE(store->Append(batch).ok());
  }
  // Replace the row's chunk by the same ids in the earlier layout.
  const std::string chunk = EarlierLayoutChunk();
  std::string hex;
  for (unsigned char c : chunk) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    hex += kHex[c >> 4];
    hex += kHex[c & 15];
  }
  // Rows of that layout were written before checksums were kept: crc NULL; their timestamps
  // are their events'.
  auto summary = store::ScanChunk(chunk);
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  testing::SqlColumn(db,
                     "UPDATE chunks SET data = x'" + hex + "', crc = NULL, min_ts = " +
                         std::to_string(summary.value().min_ts) +
                         ", max_ts = " + std::to_string(summary.value().max_ts),
                     SQLITE_OPEN_READWRITE);
  auto store = testing::OpenOrDie(testing::WriterOptions(db));
  ASSERT_NE(store, nullptr);
  auto later = testing::MakeBatch(3, 10);
  ASSERT_TRUE(store->Append(later).ok());
  std::vector<Event> replayed;
  ASSERT_TRUE(store->Replay({}, [&](const Event& e) {
                     replayed.push_back(e);
                     return true;
                   }).ok());
  ASSERT_EQ(replayed.size(), 5u);
  EXPECT_EQ(replayed[0].id, 1u);
  EXPECT_EQ(replayed[0].attrs, "{\"n\":1,\"m\":2}");
  EXPECT_EQ(replayed[1].path, "/r/b");
  EXPECT_EQ(replayed[4].id, 5u);
  EXPECT_EQ(replayed[4].path, "/watched/f12");
}

}  // namespace
}  // namespace fathom

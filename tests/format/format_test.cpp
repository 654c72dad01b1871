#include "fathom/format.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace fathom {
namespace {

Event Make(uint32_t mask, const std::string& rel, uint32_t cookie = 0) {
  Event e;
  e.id = 42;
  e.ts_ns = 1732200000123456789;
  e.mask = mask;
  e.cookie = cookie;
  e.root = "/home/u/test";
  e.path = rel.empty() ? e.root : e.root + rel;
  e.source = "inotify";
  return e;
}

std::string Render(Format f, const std::vector<Event>& events) {
  auto formatter = MakeFormatter(f);
  std::string out;
  for (const auto& e : events) formatter->Write(e, out);
  formatter->Flush(out);
  return out;
}

TEST(InotifyFormat, PrintsRootKindsAndRelativePathAsTableII) {
  EXPECT_EQ(Render(Format::kInotify, {Make(kind::kCreate | kind::kIsDir, "/okdir")}),
            "/home/u/test CREATE,ISDIR /okdir\n");
  EXPECT_EQ(Render(Format::kInotify, {Make(kind::kDeleteSelf, "")}), "/home/u/test DELETE_SELF /\n");
}

TEST(JsonFormat, CarriesIdTsEventsAbsolutePathCookieAndSource) {
  auto line = Render(Format::kJson, {Make(kind::kMovedTo, "/okdir/hi \"x\".txt", 7)});
  ASSERT_EQ(line.back(), '\n');
  auto j = nlohmann::json::parse(line);
  EXPECT_EQ(j["id"], 42);
  EXPECT_EQ(j["ts"], 1732200000123456789LL);
  EXPECT_EQ(j["events"], nlohmann::json::array({"MOVED_TO"}));
  EXPECT_EQ(j["path"], "/home/u/test/okdir/hi \"x\".txt");
  EXPECT_EQ(j["cookie"], 7);
  EXPECT_EQ(j["source"], "inotify");
}

TEST(JsonFormat, SplicesSourceAttributesIntoTheObject) {
  Event e = Make(kind::kCreate, "/f");
  e.attrs = R"({"fid":"[0x200000007:0x1:0x0]","mdt":0})";
  auto j = nlohmann::json::parse(Render(Format::kJson, {e}));
  EXPECT_EQ(j["fid"], "[0x200000007:0x1:0x0]");
  EXPECT_EQ(j["mdt"], 0);
  EXPECT_EQ(j["id"], 42);
}

TEST(JsonFormat, EscapesControlCharactersInNames) {
  auto j = nlohmann::json::parse(Render(Format::kJson, {Make(kind::kCreate, "/a\nb\x01")}));
  EXPECT_EQ(j["path"], "/home/u/test/a\nb\x01");
}

TEST(JsonFormat, NameThatIsNotUtf8IsValidJsonWithItsExactBytesInPathB64) {
  Event e = Make(kind::kCreate, "/d/\x80\xff.txt");
  e.root = "/home/u/t\xe9st";
  e.path = e.root + "/d/\x80\xff.txt";
  const std::string line = Render(Format::kJson, {e});
  EXPECT_NE(line.find("\"path\":\"/home/u/t\xef\xbf\xbdst/d/\xef\xbf\xbd\xef\xbf\xbd.txt\","
                      "\"path_b64\":\"L2hvbWUvdS906XN0L2QvgP8udHh0\","
                      "\"root\":\"/home/u/t\xef\xbf\xbdst\",\"root_b64\":\"L2hvbWUvdS906XN0\","),
            std::string::npos)
      << line;
  auto j = nlohmann::json::parse(line);  // throws on invalid UTF-8
  EXPECT_EQ(j["path"], "/home/u/t\xef\xbf\xbdst/d/\xef\xbf\xbd\xef\xbf\xbd.txt");
}

TEST(JsonFormat, Utf8NamesHaveNoB64Companion) {
  auto line = Render(Format::kJson, {Make(kind::kCreate, "/caf\xc3\xa9 \xf0\x9f\x93\x81")});
  EXPECT_EQ(line.find("_b64"), std::string::npos) << line;
  EXPECT_EQ(nlohmann::json::parse(line)["path"], "/home/u/test/caf\xc3\xa9 \xf0\x9f\x93\x81");
}

TEST(JsonString, OverlongSurrogateAndTruncatedSequencesAreNotUtf8) {
  EXPECT_TRUE(IsValidUtf8("plain \xc3\xa9 \xe2\x82\xac \xf4\x8f\xbf\xbf"));
  for (std::string bad : {"\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82",
                          "\xf8\x88\x80\x80\x80", "\xbf"}) {
    EXPECT_FALSE(IsValidUtf8(bad)) << bad;
    std::string out;
    AppendJsonString(bad, out);
    EXPECT_TRUE(IsValidUtf8(out)) << out;
    nlohmann::json parsed;
    EXPECT_NO_THROW(parsed = nlohmann::json::parse(out)) << out;
    EXPECT_TRUE(parsed.is_string()) << out;
  }
}

TEST(KqueueFormat, MapsKindsToVnodeNotes) {
  EXPECT_EQ(Render(Format::kKqueue, {Make(kind::kModify, "/f"), Make(kind::kDelete, "/f"),
                                     Make(kind::kMovedFrom, "/f", 1), Make(kind::kAttrib, "/f")}),
            "/home/u/test NOTE_WRITE /f\n/home/u/test NOTE_DELETE /f\n"
            "/home/u/test NOTE_RENAME /f\n/home/u/test NOTE_ATTRIB /f\n");
}

TEST(FseventsFormat, MapsKindsToItemFlagsWithFileOrDir) {
  EXPECT_EQ(Render(Format::kFsevents, {Make(kind::kCreate | kind::kIsDir, "/d"), Make(kind::kModify, "/f")}),
            "/home/u/test ItemCreated,ItemIsDir /d\n/home/u/test ItemModified,ItemIsFile /f\n");
  EXPECT_EQ(Render(Format::kFsevents, {Make(kind::kOverflow, "")}), "/home/u/test MustScanSubDirs /\n");
  EXPECT_EQ(Render(Format::kFsevents, {Make(kind::kOpen, "/f")}), "");
}

TEST(WindowsFormat, PairsRenameHalvesIntoOneRenamedLine) {
  EXPECT_EQ(Render(Format::kWindows, {Make(kind::kMovedFrom, "/hello.txt", 3), Make(kind::kMovedTo, "/hi.txt", 3),
                                      Make(kind::kModify, "/hi.txt")}),
            "/home/u/test Renamed /hello.txt -> /hi.txt\n/home/u/test Changed /hi.txt\n");
}

TEST(WindowsFormat, UnpairedHalvesBecomeDeletedAndCreated) {
  EXPECT_EQ(Render(Format::kWindows, {Make(kind::kMovedFrom, "/out", 3), Make(kind::kMovedTo, "/in", 4)}),
            "/home/u/test Deleted /out\n/home/u/test Created /in\n");
  EXPECT_EQ(Render(Format::kWindows, {Make(kind::kMovedFrom, "/last", 9)}), "/home/u/test Deleted /last\n");
}

TEST(ParseFormat, RejectsUnknownNamesListingTheChoices) {
  EXPECT_TRUE(ParseFormat("json").ok());
  auto bad = ParseFormat("xml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("inotify, json, kqueue, fsevents or windows"), std::string::npos);
}

}  // namespace
}  // namespace fathom

// Events as JSON and back: what a delivery keeps in the outbox is what its action receives,
// byte for byte, whatever its paths hold; malformed documents are refused with the reason.
#include <gtest/gtest.h>

#include "rules/actions/event_json.h"

namespace fathom::rules {
namespace {

TEST(EventJsonTest, EventsComeBackExactlyWithNonUtf8PathsKindsAndAttributes) {
  std::vector<Event> events(3);
  events[0] = {7, 1700000000123456789, kind::kCreate | kind::kIsDir, 0, "/lab", "/lab/raw/run 1", "inotify", ""};
  events[1] = {8, 1700000000223456789, kind::kMovedTo, 42, "/lab", std::string("/lab/raw/caf\xe9\n$(x).h5"),
               "fanotify", R"({"pid":1234})"};
  events[2] = {9, 5, kind::kCloseWrite, 0, std::string("/r\xff"), "/r\xff/-rf", "lustre", ""};
  const std::string json = EventsJson(events);
  EXPECT_NE(json.find("\"path_b64\""), std::string::npos) << json;
  auto back = ParseEventsJson(json);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, events);
}

TEST(EventJsonTest, MalformedDocumentsAreRefusedWithTheReason) {
  EXPECT_EQ(ParseEventsJson("{").status().message(), "events: not a JSON array");
  EXPECT_EQ(ParseEventsJson("[{\"ts_ns\":1}]").status().message(), "event 0: no id");
  EXPECT_EQ(ParseEventsJson(R"([{"id":1,"kinds":["CREAT"],"path":"/a","root":"/"}])").status().message(),
            "event 0: unknown kind \"CREAT\"");
  EXPECT_EQ(ParseEventsJson(R"([{"id":1,"kinds":[],"root":"/"}])").status().message(), "event 0: no text 'path'");
  EXPECT_EQ(ParseEventsJson(R"([{"id":1,"kinds":[],"path":"x","path_b64":"@@","root":"/"}])").status().message(),
            "event 0: 'path_b64' is not base64");
}

}  // namespace
}  // namespace fathom::rules

// The publisher and the fetch against a real nats-server: a growing trace goes out frame by
// frame, a damaged frame waits for the end of the run, large files go in 256 KiB messages, a
// second publisher sends only what the stream lacks, and the fetch rebuilds the files or says
// which message is wrong.
#include <gtest/gtest.h>
#include <nats/nats.h>

#include <filesystem>
#include <thread>

#include "bus/bus_test_util.h"
#include "bus/jetstream_link.h"
#include "fathom/io_transport.h"
#include "iotrace/transport/trace_files.h"
#include "support/nats_server.h"
#include "support/temp_dir.h"

namespace fathom::iotrace {
namespace {

using namespace std::chrono_literals;
using namespace testing;
using fathom::testing::NatsServers;
using fathom::testing::TempDir;

class TracePublisherTest : public ::testing::Test {
 protected:
  TransportOptions Options(const std::string& job, const std::string& dir) {
    TransportOptions options;
    options.endpoint = nats_.url(0);
    options.job = job;
    options.dir = dir;
    options.poll_interval = 50ms;
    options.max_backoff = 200ms;
    return options;
  }

  // The job's files as the stream holds them now (none before the first is published).
  std::map<std::string, std::string> Fetched(const std::string& job) {
    const std::string out = dir_ / ("fetched-" + std::to_string(fetches_++));
    return FetchJobTraces(nats_.url(0), job, out).ok() ? FilesIn(out)
                                                       : std::map<std::string, std::string>();
  }

  // Waits until the stream holds `bytes` of `file`, then a few polls more to see that nothing
  // else comes.
  void ExpectStreamHolds(const std::string& job, const std::string& file,
                         const std::string& bytes) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (std::chrono::steady_clock::now() < deadline) {
      auto files = Fetched(job);
      if (files.count(file) != 0 && files[file].size() >= bytes.size()) break;
      std::this_thread::sleep_for(50ms);
    }
    std::this_thread::sleep_for(300ms);
    auto files = Fetched(job);
    ASSERT_EQ(files.size(), 1u);
    EXPECT_EQ(files[file].size(), bytes.size());
    EXPECT_TRUE(files[file] == bytes);
  }

  // Publishes a message by hand on the job's subject; returns its stream sequence.
  uint64_t PublishByHand(const std::string& job,
                         const std::vector<std::pair<std::string, std::string>>& headers,
                         const std::string& data) {
    bus::internal::JetStreamLink link({nats_.url(0)}, "test", 5000ms);
    EXPECT_TRUE(link.Connect().ok());
    EXPECT_TRUE(link.EnsureStream(TraceBus()).ok());
    natsMsg* msg = nullptr;
    const std::string subject = "fathom.io." + job;
    EXPECT_EQ(
        natsMsg_Create(&msg, subject.c_str(), nullptr, data.data(), static_cast<int>(data.size())),
        NATS_OK);
    for (const auto& [name, value] : headers) natsMsgHeader_Set(msg, name.c_str(), value.c_str());
    jsPubAck* ack = nullptr;
    EXPECT_EQ(js_PublishMsg(&ack, link.js(), msg, nullptr, nullptr), NATS_OK);
    const uint64_t seq = ack != nullptr ? ack->Sequence : 0;
    jsPubAck_Destroy(ack);
    natsMsg_Destroy(msg);
    return seq;
  }

  NatsServers nats_;
  TempDir dir_;
  int fetches_ = 0;
};

TEST_F(TracePublisherTest, GrowingTraceGoesOutFrameByFrameAndADamagedFrameOnlyWhenTheRunIsOver) {
  const std::string job_dir = dir_ / "grow";
  std::filesystem::create_directory(job_dir);
  const std::string file = "node1.77.1000.fio";
  const std::string path = job_dir + "/" + file;
  auto publisher = TracePublisher::Open(Options("grow", job_dir));
  ASSERT_TRUE(publisher.ok()) << publisher.status().message();
  Status run;
  std::thread thread([&] { run = (*publisher)->Run(); });

  std::string written = FileHeader() + Frame(std::string(500, 'a'));
  Append(path, written);
  ExpectStreamHolds("grow", file, written);

  const std::string second = Frame(std::string(2000, 'b'));
  Append(path, second.substr(0, 900));  // half written
  ExpectStreamHolds("grow", file, written);
  Append(path, second.substr(900));
  written += second;
  ExpectStreamHolds("grow", file, written);

  const std::string damaged = Frame(std::string(300, 'c'), true) + Frame(std::string(40, 'd'));
  Append(path, damaged);
  ExpectStreamHolds("grow", file, written);  // held back while the run goes on

  (*publisher)->Finish(10s);
  thread.join();
  ASSERT_TRUE(run.ok()) << run.message();
  written += damaged;
  ExpectStreamHolds("grow", file, written);
  const PublishFigures figures = (*publisher)->figures();
  EXPECT_EQ(figures.files, 1u);
  EXPECT_EQ(figures.bytes, written.size());
  EXPECT_EQ(figures.messages, 3u);
  EXPECT_EQ(figures.bytes_held, 0u);
}

TEST_F(TracePublisherTest, PublishesFailingWhileTheServerIsDownAreRetriedAndStoredOnce) {
  const std::string job_dir = dir_ / "outage";
  std::filesystem::create_directory(job_dir);
  TransportOptions options = Options("outage", job_dir);
  options.ack_timeout = 300ms;
  auto publisher = TracePublisher::Open(options);
  ASSERT_TRUE(publisher.ok()) << publisher.status().message();
  Status run;
  std::thread thread([&] { run = (*publisher)->Run(); });
  const std::string path = job_dir + "/p.fio";
  std::string written = FileHeader() + Frame(std::string(400 * 1024, 'a'));
  Append(path, written);
  ExpectStreamHolds("outage", "p.fio", written);

  nats_.Kill(0);
  for (int i = 0; i < 10; ++i) {  // frames written while the server is down, some over 256 KiB
    const std::string frame =
        Frame(std::string(static_cast<size_t>(30'000 * (i + 1)), static_cast<char>('b' + i)));
    Append(path, frame);
    written += frame;
    std::this_thread::sleep_for(100ms);
  }
  nats_.Restart(0);
  (*publisher)->Finish(20s);
  thread.join();
  ASSERT_TRUE(run.ok()) << run.message();
  EXPECT_EQ((*publisher)->figures().bytes, written.size());

  auto fetched = FetchJobTraces(nats_.url(0), "outage", dir_ / "back");
  ASSERT_TRUE(fetched.ok()) << fetched.status().message();
  EXPECT_EQ(fetched->bytes, written.size());  // no range stored twice
  EXPECT_TRUE(Contents(dir_ / "back/p.fio") == written);
}

TEST_F(TracePublisherTest, LargeFileTravelsIn256KiBMessagesNamedByFileAndOffset) {
  const std::string job_dir = dir_ / "big job";
  std::filesystem::create_directory(job_dir);
  std::string bytes = FileHeader();
  for (int i = 0; bytes.size() < 600 * 1024; ++i)
    bytes += Frame(std::string(10000, static_cast<char>('a' + i % 26)));
  Append(job_dir + "/n.1.2.fio", bytes);

  auto figures = PublishJobTraces(Options("big job", job_dir), 10s);
  ASSERT_TRUE(figures.ok()) << figures.status().message();
  EXPECT_EQ(figures->files, 1u);
  EXPECT_EQ(figures->bytes, bytes.size());
  EXPECT_EQ(figures->messages, 3u);

  bus::testing::StreamInspector inspect(nats_.url(0));
  const uint64_t offsets[] = {0, 262144, 524288};
  for (uint64_t seq = 1; seq <= 3; ++seq) {
    natsMsg* msg = nullptr;
    ASSERT_EQ(js_GetMsg(&msg, inspect.js(), "FATHOM_IO", seq, nullptr, nullptr), NATS_OK);
    const char* value = nullptr;
    EXPECT_STREQ(natsMsg_GetSubject(msg), "fathom.io.big%20job");
    ASSERT_EQ(natsMsgHeader_Get(msg, "Fathom-Io-File", &value), NATS_OK);
    EXPECT_STREQ(value, "n.1.2.fio");
    ASSERT_EQ(natsMsgHeader_Get(msg, "Fathom-Io-Offset", &value), NATS_OK);
    EXPECT_EQ(std::string(value), std::to_string(offsets[seq - 1]));
    ASSERT_EQ(natsMsgHeader_Get(msg, "Nats-Msg-Id", &value), NATS_OK);
    EXPECT_EQ(std::string(value), "big%20job:n%2E1%2E2%2Efio:" + std::to_string(offsets[seq - 1]));
    const uint64_t size = seq < 3 ? 262144 : bytes.size() - 524288;
    EXPECT_EQ(static_cast<uint64_t>(natsMsg_GetDataLength(msg)), size);
    natsMsg_Destroy(msg);
  }

  auto fetched = FetchJobTraces(nats_.url(0), "big job", dir_ / "back");
  ASSERT_TRUE(fetched.ok()) << fetched.status().message();
  EXPECT_EQ(fetched->files, 1u);
  EXPECT_EQ(fetched->bytes, bytes.size());
  EXPECT_EQ(fetched->messages, 3u);
  EXPECT_TRUE(Contents(dir_ / "back/n.1.2.fio") == bytes);
}

TEST_F(TracePublisherTest, PublishingAgainSendsOnlyWhatTheStreamDoesNotHold) {
  const std::string job_dir = dir_ / "again";
  std::filesystem::create_directory(job_dir);
  const std::string a = FileHeader() + Frame(std::string(1000, 'a'));
  const std::string b = FileHeader() + Frame(std::string(3000, 'b'));
  Append(job_dir + "/a.fio", a);
  Append(job_dir + "/b.fio", b);
  // An earlier publisher stored the first 100 bytes of b.fio, in a range of its own.
  PublishByHand(
      "again",
      {{"Fathom-Io-File", "b.fio"}, {"Fathom-Io-Offset", "0"}, {"Nats-Msg-Id", "again:b%2Efio:0"}},
      b.substr(0, 100));

  auto first = PublishJobTraces(Options("again", job_dir), 10s);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(first->files, 2u);
  EXPECT_EQ(first->bytes, a.size() + b.size() - 100);
  EXPECT_EQ(first->messages, 2u);
  EXPECT_EQ(first->bytes_held, 100u);

  const std::string c = FileHeader() + Frame("c");
  Append(job_dir + "/c.fio", c);
  auto second = PublishJobTraces(Options("again", job_dir), 10s);
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_EQ(second->files, 3u);
  EXPECT_EQ(second->bytes, c.size());
  EXPECT_EQ(second->messages, 1u);
  EXPECT_EQ(second->bytes_held, a.size() + b.size());

  auto fetched = FetchJobTraces(nats_.url(0), "again", dir_ / "back");
  ASSERT_TRUE(fetched.ok()) << fetched.status().message();
  EXPECT_EQ(fetched->files, 3u);
  EXPECT_EQ(fetched->bytes, a.size() + b.size() + c.size());  // nothing stored twice
  EXPECT_EQ(fetched->messages, 4u);
  EXPECT_EQ(FilesIn(dir_ / "back"), FilesIn(job_dir));
}

TEST_F(TracePublisherTest, FetchingTwiceGivesTheSameFilesOverWhatWasThere) {
  const std::string job_dir = dir_ / "twice";
  std::filesystem::create_directory(job_dir);
  Append(job_dir + "/t.fio", FileHeader() + Frame("twice"));
  ASSERT_TRUE(PublishJobTraces(Options("twice", job_dir), 10s).ok());
  const std::string out = dir_ / "back";
  std::filesystem::create_directory(out);
  Append(out + "/t.fio", std::string(5000, 'x'));  // longer, and different
  for (int i = 0; i < 2; ++i) {
    auto fetched = FetchJobTraces(nats_.url(0), "twice", out);
    ASSERT_TRUE(fetched.ok()) << fetched.status().message();
    EXPECT_EQ(FilesIn(out), FilesIn(job_dir));
  }
}

TEST_F(TracePublisherTest, FetchNamesTheMessageWhoseFileNameOrOffsetIsWrong) {
  PublishByHand("name", {{"Fathom-Io-File", "ok.fio"}, {"Fathom-Io-Offset", "0"}}, "FIOTRACE");
  PublishByHand("name", {{"Fathom-Io-File", "../x.fio"}, {"Fathom-Io-Offset", "0"}}, "x");
  PublishByHand("slash", {{"Fathom-Io-File", "d/x.fio"}, {"Fathom-Io-Offset", "0"}}, "x");
  PublishByHand("offset", {{"Fathom-Io-File", "x.fio"}, {"Fathom-Io-Offset", "12x"}}, "x");
  PublishByHand("no-offset", {{"Fathom-Io-File", "x.fio"}}, "x");
  PublishByHand("no-file", {{"Fathom-Io-Offset", "0"}}, "x");

  auto error = [&](const std::string& job) {
    auto fetched = FetchJobTraces(nats_.url(0), job, dir_ / job);
    EXPECT_FALSE(fetched.ok());
    return fetched.status().message();
  };
  EXPECT_EQ(
      error("name"),
      "message 2 of stream 'FATHOM_IO' (subject fathom.io.name) is not a piece of a trace file: "
      "its "
      "Fathom-Io-File header '../x.fio' is not a file name (it is empty, or holds '/' or \"..\")");
  EXPECT_EQ(
      error("slash"),
      "message 3 of stream 'FATHOM_IO' (subject fathom.io.slash) is not a piece of a trace file: "
      "its "
      "Fathom-Io-File header 'd/x.fio' is not a file name (it is empty, or holds '/' or \"..\")");
  EXPECT_EQ(error("offset"),
            "message 4 of stream 'FATHOM_IO' (subject fathom.io.offset) is not a piece of a trace "
            "file: its "
            "Fathom-Io-Offset header '12x' is not a decimal offset");
  EXPECT_EQ(error("no-offset"),
            "message 5 of stream 'FATHOM_IO' (subject fathom.io.no-offset) is not a piece of a "
            "trace file: it has "
            "no Fathom-Io-Offset header");
  EXPECT_EQ(error("no-file"),
            "message 6 of stream 'FATHOM_IO' (subject fathom.io.no-file) is not a piece of a trace "
            "file: it has no "
            "Fathom-Io-File header");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "x.fio"));
}

TEST_F(TracePublisherTest, FetchSaysWhichBytesAFileLacksAndWhenAJobHasNothing) {
  PublishByHand("holes", {{"Fathom-Io-File", "h.fio"}, {"Fathom-Io-Offset", "0"}},
                std::string(10, 'a'));
  PublishByHand("holes", {{"Fathom-Io-File", "h.fio"}, {"Fathom-Io-Offset", "20"}},
                std::string(10, 'b'));
  auto holes = FetchJobTraces(nats_.url(0), "holes", dir_ / "holes");
  ASSERT_FALSE(holes.ok());
  EXPECT_EQ(holes.status().message(),
            (dir_ / "holes") +
                "/h.fio: bytes 10-20 are not in stream 'FATHOM_IO' (removed by its "
                "limits, or never published); the file holds zeros there");

  auto none = FetchJobTraces(nats_.url(0), "nobody", dir_ / "nobody");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(),
            "stream 'FATHOM_IO' on NATS " + nats_.url(0) +
                " holds no traces of job nobody (subject fathom.io.nobody)");
}

TEST_F(TracePublisherTest, FetchFromAServerWithoutTheStreamSaysNothingWasPublishedThere) {
  auto fetched = FetchJobTraces(nats_.url(0), "j", dir_ / "j");
  ASSERT_FALSE(fetched.ok());
  EXPECT_EQ(fetched.status().message(),
            "NATS " + nats_.url(0) + " has no stream 'FATHOM_IO': no traces were published there");
}

}  // namespace
}  // namespace fathom::iotrace

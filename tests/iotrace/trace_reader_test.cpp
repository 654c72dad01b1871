// DecodeTrace and Expand on trace bytes built by hand with the format's own helpers
// (src/iotrace/trace_format.h): every record kind, damage (a bad checksum, a cut file), files
// that are not traces, and the exact operations a run stands for.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "fathom/iotrace.h"
#include "iotrace/trace_format.h"

namespace fathom::iotrace {
namespace {

namespace f = format;

// A frame's payload, record by record.
class Payload {
 public:
  Payload(uint64_t tid, uint64_t base) {
    Varint(tid);
    Varint(base);
  }
  Payload& Byte(uint8_t b) {
    bytes_.push_back(b);
    return *this;
  }
  Payload& Varint(uint64_t v) {
    uint8_t buffer[f::kMaxVarint];
    uint8_t* end = f::PutVarint(buffer, v);
    bytes_.insert(bytes_.end(), buffer, end);
    return *this;
  }
  Payload& Signed(int64_t v) { return Varint(f::Zigzag(v)); }
  Payload& String(const std::string& s) {
    Varint(s.size());
    bytes_.insert(bytes_.end(), s.begin(), s.end());
    return *this;
  }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

std::string FileHeader(uint32_t version = f::kVersion) {
  uint8_t header[f::kFileHeaderSize];
  f::PutFileHeader(header);
  f::PutU32(header + 8, version);
  return std::string(reinterpret_cast<const char*>(header), sizeof(header));
}

std::string Frame(const Payload& payload) {
  const std::vector<uint8_t>& p = payload.bytes();
  uint8_t header[f::kFrameHeaderSize];
  f::PutU32(header, f::kFrameMagic);
  f::PutU32(header + 4, static_cast<uint32_t>(p.size()));
  f::PutU32(header + 8, f::Crc32(p.data(), p.size()));
  return std::string(reinterpret_cast<const char*>(header), sizeof(header)) +
         std::string(reinterpret_cast<const char*>(p.data()), p.size());
}

Payload ProcessFrame() {
  Payload p(0, 1000);
  p.Byte(f::kProcess).Varint(4242).Varint(4241).Varint(1'700'000'000'000'000'000ull).Varint(1000);
  p.Varint(1'000'000'000).Signed(3).Varint(f::kProcessUncompressed).Varint(1001).Varint(1002);
  p.String("node7").String("job42").String("/usr/bin/prog").String(std::string("prog\0-x\0file", 12));
  return p;
}

// A single write of 100 bytes at offset 0 by thread 7, started at base + 5.
Payload WriteFrame(uint64_t base) {
  Payload p(7, base);
  p.Byte(f::kRun).Byte(f::kWrite).Varint(f::kRunOffset | f::kRunResultIsSize).Varint(1).Signed(5).Varint(30);
  p.Varint(0).Varint(100);
  return p;
}

TEST(TraceReader, EveryRecordKindIsDecoded) {
  Payload objects(7, 2000);
  objects.Byte(f::kObject).Varint(1).Varint(64769).Varint(131).Varint(0).String("/data/run/out.dat");
  objects.Byte(f::kObject).Varint(2).Varint(0).Varint(0).Varint(10).String("gone.txt");  // front coded
  // 4 preads of 4096 bytes, 8192 apart; a short read (17 of 4096 bytes); a failed unlink; a rename.
  objects.Byte(f::kRun).Byte(f::kPread).Varint(f::kRunMany | f::kRunOffset | f::kRunResultIsSize)
      .Varint(1).Signed(10).Varint(400).Varint(4).Varint(300).Varint(50).Varint(200).Varint(0).Signed(8192)
      .Varint(4096);
  objects.Byte(f::kRun).Byte(f::kRead).Varint(f::kRunOffset).Varint(1).Signed(500).Varint(7)
      .Varint(32768).Varint(4096).Signed(17);
  objects.Byte(f::kRun).Byte(f::kUnlink).Varint(f::kRunErrno).Varint(2).Signed(-20).Varint(9)
      .Varint(0).Signed(-1).Varint(2);
  objects.Byte(f::kRun).Byte(f::kRename).Varint(f::kRunAux).Varint(2).Signed(100).Varint(11)
      .Varint(0).Signed(0).Varint(1);
  objects.Byte(f::kDropped).Varint(f::kDropBufferFull).Varint(3);
  objects.Byte(f::kDropped).Varint(f::kDropInSignalHandler).Varint(5);
  objects.Byte(f::kDropped).Varint(f::kDropTooManyThreads).Varint(7);
  objects.Byte(f::kPartial).Varint(f::kPartialIoUring).Varint(2);
  objects.Byte(f::kPartial).Varint(f::kPartialAio).Varint(9);
  Payload end(0, 9000);
  end.Byte(f::kEnd).Byte(f::kEndExec).Varint(12).Varint(15);

  auto trace = DecodeTrace(FileHeader() + Frame(ProcessFrame()) + Frame(objects) + Frame(end), "t.fio");
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  EXPECT_TRUE(trace->problems.empty()) << trace->problems.front();
  EXPECT_EQ(trace->frames, 3u);

  ASSERT_TRUE(trace->has_process);
  const ProcessInfo& p = trace->process;
  EXPECT_EQ(p.pid, 4242u);
  EXPECT_EQ(p.ppid, 4241u);
  EXPECT_EQ(p.anchor_realtime_ns, 1'700'000'000'000'000'000ull);
  EXPECT_EQ(p.anchor_monotonic_ns, 1000u);
  EXPECT_EQ(p.quantum_ns, 1'000'000'000u);
  EXPECT_EQ(p.rank, 3);
  EXPECT_TRUE(p.uncompressed);
  EXPECT_EQ(p.uid, 1001u);
  EXPECT_EQ(p.gid, 1002u);
  EXPECT_EQ(p.host, "node7");
  EXPECT_EQ(p.job, "job42");
  EXPECT_EQ(p.exe, "/usr/bin/prog");
  EXPECT_EQ(p.argv, (std::vector<std::string>{"prog", "-x", "file"}));

  ASSERT_EQ(trace->objects.size(), 2u);
  EXPECT_EQ(trace->objects.at(1).path, "/data/run/out.dat");
  EXPECT_EQ(trace->objects.at(1).dev, 64769u);
  EXPECT_EQ(trace->objects.at(1).ino, 131u);
  EXPECT_EQ(trace->objects.at(2).path, "/data/run/gone.txt");
  EXPECT_EQ(trace->objects.at(2).dev, 0u);

  ASSERT_EQ(trace->runs.size(), 4u);
  const iotrace::Run& many = trace->runs[0];
  EXPECT_EQ(many.tid, 7u);
  EXPECT_EQ(many.op, f::kPread);
  EXPECT_EQ(many.target, 1u);
  EXPECT_EQ(many.t_first, 2010u);
  EXPECT_EQ(many.t_last, 2310u);
  EXPECT_EQ(many.count, 4u);
  EXPECT_EQ(many.duration_sum, 400u);
  EXPECT_EQ(many.duration_min, 50u);
  EXPECT_EQ(many.duration_max, 200u);
  EXPECT_TRUE(many.has_offset);
  EXPECT_EQ(many.offset, 0);
  EXPECT_EQ(many.stride, 8192);
  EXPECT_EQ(many.size, 4096u);
  EXPECT_EQ(many.result, 4096);
  const iotrace::Run& short_read = trace->runs[1];
  EXPECT_EQ(short_read.op, f::kRead);
  EXPECT_EQ(short_read.t_first, 2510u);  // the previous run's t_first + 500
  EXPECT_EQ(short_read.count, 1u);
  EXPECT_EQ(short_read.offset, 32768);
  EXPECT_EQ(short_read.size, 4096u);
  EXPECT_EQ(short_read.result, 17);
  const iotrace::Run& failed = trace->runs[2];
  EXPECT_EQ(failed.op, f::kUnlink);
  EXPECT_EQ(failed.target, 2u);
  EXPECT_EQ(failed.t_first, 2490u);
  EXPECT_FALSE(failed.has_offset);
  EXPECT_EQ(failed.result, -1);
  EXPECT_EQ(failed.err, 2u);
  const iotrace::Run& rename = trace->runs[3];
  EXPECT_EQ(rename.op, f::kRename);
  EXPECT_EQ(rename.aux, 1u);
  EXPECT_EQ(rename.err, 0u);

  EXPECT_EQ(trace->dropped_buffer_full, 3u);
  EXPECT_EQ(trace->dropped_in_signal_handler, 5u);
  EXPECT_EQ(trace->dropped_too_many_threads, 7u);
  EXPECT_EQ(trace->Dropped(), 15u);
  EXPECT_EQ(trace->io_uring_calls, 2u);
  EXPECT_EQ(trace->aio_calls, 9u);
  EXPECT_EQ(trace->end, End::kExec);
  EXPECT_EQ(trace->end_operations, 12u);
  EXPECT_EQ(trace->end_dropped, 15u);
  EXPECT_EQ(trace->Operations(), 7u);
}

TEST(TraceReader, AFrameWithABadChecksumIsSkippedWithAProblemNamingItsOffset) {
  const std::string before = FileHeader() + Frame(ProcessFrame());
  std::string damaged = Frame(WriteFrame(3000));
  damaged.back() ^= 0x01;  // the payload no longer matches its CRC
  const std::string bytes = before + damaged + Frame(WriteFrame(4000));

  auto trace = DecodeTrace(bytes, "damaged.fio");
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  ASSERT_EQ(trace->problems.size(), 1u);
  EXPECT_EQ(trace->problems[0], "bytes " + std::to_string(before.size()) + " to " +
                                    std::to_string(before.size() + damaged.size()) +
                                    " of damaged.fio are not a frame that checks (damaged) and are skipped");
  EXPECT_EQ(trace->frames, 2u);
  ASSERT_EQ(trace->runs.size(), 1u);  // the frame after the damaged one is read
  EXPECT_EQ(trace->runs[0].t_first, 4005u);
}

TEST(TraceReader, AFileCutInsideAFrameKeepsTheFramesBeforeItAndReportsTheCut) {
  const std::string whole = FileHeader() + Frame(ProcessFrame()) + Frame(WriteFrame(3000));
  const std::string last = Frame(WriteFrame(4000));
  const std::string cut = whole + last.substr(0, last.size() - 3);

  auto trace = DecodeTrace(cut, "cut.fio");
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  ASSERT_EQ(trace->problems.size(), 1u);
  EXPECT_EQ(trace->problems[0], "cut.fio ends inside the frame at offset " + std::to_string(whole.size()) +
                                    " (the process was killed while writing); the rest of the file is not read");
  EXPECT_TRUE(trace->has_process);
  EXPECT_EQ(trace->frames, 2u);
  ASSERT_EQ(trace->runs.size(), 1u);
  EXPECT_EQ(trace->runs[0].t_first, 3005u);
  EXPECT_EQ(trace->end, End::kNone);

  auto in_header = DecodeTrace(whole + last.substr(0, 5), "cut.fio");
  ASSERT_TRUE(in_header.ok());
  ASSERT_EQ(in_header->problems.size(), 1u);
  EXPECT_EQ(in_header->problems[0], "cut.fio ends inside the frame at offset " + std::to_string(whole.size()) +
                                        " (the process was killed while writing); the rest of the file is not read");
  EXPECT_EQ(in_header->runs.size(), 1u);
}

TEST(TraceReader, AForeignFileIsAnErrorNamingTheFile) {
  auto trace = DecodeTrace("#!/bin/sh\necho this is not a trace\n", "/tmp/script.sh");
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(trace.status().message().find("/tmp/script.sh is not a fathom I/O trace"), std::string::npos)
      << trace.status().message();
  EXPECT_FALSE(DecodeTrace("FIOTR", "short.fio").ok());
}

TEST(TraceReader, ANewerFormatVersionIsAnErrorNamingTheFileAndTheVersion) {
  auto trace = DecodeTrace(FileHeader(f::kVersion + 1) + Frame(ProcessFrame()), "new.fio");
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(trace.status().message().find("new.fio is an I/O trace of format version " +
                                          std::to_string(f::kVersion + 1) + ", which this fathom does not read"),
            std::string::npos)
      << trace.status().message();
}

TEST(TraceReader, ExpandGivesEveryOffsetOfAStridedRunAndItsFirstAndLastStartTimes) {
  Payload p(9, 50'000);
  // 5 writes of 512 bytes at 100, 103, 106, 109, 112; started from 50'020 to 50'420.
  p.Byte(f::kRun).Byte(f::kPwrite).Varint(f::kRunMany | f::kRunOffset | f::kRunResultIsSize).Varint(1)
      .Signed(20).Varint(1000).Varint(5).Varint(400).Varint(100).Varint(300).Varint(100).Signed(3).Varint(512);
  auto trace = DecodeTrace(FileHeader() + Frame(ProcessFrame()) + Frame(p), "run.fio");
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  ASSERT_TRUE(trace->problems.empty()) << trace->problems.front();

  const std::vector<Operation> ops = Expand(*trace);
  ASSERT_EQ(ops.size(), 5u);
  std::vector<int64_t> offsets;
  for (const Operation& o : ops) {
    offsets.push_back(o.offset);
    EXPECT_EQ(o.tid, 9u);
    EXPECT_EQ(o.op, f::kPwrite);
    EXPECT_EQ(o.size, 512u);
    EXPECT_EQ(o.result, 512);
    EXPECT_EQ(o.duration, 200u);  // the mean
  }
  EXPECT_EQ(offsets, (std::vector<int64_t>{100, 103, 106, 109, 112}));
  EXPECT_EQ(ops.front().start, 50'020u);
  EXPECT_EQ(ops.back().start, 50'420u);
  for (size_t i = 1; i < ops.size(); ++i) EXPECT_LT(ops[i - 1].start, ops[i].start);
}

}  // namespace
}  // namespace fathom::iotrace

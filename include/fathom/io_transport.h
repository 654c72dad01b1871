// io_transport.h — a job's I/O trace files carried over NATS JetStream: published while the
// job runs (`fathom io run --publish`) or afterwards (`fathom io publish`), and written back
// into files elsewhere (`fathom io fetch`). docs/io.md, "Sending traces over NATS".
//
// The stream. TraceBus(): stream "FATHOM_IO", subjects "fathom.io.<job token>" (the token is
// the job id with every byte outside [A-Za-z0-9_-] written as %HH, as bus_names.h makes
// collector subjects), created when absent with the bus's settings (file storage, a 2-minute
// duplicate window). Each message carries one byte range of one trace file:
//   Fathom-Io-File    the file's name in the job's directory (no '/', no "..")
//   Fathom-Io-Offset  where the range starts in the file (decimal)
//   Nats-Msg-Id       "<job token>:<file token>:<offset>", so the stream drops a resent range
//   data              the bytes, at most 256 KiB (less when the server's max_payload is small)
//
// Publishing. A TracePublisher reads the trace files (*.fio) directly inside the job's
// directory, every poll interval (new files appear as processes start). While the job may
// still write, it sends a file only up to the end of its last whole frame whose CRC checks
// (the tracer appends frames; a frame not yet whole, or damaged, holds back what follows it);
// once Finish() says the run is over, it sends everything that is left, whole or not (the
// reader reports a cut frame). It first reads which ranges the stream already holds for the
// job (an earlier, interrupted publisher's) and sends only the others. Every message waits for
// the stream's acknowledgement; failures (the server down, timeouts, leader changes) are
// retried with backoff, never skipped, and Run() returns success only once every byte of every
// file is acknowledged. A resent message is recognised by its id (and, after the duplicate
// window, by being the subject's last message), so nothing is stored twice. The files are
// never changed or removed: they are the spool.
//
// Fetching. FetchJobTraces() reads every message of the job's subject through an ephemeral
// pull consumer (from the first, until none is pending) and writes each range at its offset
// into <out_dir>/<file>, each file truncated when first met: fetching twice gives the same
// files. A message whose file name or offset header is missing or malformed is an error naming
// its stream sequence; so is a file whose ranges leave a hole (bytes removed by the stream's
// limits).
//
// Errors are values. Failures that retrying cannot cure (not permitted, a message over the
// server's limit) end Run() at once; so does a trace file that cannot be read (named in the
// error). Ownership: a TracePublisher owns its NATS connection and is owned by its caller.
// Threading: Run() on one thread; Finish() and figures() from any thread. FetchJobTraces and
// PublishJobTraces are blocking calls, safe on any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "fathom/client.h"
#include "fathom/status.h"

namespace fathom::iotrace {

// Stream "FATHOM_IO", subject prefix "fathom.io".
BusOptions TraceBus();

struct TransportOptions {
  std::string endpoint;  // "nats://HOST:PORT[,nats://...]"
  std::string job;       // the job id: the subject and the message ids
  std::string dir;       // the job's trace directory (OUT/JOB of `fathom io run`)
  BusOptions bus = TraceBus();
  std::chrono::milliseconds poll_interval{200};
  std::chrono::milliseconds ack_timeout{5000};  // a publish not acknowledged by then is retried
  std::chrono::milliseconds max_backoff{2000};  // longest wait between retries
};

struct PublishFigures {
  uint64_t files = 0;       // trace files seen
  uint64_t bytes = 0;       // bytes this publisher sent and saw acknowledged
  uint64_t messages = 0;    // their messages
  uint64_t bytes_held = 0;  // bytes of these files the stream held before (not sent again)
};

class TracePublisher {
 public:
  // Checks the endpoint and the job; connects only in Run().
  static Result<std::unique_ptr<TracePublisher>> Open(TransportOptions options);
  ~TracePublisher();
  TracePublisher(const TracePublisher&) = delete;
  TracePublisher& operator=(const TracePublisher&) = delete;

  // Publishes until every byte of every file is acknowledged after Finish(). Returns an error
  // on a permanent failure, a file that cannot be read, or when Finish()'s wait passes first
  // (the message names the servers and what was left).
  Status Run();
  // The run is over: Run() sends what is left, whole frames or not, and returns; it gives up
  // once `wait` has passed from this call (within an acknowledgement timeout).
  void Finish(std::chrono::milliseconds wait);
  PublishFigures figures() const;

 private:
  class Impl;
  explicit TracePublisher(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The trace files of options.dir as they are now, whole: a TracePublisher finished from the
// start. Gives up after `wait`.
Result<PublishFigures> PublishJobTraces(const TransportOptions& options,
                                        std::chrono::milliseconds wait);

struct FetchFigures {
  uint64_t files = 0;
  uint64_t bytes = 0;  // bytes carried by the messages (a range stored twice counts twice)
  uint64_t messages = 0;
};

// Writes every trace file of `job` the stream holds into `out_dir` (made when absent). Fails
// when the stream holds nothing of the job.
Result<FetchFigures> FetchJobTraces(const std::string& endpoint, const std::string& job,
                                    const std::string& out_dir, const BusOptions& bus = TraceBus());

}  // namespace fathom::iotrace

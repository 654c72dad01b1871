// store_sink.cpp — the embedded store as an EventSink: a commit is one store transaction.
#include "fathom/sink.h"

namespace fathom {
namespace {

class StoreSink final : public EventSink {
 public:
  explicit StoreSink(EventStore& store) : store_(store) {}
  Result<uint64_t> Position(std::string_view source) override { return store_.Position(source); }
  Status Commit(std::vector<Event>& batch, const std::optional<SourcePosition>& position) override {
    return store_.Append(batch, position);
  }

 private:
  EventStore& store_;
};

}  // namespace

std::unique_ptr<EventSink> MakeStoreSink(EventStore& store) { return std::make_unique<StoreSink>(store); }

}  // namespace fathom

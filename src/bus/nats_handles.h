// nats_handles.h — move-only owners of libnats objects.
//
// NatsPtr<T> destroys its object with the matching libnats *_Destroy function. MsgList owns a
// natsMsgList filled by a fetch. Neither is shared between threads.
#pragma once

#include <nats/nats.h>

#include <memory>

namespace fathom::bus::internal {

struct NatsDeleter {
  void operator()(natsConnection* p) const { natsConnection_Destroy(p); }
  void operator()(natsOptions* p) const { natsOptions_Destroy(p); }
  void operator()(jsCtx* p) const { jsCtx_Destroy(p); }
  void operator()(natsMsg* p) const { natsMsg_Destroy(p); }
  void operator()(natsSubscription* p) const { natsSubscription_Destroy(p); }
  void operator()(jsStreamInfo* p) const { jsStreamInfo_Destroy(p); }
  void operator()(jsConsumerInfo* p) const { jsConsumerInfo_Destroy(p); }
  void operator()(jsPubAck* p) const { jsPubAck_Destroy(p); }
  void operator()(jsMsgMetaData* p) const { jsMsgMetaData_Destroy(p); }
};

template <typename T>
using NatsPtr = std::unique_ptr<T, NatsDeleter>;

class MsgList {
 public:
  MsgList() = default;
  ~MsgList() { natsMsgList_Destroy(&list_); }
  MsgList(const MsgList&) = delete;
  MsgList& operator=(const MsgList&) = delete;

  natsMsgList* get() { return &list_; }
  int size() const { return list_.Count; }
  natsMsg* operator[](int i) const { return list_.Msgs[i]; }

 private:
  natsMsgList list_{};
};

}  // namespace fathom::bus::internal

// security_probe.h — does an aggregator accept a client without CURVE?
//
// A client with keys whose handshakes keep failing cannot tell from the failures alone whether
// the aggregator runs --insecure or its --server-key is wrong (which side closes first decides
// what the socket monitor reports). One plain (NULL mechanism) connection settles it.
// Stateless; any thread. Uses its own ZeroMQ socket in `context` and closes it before returning.
#pragma once

#include <chrono>
#include <string>

#include "client/zmq_handles.h"

namespace fathom::client {

// True when a connection without CURVE to `endpoint` completes its handshake within `timeout`.
bool AcceptsPlainZeroMq(const ZmqContext& context, const std::string& endpoint,
                        std::chrono::milliseconds timeout);

}  // namespace fathom::client

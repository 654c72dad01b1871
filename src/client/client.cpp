// The entry points of fathom/client.h: ZeroMQ endpoints go to an aggregator, nats:// to a bus.
#include "fathom/client.h"

#include "bus/nats_bus.h"
#include "client/zmq_publisher.h"
#include "client/zmq_subscriber.h"

namespace fathom {

Result<std::unique_ptr<EventSink>> OpenPublisher(const PublisherOptions& options) {
  if (bus::IsNatsEndpoint(options.endpoint)) return bus::OpenNatsPublisher(options);
  return client::ZmqPublisher::Open(options);
}

Result<std::unique_ptr<Subscriber>> Subscriber::Open(const SubscribeOptions& options) {
  if (bus::IsNatsEndpoint(options.endpoint)) return bus::OpenNatsSubscriber(options);
  return client::ZmqSubscriber::Open(options);
}

}  // namespace fathom

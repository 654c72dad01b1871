// nats_bus.h — fathom's client roles on a NATS JetStream bus instead of an aggregator.
//
// Stream: created when absent with the BusOptions (name, subjects "<subject_prefix>.>", file
// storage, replicas, MaxAge, MaxBytes, discard old, a 2-minute duplicate window).
// Publisher: one JetStream message per batch (payload: the wire Batch frame, wire_messages.h)
// on subject "<subject_prefix>.<token>", where the token is the collector name with every
// byte outside [A-Za-z0-9_-] written as %HH ("mdt.0" -> "mdt%2E0"; one-to-one, never '.', '*',
// '>' or white space), with Nats-Msg-Id "<token>:<to_position>" so the stream drops a
// retransmitted batch (a duplicate acknowledgement counts as success). A batch larger than the
// server's max_payload goes as several parts, each a Batch frame with the whole batch's
// (from, to] and a contiguous slice of its events (batch_parts.h: headers, message ids); a
// single event larger than max_payload is a permanent error naming it. Commit() returns after
// the publish acknowledgement of the (last) part, retrying with backoff (timeouts, no
// responders, leader changes, a server down) until it arrives or Stop(); the position never
// advances before it. A retry first reads the subject's last message: if it is the message
// being sent (stored, its acknowledgement lost), its sequence is taken as the acknowledgement,
// so a retry after an outage longer than the duplicate window does not store it twice.
// Batches of kernel sources (no position) are numbered here: to = from + count.
// Position() comes from the last message on the collector's subject (0 if none): its
// to_position, or, when it is a part before the last of its batch (a run that died between
// parts), its from_position: the batch is sent again whole. Subscribers deliver a batch's
// parts only together with its last part, so the cut run's parts are delivered only when the
// resent batch takes them over (the same message ids, inside the duplicate window) and never
// otherwise: nothing is lost or delivered twice whether or not the window has passed.
// Subscriber: a pull consumer (durable when SubscribeOptions::name is set, else ephemeral)
// created at the stream sequence where delivery must start: since >> 16 (events at or below
// `since` in that message skipped; the earlier parts of a batch in parts read back), else the durable name's acknowledged messages, else the
// end of the stream (live only). Path prefix and kinds are applied here. Acknowledge(id)
// acknowledges (AckAll) the messages wholly at or below id. Ids removed by the stream's
// limits before delivery make Next() fail naming them.
// Event ids on the bus are (stream sequence << 16) | index of the event in its batch, where
// the sequence is that of the batch's message (its last part when split): strictly
// increasing, not contiguous.
// Thread use as in fathom/client.h.
#pragma once

#include <memory>

#include "fathom/client.h"

namespace fathom::bus {

inline constexpr int kIdIndexBits = 16;

Result<std::unique_ptr<EventSink>> OpenNatsPublisher(const PublisherOptions& options);
Result<std::unique_ptr<Subscriber>> OpenNatsSubscriber(const SubscribeOptions& options);

// True for "nats://..." endpoints.
bool IsNatsEndpoint(std::string_view endpoint);

}  // namespace fathom::bus

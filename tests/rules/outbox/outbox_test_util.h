// outbox_test_util.h — deliveries to record in the outbox tests.
#pragma once

#include <string>
#include <vector>

#include "rules/outbox/outbox.h"

namespace fathom::rules::testing {

inline NewDelivery MakeDelivery(std::string rule, std::vector<uint64_t> events, std::string path,
                                int64_t created_ns = 1000, std::string version = "v1") {
  NewDelivery d;
  d.rule = std::move(rule);
  d.rule_version = std::move(version);
  d.event_ids = std::move(events);
  d.path = std::move(path);
  d.payload = "{\"path\":\"" + d.path + "\"}";
  d.created_ns = created_ns;
  return d;
}

inline std::string IdOf(const NewDelivery& d) { return DeliveryId(d.rule, d.rule_version, d.event_ids); }

}  // namespace fathom::rules::testing

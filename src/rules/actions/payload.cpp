// payload.cpp — DeliveryPayload: the delivery and its events as one JSON document.
#include "fathom/format.h"
#include "rules/actions/action.h"
#include "rules/actions/event_json.h"

namespace fathom::rules {

std::string DeliveryPayload(const DeliveryContext& context,
                            const std::function<void(const Event&, std::string&)>& extra) {
  std::string out = "{\"delivery_id\":";
  AppendJsonString(context.delivery_id, out);
  out += ",\"rule\":";
  AppendJsonString(context.rule, out);
  out += ",\"attempt\":" + std::to_string(context.attempt);
  out += ",\"events\":[";
  for (size_t i = 0; i < context.events.size(); ++i) {
    if (i > 0) out += ',';
    AppendEventJson(context.events[i], out);
    if (extra) {
      out.pop_back();  // the event object's '}'
      extra(context.events[i], out);
      out += '}';
    }
  }
  out += "]}";
  return out;
}

}  // namespace fathom::rules

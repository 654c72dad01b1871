// anomaly_json.h — an anomaly as JSON, as `fathom io anomalies --json` and `fathom serve`'s
// /api/v1/jobs/anomalies give it. A free function; any thread.
#pragma once

#include <nlohmann/json.hpp>

#include "fathom/io_servers.h"

namespace fathom::io {

nlohmann::json AnomalyJson(const Anomaly& a);

}  // namespace fathom::io

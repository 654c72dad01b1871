// anomaly_json.cpp — AnomalyJson.
#include "iotrace/servers/anomaly_json.h"

namespace fathom::io {

nlohmann::json AnomalyJson(const Anomaly& a) {
  return {{"target", a.target},
          {"job", a.job},
          {"rule", a.rule},
          {"bytes", a.bytes},
          {"avg_bw", a.avg_bw},
          {"peak_bw", a.peak_bw},
          {"peers_mean_peak_bw", a.peers_mean_peak_bw},
          {"peers_mean_bytes", a.peers_mean_bytes},
          {"usecs_per_mib", a.usecs_per_mib},
          {"peers_median_usecs_per_mib", a.peers_median_usecs_per_mib},
          {"z", a.z},
          {"first_ns", a.first_ns},
          {"last_ns", a.last_ns},
          {"duration", a.duration},
          {"peers", a.peers}};
}

}  // namespace fathom::io

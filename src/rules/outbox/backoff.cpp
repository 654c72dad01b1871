// backoff.cpp — BackoffNs: exponential backoff with full jitter.
#include <algorithm>
#include <cmath>

#include "rules/outbox/outbox.h"

namespace fathom::rules {

int64_t BackoffNs(const RetryPolicy& policy, int attempts, double jitter) {
  const int64_t base = std::max<int64_t>(policy.base_ns, 0);
  const int64_t cap = std::max<int64_t>(policy.max_backoff_ns, 0);
  // base * 2^(attempts-1), without overflowing: doubling stops at the cap.
  int64_t ceiling = std::min(base, cap);
  for (int i = 1; i < attempts && ceiling < cap; ++i) {
    ceiling = ceiling > cap / 2 ? cap : ceiling * 2;
  }
  if (!(jitter > 0)) return 0;  // also NaN
  if (jitter >= 1) return ceiling;
  return static_cast<int64_t>(std::floor(jitter * static_cast<double>(ceiling)));
}

}  // namespace fathom::rules

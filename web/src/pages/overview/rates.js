// Events per source and kind in buckets of step_s seconds over the last window_s seconds:
// seeded from /api/v1/overview's "rates", then fed the stream's "rates" messages (the events
// of one second each). Seconds the seed already counted are not added again.

export function ratesModel({ window_s: windowS, step_s: stepS, series }, seededAtS) {
  const counts = new Map(); // "source kind" -> Map(bucket start -> events)
  const firstPoint = series.find((s) => s.points.length)?.points[0][0] ?? 0;
  const offset = ((firstPoint % stepS) + stepS) % stepS;
  const bucketOf = (t) => t - ((((t - offset) % stepS) + stepS) % stepS);
  let now = seededAtS;

  const add = (source, kind, t, n) => {
    const key = `${source} ${kind}`;
    if (!counts.has(key)) counts.set(key, { source, kind, buckets: new Map() });
    const buckets = counts.get(key).buckets;
    buckets.set(t, (buckets.get(t) ?? 0) + n);
  };

  for (const s of series) {
    for (const [t, n] of s.points) {
      add(s.source, s.kind, t, n);
      now = Math.max(now, t);
    }
  }

  return {
    stepS,
    windowS,
    feed({ time, counts: list }) {
      if (time <= seededAtS) return;
      now = Math.max(now, time);
      for (const c of list) add(c.source, c.kind, bucketOf(time), c.n);
    },
    // {xs: bucket starts, series: [{source, kind, label, values, total}]}, oldest bucket first.
    view() {
      const last = bucketOf(now);
      const first = last - (Math.ceil(windowS / stepS) - 1) * stepS;
      const xs = [];
      for (let t = first; t <= last; t += stepS) xs.push(t);
      const out = [];
      for (const [label, { source, kind, buckets }] of [...counts].sort(([a], [b]) => a.localeCompare(b))) {
        for (const t of buckets.keys()) if (t < first) buckets.delete(t);
        const values = xs.map((t) => buckets.get(t) ?? 0);
        out.push({ source, kind, label, values, total: values.reduce((a, b) => a + b, 0) });
      }
      return { xs, series: out };
    },
  };
}

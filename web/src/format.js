// How numbers, sizes and times read on the pages. The raw value stays in data-value.

const units = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];

export function formatCount(n) {
  if (n === null || n === undefined) return '—';
  return Number(n).toLocaleString('en-US');
}

export function formatBytes(n) {
  if (n === null || n === undefined) return '—';
  if (Math.abs(n) < 1024) return `${n} B`;
  let value = n;
  let unit = -1;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 2 : 1)} ${units[unit]}`;
}

// UTC, to the second: 2026-11-28 10:00:00Z.
export function formatSeconds(s) {
  if (s === null || s === undefined) return '—';
  return new Date(s * 1000).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

export function formatNs(ns) {
  if (ns === null || ns === undefined) return '—';
  return formatSeconds(Math.floor(ns / 1e9));
}

// An event's own "time" (nanoseconds kept), shown with a space instead of the T.
export function formatEventTime(time) {
  return time.replace('T', ' ');
}

// A datetime-local input's value (local time) as ISO 8601 UTC, which the API reads.
export function localInputToIso(value) {
  return value ? new Date(value).toISOString() : '';
}

// A duration in nanoseconds: 850 ns, 12.3 µs, 3.04 ms, 1.20 s.
export function formatDuration(ns) {
  if (ns === null || ns === undefined) return '—';
  const steps = [[1e9, 's'], [1e6, 'ms'], [1e3, 'µs']];
  for (const [size, unit] of steps) {
    if (Math.abs(ns) >= size) {
      const value = ns / size;
      return `${value.toFixed(value < 10 ? 2 : value < 100 ? 1 : 0)} ${unit}`;
    }
  }
  return `${Math.round(ns)} ns`;
}

export function formatRate(bytesPerSecond) {
  if (bytesPerSecond === null || bytesPerSecond === undefined) return '—';
  return `${formatBytes(Math.round(bytesPerSecond))}/s`;
}

// A fraction (0.47) as a percentage (47.0 %).
export function formatShare(fraction) {
  if (fraction === null || fraction === undefined) return '—';
  return `${(fraction * 100).toFixed(1)} %`;
}

// An ISO 8601 time of the API (2026-11-28T10:00:00.123456789Z), to the second.
export function formatIso(iso) {
  if (!iso) return '—';
  return iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

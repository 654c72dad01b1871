// Policies' parts in words: actions, triggers and their thresholds, limits, periods.
import { formatBytes, formatCount } from '../../format.js';

const periods = [[86400e9, 'd'], [3600e9, 'h'], [60e9, 'min'], [1e9, 's']];

// 3600000000000 ns reads 1h; a period that is no whole unit reads in the next smaller one.
function formatPeriod(ns) {
  const [size, unit] = periods.find(([s]) => ns % s === 0) ?? [1e6, 'ms'];
  return `${ns / size}${unit}`;
}

export function describeAction(a) {
  switch (a.kind) {
    case 'move': return `move to ${a.destination}`;
    case 'copy': return `copy to ${a.destination}${a.verify ? ', verified' : ''}`;
    case 'command': return `run ${a.argv.join(' ')}${a.timeout_ns ? ` (at most ${formatPeriod(a.timeout_ns)})` : ''}`;
    default: return a.kind;
  }
}

function describeThreshold(t) {
  if (t.unit === 'percent') return `${t.value}%`;
  if (t.unit === 'bytes') return formatBytes(t.value);
  return `${formatCount(t.value)} entries`;
}

export function describeTrigger(t) {
  const every = `every ${formatPeriod(t.check_every_ns)}`;
  if (t.on === 'periodic') return every;
  const parts = [t.on.replace('_', ' ')];
  if (t.targets.length) parts.push(`of ${t.targets.join(', ')}`);
  if (t.high) parts.push(`above ${describeThreshold(t.high)}`);
  if (t.low) parts.push(`down to ${describeThreshold(t.low)}`);
  if (t.capacity !== null) parts.push(`of ${formatBytes(t.capacity)}`);
  parts.push(`checked ${every}`);
  return parts.join(' ');
}

export function describeLimits(l) {
  const parts = [];
  if (l.max_action_count !== null) parts.push(`at most ${formatCount(l.max_action_count)} actions`);
  if (l.max_action_volume !== null) parts.push(`at most ${formatBytes(l.max_action_volume)}`);
  if (l.max_actions_per_second !== null) parts.push(`${formatCount(l.max_actions_per_second)} actions/s`);
  if (l.suspend_error_pct) parts.push(`suspended past ${l.suspend_error_pct}% errors`);
  return parts.length ? parts.join(', ') : 'none';
}

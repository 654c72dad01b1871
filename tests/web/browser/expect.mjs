// What the pages must show, computed from the tree on disk and the store's own events
// (`fathom events --format json`), not from the server's answers.
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

// Every entry of the tree, the root included.
export function walk(root) {
  const out = [];
  const visit = (path) => {
    const st = lstatSync(path);
    const type = st.isDirectory() ? 'dir' : st.isFile() ? 'file' : st.isSymbolicLink() ? 'symlink' : 'other';
    out.push({ path, type, size: st.size, uid: st.uid, gid: st.gid, mtimeMs: st.mtimeMs, atimeMs: st.atimeMs });
    if (type === 'dir') for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(root);
  return out;
}

export const under = (path, prefix) => prefix === '/' || path === prefix || path.startsWith(`${prefix}/`);

// {count, size} per owner (uid) or group (gid).
export function usage(entries, field) {
  const rows = new Map();
  for (const e of entries) {
    const row = rows.get(e[field]) ?? { count: 0, size: 0 };
    row.count += 1;
    row.size += e.size;
    rows.set(e[field], row);
  }
  return rows;
}

// Regular files per size range, with the ranges' bounds as the API gives them.
export function sizeBuckets(entries, buckets) {
  const files = entries.filter((e) => e.type === 'file');
  return buckets.map((b) => files.filter((f) => f.size >= b.min && (b.max === null || f.size <= b.max)).length);
}

// Regular files per age range of their mtime or atime: each range runs from its from_days to
// the next one's.
export function ageRanges(entries, ranges, time, nowMs) {
  const counts = ranges.map(() => 0);
  for (const f of entries.filter((e) => e.type === 'file')) {
    const days = (nowMs - f[`${time}Ms`]) / 86400000;
    let i = ranges.length - 1;
    while (i > 0 && days < ranges[i].from_days) i -= 1;
    counts[i] += 1;
  }
  return counts;
}

// The totals of a directory's subtree: the directory and everything below it.
export function subtreeTotals(entries, dir) {
  const inside = entries.filter((e) => under(e.path, dir));
  const count = (type) => inside.filter((e) => e.type === type).length;
  return { entries: inside.length, files: count('file'), dirs: count('dir'), symlinks: count('symlink'), size: inside.reduce((a, e) => a + e.size, 0) };
}

// The stored events under a prefix with one of the kinds (any kind when none), newest first.
export function eventsUnder(events, prefix, kinds = []) {
  return events.filter((e) => under(e.path, prefix) && (!kinds.length || e.events.some((k) => kinds.includes(k))))
    .sort((a, b) => b.id - a.id);
}

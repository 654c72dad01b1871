// The tree the pages are tested on: files of every size range, owned by root, uid 1000 and
// uid 1001, modified and read at known ages; then the changes made while fathom watches it.
import { chownSync, closeSync, ftruncateSync, mkdirSync, openSync, symlinkSync, unlinkSync, utimesSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';

const day = 86400;
const KiB = 1024;
const MiB = 1024 * KiB;

// [path, size, uid, mtime age in days, atime age in days]; directories end with '/'.
const initial = [
  ['alpha/', 0, 1000],
  ['alpha/a1.dat', 0, 1000, 0.3, 0.3],
  ['alpha/a2.dat', 20, 1000, 3, 1.5],
  ['alpha/a3.dat', 100, 1000, 10, 2],
  ['alpha/deep/', 0, 1000],
  ['alpha/deep/a4.dat', 5000, 1000, 45, 45],
  ['alpha/deep/a5.dat', 70000, 1000, 100, 3],
  ['alpha/deep/a6.dat', 32 * KiB, 1000, 200, 200],
  ['beta/', 0, 1001],
  ['beta/b1.bin', 2 * MiB, 1001, 200, 100],
  ['beta/b2.bin', 40 * MiB, 1001, 400, 400],
  ['beta/b3.txt', 31, 1001, 800, 800],
  ['beta/b4.txt', MiB - 1, 1001, 500, 20],
  ['beta/b5.txt', MiB, 1001, 20, 20],
  ['gamma/', 0, 1001],
  ['gamma/g1.txt', 32, 1001, 2, 2],
  ['gamma/g2.txt', KiB, 0, 15, 0.5],
  ['gamma/g3.txt', KiB - 1, 1001, 60, 60],
  ['gamma/sub/', 0, 1001],
  ['gamma/sub/g4.txt', 31, 1001, 5, 5],
  ['shared/', 0, 0],
  ['shared/s1.log', KiB - 1, 0, 0.5, 0.5],
  ['shared/empty/', 0, 0],
  ['shared/tmp/', 0, 0],
  ['shared/tmp/t1.tmp', 300, 0, 40, 40],
  ['shared/tmp/t2.tmp', 200, 0, 40, 40],
  ['shared/tmp/t3.tmp', 100, 0, 40, 40],
];

// The directory a restricted token is granted: nothing outside it may show.
export const grantedDir = 'gamma';

// Files removed while watched (each becomes a removed entry of the catalog).
export const removedFiles = ['alpha/deep/a4.dat', 'beta/b3.txt', 'gamma/g3.txt'];

function setTimes(path, mtimeDays, atimeDays, nowS) {
  utimesSync(path, nowS - atimeDays * day, nowS - mtimeDays * day);
}

export function makeTree(root) {
  const nowS = Date.now() / 1000;
  mkdirSync(root);
  for (const [rel, size, uid, mtimeDays, atimeDays] of initial) {
    const path = join(root, rel);
    if (rel.endsWith('/')) {
      mkdirSync(path);
    } else {
      const fd = openSync(path, 'w');
      if (size) ftruncateSync(fd, size);
      closeSync(fd);
    }
    chownSync(path, uid, uid);
    if (!rel.endsWith('/')) setTimes(path, mtimeDays, atimeDays, nowS);
  }
  symlinkSync('../alpha/a1.dat', join(root, 'shared/link'));
}

// What happens while fathom watches: a file made and given to uid 1000, one grown, three
// removed, a directory made with a file in it. Returns the path of the last change, which
// the store holds once it holds them all.
export function changeTree(root) {
  writeFileSync(join(root, 'alpha/new.txt'), '0123456789');
  chownSync(join(root, 'alpha/new.txt'), 1000, 1000);
  appendFileSync(join(root, 'alpha/a2.dat'), 'twelve bytes');
  mkdirSync(join(root, 'beta/made'));
  writeFileSync(join(root, 'beta/made/m1.txt'), 'seven b');
  for (const rel of removedFiles) unlinkSync(join(root, rel));
  return join(root, removedFiles[removedFiles.length - 1]);
}

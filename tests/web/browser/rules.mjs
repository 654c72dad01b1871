// The rules file the rules page is tested on: on every file closed after writing in the tree,
// `ingest` runs /bin/true and `reject` /bin/false with a single attempt, so that each of its
// deliveries is dead; `fathom rules run --until-idle` delivers what the store holds.
import { writeFileSync } from 'node:fs';
import { fathom } from './processes.mjs';

export function writeRules(file, tree, outbox) {
  writeFileSync(file, `outbox: ${outbox}
rules:
  - name: ingest
    kinds: [CLOSE_WRITE]
    path: "${tree}/**"
    action: {command: [/bin/true], allow_root: true}
  - name: reject
    kinds: [CLOSE_WRITE]
    path: "${tree}/**"
    retry: {max_attempts: 1}
    action: {command: [/bin/false], allow_root: true}
`);
}

export async function runRules(binary, file, store) {
  await fathom(binary, ['rules', 'run', '--config', file, '--store', store, '--until-idle']);
}

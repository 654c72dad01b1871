// The policies file the policies page is tested on: a purge of the tree's stale *.tmp files,
// largest first and at most two a run, and an alert on them; `fathom policy alerts` raises it,
// then `fathom policy run purge` deletes t1.tmp and t2.tmp and leaves t3.tmp to the next run.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fathom } from './processes.mjs';

export const tmpDir = 'shared/tmp';
// [name, size] of the *.tmp files, largest first; the purge's limit.
export const tmpFiles = [['t1.tmp', 300], ['t2.tmp', 200], ['t3.tmp', 100]];
export const purgeLimit = 2;

export function writePolicies(file, tree, alertsLog) {
  writeFileSync(file, `fileclasses:
  tmp: "type == file and name == '*.tmp'"
policies:
  purge:
    default_action: delete
    scope: "tree == ${join(tree, tmpDir)}"
    sort: size
    rules:
      - name: stale_tmp
        target_fileclass: tmp
        condition: "last_mod > 30d"
    max_action_count: ${purgeLimit}
    trigger: {on: periodic, check_every: 1h}
alerts:
  stale_tmp:
    condition: "tree == ${join(tree, tmpDir)} and type == file and last_mod > 30d"
alert_sinks:
  log: ${alertsLog}
`);
}

// Raises the alerts, then runs the purge; resolves to the paths it deleted.
export async function runPolicies(binary, file, catalog, tree) {
  const options = ['--config', file, '--catalog', catalog];
  await fathom(binary, ['policy', 'alerts', ...options]);
  await fathom(binary, ['policy', 'run', 'purge', ...options]);
  return tmpFiles.slice(0, purgeLimit).map(([name]) => join(tree, tmpDir, name));
}

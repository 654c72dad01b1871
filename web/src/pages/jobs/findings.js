// What the report found in a job (small or unaligned accesses, shared files, reads after
// writes, ...), each with its rule's kind.
import { dataTable } from '../../table.js';

export function findingsTable(findings) {
  return dataTable({
    testid: 'findings-table',
    rowTestid: 'finding-row',
    rowKey: (f) => f.kind,
    rows: findings,
    empty: 'nothing found',
    columns: [
      { key: 'kind', label: 'finding', value: (f) => f.kind },
      { key: 'text', label: 'what', value: (f) => f.text },
    ],
  });
}

// The directories with the largest subtrees, by volume or by entries
// (GET /api/v1/catalog/top-dirs); each opens its subtree view.
import { api } from '../../api.js';
import { formatBytes, formatCount } from '../../format.js';
import { fill, panel } from '../../section.js';
import { dataTable } from '../../table.js';
import { subtreeLink } from './subtree-link.js';

const shown = 10;

function render(by, { dirs }) {
  return dataTable({
    testid: `top-dirs-${by}-table`,
    rowTestid: 'top-dir',
    rowKey: (d) => d.path,
    rows: dirs,
    columns: [
      { key: 'path', label: 'directory', value: (d) => d.path, render: (d) => subtreeLink(d.path) },
      { key: 'entries', label: 'entries', value: (d) => d.entries, format: formatCount, num: true },
      { key: 'files', label: 'files', value: (d) => d.files, format: formatCount, num: true },
      { key: 'dirs', label: 'dirs', value: (d) => d.dirs, format: formatCount, num: true },
      { key: 'size', label: 'volume', value: (d) => d.size, format: formatBytes, num: true },
    ],
  });
}

export function topDirsPanel(by) {
  const { el, body } = panel(by === 'size' ? 'Largest directories' : 'Directories with most entries', { testid: `top-dirs-${by}` });
  fill(body, () => api('catalog/top-dirs', { params: { by, limit: shown } }), (answer) => render(by, answer));
  return el;
}

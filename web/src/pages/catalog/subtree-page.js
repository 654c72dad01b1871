// One directory of the catalog (GET /api/v1/catalog/subtree): its subtree's totals and its
// children, directories opening their own view; breadcrumbs lead back up.
import { api, ApiError } from '../../api.js';
import { card, cardRow } from '../../cards.js';
import { h } from '../../dom.js';
import { formatBytes, formatCount, formatNs } from '../../format.js';
import { routeHref } from '../../router.js';
import { fill, panel } from '../../section.js';
import { dataTable, tableRow } from '../../table.js';
import { subtreeLink } from './subtree-link.js';

const pageSize = 200;

function breadcrumbs(path) {
  const parts = path.split('/').filter(Boolean);
  const crumbs = [subtreeLink('/', '/')];
  parts.forEach((name, i) => {
    const prefix = `/${parts.slice(0, i + 1).join('/')}`;
    if (i) crumbs.push('/');
    crumbs.push(i === parts.length - 1 ? h('span', { class: 'current' }, name) : subtreeLink(prefix, name));
  });
  return h('nav', { class: 'crumbs', 'aria-label': 'path', testid: 'breadcrumbs' }, crumbs);
}

// Totals are null for a directory above the caller's grants (only its granted children show).
function totalsCards(t) {
  if (!t) return h('p', { class: 'muted', testid: 'subtree-no-totals' }, 'Only parts of this directory are granted: see its children.');
  return cardRow(
    card('entries', t.entries, { format: formatCount, testid: 'subtree-entries' }),
    card('files', t.files, { format: formatCount, testid: 'subtree-files' }),
    card('directories', t.dirs, { format: formatCount, testid: 'subtree-dirs' }),
    card('symlinks', t.symlinks, { format: formatCount, testid: 'subtree-symlinks' }),
    card('others', t.others, { format: formatCount, testid: 'subtree-others' }),
    card('volume', t.size, { format: formatBytes, testid: 'subtree-size', title: `${t.size} bytes` }),
    card('blocks', t.blocks, { format: formatCount, testid: 'subtree-blocks' }),
    card('newest change (UTC)', t.max_mtime_ns, { format: formatNs, testid: 'subtree-max-mtime' }));
}

const childColumns = [
  { key: 'name', label: 'name', value: (c) => c.name, render: (c) => (c.type === 'dir' ? subtreeLink(c.path, `${c.name}/`) : c.name) },
  { key: 'type', label: 'type', value: (c) => c.type },
  { key: 'size', label: 'size', value: (c) => c.size, format: formatBytes, num: true },
  { key: 'user', label: 'owner', value: (c) => c.user },
  { key: 'mtime_ns', label: 'modified (UTC)', value: (c) => c.mtime_ns, format: formatNs },
  { key: 'entries', label: 'entries below', value: (c) => c.totals?.entries, format: formatCount, num: true },
  { key: 'subtree_size', label: 'volume below', value: (c) => c.totals?.size, format: formatBytes, num: true },
];

function childrenTable(children) {
  return dataTable({ testid: 'children-table', rowTestid: 'child-row', rowKey: (c) => c.name, rows: children, columns: childColumns, empty: 'empty directory' });
}

function rootsList({ roots }) {
  return h('ul', { class: 'roots', testid: 'subtree-roots' }, roots.map((r) => h('li', {}, subtreeLink(r))));
}

function showDirectory(view, path) {
  const totals = panel('Totals', { testid: 'subtree-totals', wide: true });
  const children = panel('Children', { testid: 'subtree-children', wide: true });
  const more = h('button', { type: 'button', testid: 'children-more', hidden: true }, 'More');
  view.append(
    h('h1', {}, 'Directory ', h('code', { testid: 'subtree-path' }, path)),
    breadcrumbs(path),
    h('p', {}, h('a', { href: routeHref('/events', { prefix: path }), testid: 'subtree-events' }, 'events below this directory')),
    h('div', { class: 'grid' }, totals.el, children.el));
  let offset = null;
  const loaded = (answer) => {
    offset = answer.next?.offset ?? null;
    more.hidden = offset === null;
  };
  const first = api('catalog/subtree', { params: { path, limit: pageSize } });
  fill(totals.body, () => first, (answer) => totalsCards(answer.totals));
  fill(children.body, () => first, (answer) => {
    loaded(answer);
    return [h('div', { class: 'scroll' }, childrenTable(answer.children)), more];
  });
  more.addEventListener('click', async () => {
    more.disabled = true;
    try {
      const answer = await api('catalog/subtree', { params: { path, offset, limit: pageSize } });
      const body = children.body.querySelector('tbody');
      for (const child of answer.children) body.append(tableRow(childColumns, child, { rowTestid: 'child-row', rowKey: (c) => c.name }));
      loaded(answer);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
    }
    more.disabled = false;
  });
}

export default {
  path: '/catalog/subtree',
  title: 'Directory',
  under: '/catalog',
  render(view, params) {
    const path = params.get('path');
    if (path) {
      showDirectory(view, path);
      return;
    }
    const roots = panel('Roots', { testid: 'subtree-roots-panel' });
    view.append(h('h1', {}, 'Directories'), roots.el);
    fill(roots.body, () => api('catalog/summary'), rootsList);
  },
};

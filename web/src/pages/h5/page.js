// HDF5: the report of the HDF5 traces (GET /api/v1/h5/report) and the lineage of a dataset
// picked in its table. The function and the dataset chosen are kept in the address
// (#/h5?function=H5Dwrite&dataset=/data/out.h5:/grp/ds).
import { api } from '../../api.js';
import { h, replace } from '../../dom.js';
import { replaceParams } from '../../router.js';
import { fill, panel } from '../../section.js';
import { datasetsView } from './datasets.js';
import { functionsView } from './functions.js';
import { showLineage } from './lineage.js';
import { slowRanksTable, stragglersView } from './stragglers.js';
import { summaryCards } from './summary.js';

export default {
  path: '/h5',
  title: 'HDF5',
  nav: true,
  render(view, params) {
    const chosen = { function: params.get('function') ?? '', dataset: params.get('dataset') ?? '' };
    const choose = (key, value) => {
      chosen[key] = value;
      replaceParams(chosen);
    };
    const summary = panel('HDF5 traces', { testid: 'h5-summary', wide: true });
    const functions = panel('Hot functions', { testid: 'h5-functions', wide: true });
    const stragglers = panel('Stragglers', { testid: 'h5-stragglers' });
    const slowRanks = panel('Slow processes', { testid: 'h5-slow-ranks' });
    const datasets = panel('Datasets', { testid: 'h5-datasets-panel', wide: true });
    const lineage = panel('Lineage', { testid: 'h5-lineage', wide: true });
    view.append(h('h1', {}, 'HDF5'), h('div', { class: 'grid' }, summary.el, functions.el, stragglers.el, slowRanks.el, datasets.el, lineage.el));

    const pickDataset = (dataset) => {
      choose('dataset', dataset);
      showLineage(lineage.body, dataset);
    };
    const report = api('h5/report');
    fill(summary.body, () => report, summaryCards);
    fill(functions.body, () => report, (r) => functionsView(r.functions, chosen.function, (f) => choose('function', f)));
    fill(stragglers.body, () => report, stragglersView);
    fill(slowRanks.body, () => report, (r) => slowRanksTable(r.slow_ranks));
    fill(datasets.body, () => report, (r) => datasetsView(r.datasets, chosen.dataset, pickDataset));
    if (chosen.dataset) showLineage(lineage.body, chosen.dataset);
    else replace(lineage.body, h('p', { class: 'muted', testid: 'lineage-none' }, 'Click a dataset above to see which processes made and used it.'));
  },
};

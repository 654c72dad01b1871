// Catalog: what the metadata catalog holds, over what the caller may see.
import { h } from '../../dom.js';
import { agePanel } from './age.js';
import { removedPanel } from './removed.js';
import { sizeProfilePanel } from './size-profile.js';
import { summaryPanel } from './summary.js';
import { topDirsPanel } from './top-dirs.js';
import { usagePanel } from './usage.js';

export default {
  path: '/catalog',
  title: 'Catalog',
  nav: true,
  render(view) {
    view.append(h('h1', {}, 'Catalog'), h('div', { class: 'grid' },
      summaryPanel(), usagePanel(), sizeProfilePanel(), topDirsPanel('size'), topDirsPanel('count'),
      agePanel(), removedPanel()));
  },
};

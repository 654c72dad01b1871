// Rules: the rules with their deliveries counted by state, the recent deliveries and the dead
// letters (with Replay for administrators), of every rule or of the one chosen (#/rules?rule=NAME).
import { api } from '../../api.js';
import { append, h } from '../../dom.js';
import { routeHref } from '../../router.js';
import { fill, panel } from '../../section.js';
import { showDead } from './dead.js';
import { showDeliveries } from './deliveries.js';
import { rulesTable } from './list.js';

function source(answer) {
  return h('p', { class: 'muted', testid: 'rules-source', dataset: { outboxExists: answer.outbox_exists } },
    `From ${answer.source}; outbox ${answer.outbox}`, answer.outbox_exists ? '.' : ' (not made yet: the runner has not run).');
}

export default {
  path: '/rules',
  title: 'Rules',
  nav: true,
  render(view, params) {
    const rule = params.get('rule') ?? '';
    const of = rule ? ` of ${rule}` : '';
    const rules = panel('Rules', { testid: 'rules', wide: true });
    const dead = panel(`Dead letters${of}`, { testid: 'dead', wide: true });
    const recent = panel(`Recent deliveries${of}`, { testid: 'deliveries', wide: true });
    append(view, [h('h1', {}, 'Rules'),
      rule ? h('p', {}, h('a', { href: routeHref('/rules'), testid: 'rules-all' }, '← every rule')) : null,
      h('div', { class: 'grid' }, rules.el, dead.el, recent.el)]);
    const loadRules = () => fill(rules.body, () => api('rules'), (answer) => [source(answer), h('div', { class: 'scroll' }, rulesTable(answer.rules, rule))]);
    const loadRecent = () => showDeliveries(recent.body, { call: 'deliveries', rule, testid: 'deliveries-table', empty: 'no delivery' });
    loadRules();
    loadRecent();
    // A replay changes the counts and the replayed delivery's state.
    showDead(dead.body, rule, () => {
      loadRules();
      loadRecent();
    });
  },
};

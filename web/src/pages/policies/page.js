// Policies and alerts: the policies file's policies with their last and next runs, previews of
// what a run would do, the open alerts, and the chosen policy's definition, runs and actions
// (#/policies?policy=purge; the first policy when none is chosen).
import { api } from '../../api.js';
import { h, replace } from '../../dom.js';
import { fill, panel } from '../../section.js';
import { showActions } from './actions.js';
import { alertsView } from './alerts.js';
import { definitionView } from './definition.js';
import { policiesTable } from './list.js';
import { showPreview } from './preview.js';
import { showRuns } from './runs.js';

export default {
  path: '/policies',
  title: 'Policies',
  nav: true,
  render(view, params) {
    const policies = panel('Policies', { testid: 'policies', wide: true });
    const preview = panel('Preview', { testid: 'preview', wide: true });
    const alerts = panel('Alerts', { testid: 'alerts', wide: true });
    const definition = panel('Definition', { testid: 'policy', wide: true });
    const runs = panel('Runs', { testid: 'runs', wide: true });
    const actions = panel('Actions', { testid: 'actions', wide: true });
    for (const p of [preview, runs, actions]) p.el.hidden = true;
    view.append(h('h1', {}, 'Policies'), h('div', { class: 'grid' }, policies.el, preview.el, alerts.el, definition.el, runs.el, actions.el));

    const onPreview = (name) => {
      preview.el.hidden = false;
      replace(preview.el.querySelector('h2'), `Preview of ${name}`);
      showPreview(preview.body, name);
    };
    const list = api('policies');
    fill(policies.body, () => list, (answer) => [h('p', { class: 'muted', testid: 'policies-source' }, `From ${answer.source}.`), h('div', { class: 'scroll' }, policiesTable(answer.policies, onPreview))]);
    fill(alerts.body, () => list, alertsView);
    fill(definition.body, () => list, (answer) => {
      const chosen = answer.policies.find((p) => p.name === params.get('policy')) ?? answer.policies[0];
      if (!chosen) return h('p', { class: 'muted' }, 'No policy in the file.');
      for (const p of [definition, runs, actions]) p.el.dataset.policy = chosen.name;
      runs.el.hidden = false;
      actions.el.hidden = false;
      replace(definition.el.querySelector('h2'), `Policy ${chosen.name}`);
      showRuns(runs.body, chosen.name);
      showActions(actions.body, chosen.name);
      return definitionView(chosen);
    });
  },
};

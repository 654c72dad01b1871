// Events: search the store (GET /api/v1/events, newest first, "older" pages with the answer's
// next cursor), follow new events live (the stream's "events" messages), and see one whole.
import { api, ApiError } from '../../api.js';
import { h } from '../../dom.js';
import { formatCount } from '../../format.js';
import { replaceParams } from '../../router.js';
import { panel } from '../../section.js';
import { openStream } from '../../stream.js';
import { detailPanel } from './detail.js';
import { resultsTable } from './results.js';
import { searchForm } from './search-form.js';

export default {
  path: '/events',
  title: 'Events',
  nav: true,
  render(view, params) {
    const detail = detailPanel();
    const results = resultsTable((id) => detail.show(id));
    const status = h('p', { class: 'muted', testid: 'events-status', 'aria-live': 'polite' });
    const older = h('button', { type: 'button', testid: 'events-older', hidden: true }, 'Older');
    const live = h('input', { type: 'checkbox', testid: 'events-live' });
    const liveState = h('span', { class: 'stream-state', testid: 'events-live-state' });
    const controls = h('label', { class: 'toggle' }, live, 'live tail', liveState);
    const list = panel('Events', { testid: 'events-results', controls, wide: true });
    list.body.append(status, h('div', { class: 'scroll' }, results.el), older);

    let filters = null;
    let next = null;
    let lastId = null;
    let stopTail = null;

    const showStatus = () => {
      status.textContent = `${formatCount(results.count)} events shown${next ? ', more older ones' : ''}.`;
      status.dataset.count = results.count;
      older.hidden = !next;
    };

    const stopLive = () => {
      if (stopTail) stopTail();
      stopTail = null;
      liveState.textContent = '';
    };

    const startLive = () => {
      stopLive();
      if (!filters || lastId === null) return;
      stopTail = openStream({ prefix: filters.prefix, kinds: filters.kinds, after_id: lastId }, {
        onEvents: (events) => {
          results.prependNewer(events);
          showStatus();
        },
        onState: (state) => {
          liveState.textContent = state;
          liveState.dataset.state = state;
        },
      });
    };

    // The panel is busy (aria-busy) from the request until its rows are shown.
    const fetchPage = async (beforeId) => {
      list.body.setAttribute('aria-busy', 'true');
      try {
        const answer = await api('events', { params: { ...filters, before_id: beforeId } });
        next = answer.next;
        if (lastId === null) lastId = answer.last_id ?? 0;
        results.appendOlder(answer.events);
        showStatus();
      } finally {
        list.body.removeAttribute('aria-busy');
      }
    };

    const search = async (values) => {
      stopLive();
      filters = values;
      next = null;
      lastId = null;
      results.clear();
      replaceParams(values);
      status.textContent = 'searching…';
      try {
        await fetchPage(undefined);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        status.textContent = 'The search failed.';
        return;
      }
      if (live.checked) startLive();
    };

    older.addEventListener('click', async () => {
      older.disabled = true;
      try {
        await fetchPage(next.before_id);
      } catch (error) {
        // The banner says why; the button stays for another try.
        if (!(error instanceof ApiError)) throw error;
      }
      older.disabled = false;
    });
    live.addEventListener('change', () => (live.checked ? startLive() : stopLive()));

    const form = searchForm(params, search);
    view.append(h('h1', {}, 'Events'), form.form, h('div', { class: 'grid events' }, list.el, detail.el));
    search(form.values());
    return stopLive;
  },
};

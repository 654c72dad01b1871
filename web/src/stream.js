// The Server-Sent Events stream /api/v1/events/stream: its "events" and "rates" messages as
// parsed JSON. EventSource sends the session cookie (same origin). After a broken connection
// the stream is opened again from the last event received (after_id), so that nothing is
// shown twice nor skipped.
import { apiUrl } from './api.js';

const retryMs = 2000;

export function openStream(params, { onEvents, onRates, onState = () => {} } = {}) {
  let afterId = params.after_id;
  let source = null;
  let timer = null;
  const connect = () => {
    source = new EventSource(apiUrl('events/stream', { ...params, after_id: afterId }));
    source.addEventListener('open', () => onState('live'));
    source.addEventListener('events', (m) => {
      const events = JSON.parse(m.data);
      if (events.length) afterId = events[events.length - 1].id;
      if (onEvents) onEvents(events);
    });
    if (onRates) source.addEventListener('rates', (m) => onRates(JSON.parse(m.data)));
    source.addEventListener('error', () => {
      source.close();
      onState('reconnecting');
      timer = setTimeout(connect, retryMs);
    });
  };
  connect();
  return () => {
    clearTimeout(timer);
    source.close();
  };
}

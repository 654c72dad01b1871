// The dead letters (GET /api/v1/rules/dead): deliveries that failed their last attempt, each
// with a Replay button for administrators (POST .../replay: pending again, attempts from 0; its
// row then shows it so, highlighted). A refused replay shows the server's message in its row
// and in the banner.
import { api, ApiError } from '../../api.js';
import { callerIsAdmin } from '../../caller.js';
import { h, replace } from '../../dom.js';
import { tableRow } from '../../table.js';
import { deliveryColumns, deliveryRow, showDeliveries } from './deliveries.js';

function replayCell(d, onReplayed) {
  const cell = h('span', { class: 'replay' });
  if (d.state !== 'dead') return cell;
  const button = h('button', { type: 'button', class: 'small', testid: 'replay-button', hidden: !callerIsAdmin(), dataset: { id: d.id } }, 'Replay');
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      const answer = await api(`rules/deliveries/${encodeURIComponent(d.id)}/replay`, { method: 'POST', body: {} });
      onReplayed(answer.delivery, cell.closest('tr'));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      button.disabled = false;
      replace(cell, button, h('span', { class: 'error', testid: 'replay-error' }, ` ${error.message}`));
    }
  });
  return replace(cell, button);
}

// onReplayed() follows each replay (the rules' counts changed).
export function showDead(body, rule, onReplayed) {
  const columns = [...deliveryColumns, {
    key: 'replay',
    label: '',
    render: (d) => replayCell(d, (delivery, tr) => {
      const row = tableRow(columns, delivery, deliveryRow);
      row.classList.add('new');
      tr.replaceWith(row);
      onReplayed();
    }),
  }];
  showDeliveries(body, { call: 'dead', rule, testid: 'dead-table', empty: 'no dead letter', columns });
}

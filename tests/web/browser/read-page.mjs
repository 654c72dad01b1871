// Reading what a page shows: table rows with each cell's raw value (data-value) and text,
// cards' values, and waiting for a panel to finish loading.

export function tableRows(page, testid) {
  return page.$$eval(`[data-testid="${testid}"] tbody tr:not(.empty)`, (trs) => trs.map((tr) => ({
    key: tr.dataset.key,
    cells: Object.fromEntries([...tr.cells].map((td) => [td.dataset.col, { value: td.dataset.value ?? null, text: td.textContent }])),
  })));
}

// The raw values of a column as numbers, row by row.
export async function columnValues(page, testid, col) {
  return (await tableRows(page, testid)).map((r) => Number(r.cells[col].value));
}

export async function cardValue(page, testid) {
  const el = page.locator(`[data-testid="${testid}"]`);
  await el.waitFor();
  return el.getAttribute('data-value');
}

// Waits until the panel has loaded (its body no longer busy) and shows what it was waiting for.
export async function settled(page, panelTestid, innerTestid) {
  await page.waitForFunction(([panel, inner]) => {
    const body = document.querySelector(`[data-testid="${panel}"] .panel-body`);
    return body && !body.hasAttribute('aria-busy') && (!inner || body.querySelector(`[data-testid="${inner}"]`));
  }, [panelTestid, innerTestid]);
}

export async function chartData(page, testid) {
  const el = page.locator(`[data-testid="${testid}"]`);
  return { labels: JSON.parse(await el.getAttribute('data-labels')), values: JSON.parse(await el.getAttribute('data-values')) };
}

// The paths of the subtree links inside an element.
export function linkedPaths(page, testid) {
  return page.$$eval(`[data-testid="${testid}"] [data-testid="subtree-link"]`, (links) => links.map((a) => a.dataset.path));
}

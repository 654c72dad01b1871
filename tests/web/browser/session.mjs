// A page signed in through the start-up URL (#token=...), as a person opens it, showing one
// route; it must end without a console error, page error or failed request but those allowed.
import assert from 'node:assert/strict';
import { openPage } from './browser.mjs';

export async function withPage(ctx, { token = ctx.fixture.token, route = '/overview', allow = [] }, fn) {
  const { page, problems, close } = await openPage(ctx.browser);
  try {
    await page.goto(`${ctx.fixture.url}#token=${token}`);
    await page.locator('[data-testid="whoami-user"]').waitFor();
    await go(page, route);
    await fn(page);
    assert.deepEqual(problems.filter((p) => !allow.some((a) => p.includes(a))), []);
  } finally {
    await close();
  }
}

// Shows another route (a hash change, as a click on a link does).
export async function go(page, route) {
  await page.evaluate((hash) => {
    location.hash = hash;
  }, route);
  const name = route.split('?')[0].slice(1).replaceAll('/', '-');
  await page.locator(`[data-testid="page-${name}"]`).waitFor();
}

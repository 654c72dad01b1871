// Signing in: without a session the pages ask for a token, refuse an unknown one, take the
// right one, and ask again after signing out.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { openPage, screenshot } from './browser.mjs';

export function loginTests(ctx) {
  it('asks for a token without a session, refuses an unknown one and signs in with the right one', async () => {
    const { page, problems, close } = await openPage(ctx.browser);
    try {
      await page.goto(ctx.fixture.url);
      await page.locator('[data-testid="login-form"]').waitFor();
      await screenshot(page, 'login');
      await page.fill('[data-testid="login-token"]', 'fathom_not_a_token');
      await page.click('[data-testid="login-submit"]');
      await page.locator('[data-testid="login-error"]').waitFor();
      assert.equal(await page.textContent('[data-testid="login-error"]'), 'This token is not known.');

      await page.fill('[data-testid="login-token"]', ctx.fixture.token);
      await page.click('[data-testid="login-submit"]');
      const me = await ctx.api('whoami');
      await page.locator('[data-testid="whoami-user"]').waitFor();
      assert.equal(await page.textContent('[data-testid="whoami-user"]'), me.user);
      assert.deepEqual(JSON.parse(await page.getAttribute('[data-testid="whoami-paths"]', 'data-paths')), me.paths);
      await page.locator('[data-testid="page-overview"]').waitFor();

      await page.click('[data-testid="sign-out"]');
      await page.locator('[data-testid="login-form"]').waitFor();
      // Only the refusals themselves: 401 answers and the browser's note of them.
      assert.deepEqual(problems.filter((p) => !p.includes('401')), []);
    } finally {
      await close();
    }
  });
}

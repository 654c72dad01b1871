// The browser test of fathom serve's pages: node run.mjs FATHOM_BINARY (or $FATHOM_BINARY).
// Screenshots go to $FATHOM_WEB_SCREENSHOTS, else screenshots/ of the working directory;
// FATHOM_WEB_KEEP=1 keeps the fixture's directory; FATHOM_WEB_ASSETS=web/dist tests the pages
// of that directory instead of those compiled into fathom.
import { after, before, describe } from 'node:test';
import { aggregatorTests } from './aggregator.test.mjs';
import { apiClient } from './api-client.mjs';
import { launchBrowser } from './browser.mjs';
import { catalogTests } from './catalog.test.mjs';
import { eventsTests } from './events.test.mjs';
import { startFixture } from './fixture.mjs';
import { h5Tests } from './h5.test.mjs';
import { jobsTests } from './jobs.test.mjs';
import { loginTests } from './login.test.mjs';
import { overviewTests } from './overview.test.mjs';
import { policiesTests } from './policies.test.mjs';
import { restrictedTests } from './restricted.test.mjs';
import { rulesTests } from './rules.test.mjs';

const binary = process.argv[2] ?? process.env.FATHOM_BINARY;
if (!binary) {
  console.error('usage: node run.mjs PATH/TO/fathom');
  process.exit(2);
}

const ctx = {};

describe('fathom serve pages', { timeout: 150000 }, () => {
  before(async () => {
    ctx.fixture = await startFixture(binary);
    ctx.api = apiClient(ctx.fixture.url, ctx.fixture.token);
    ctx.browser = await launchBrowser();
  });
  after(async () => {
    await ctx.browser?.close();
    await ctx.fixture?.stop();
  });
  loginTests(ctx);
  overviewTests(ctx);
  aggregatorTests(ctx);
  catalogTests(ctx);
  eventsTests(ctx);
  restrictedTests(ctx);
  jobsTests(ctx);
  h5Tests(ctx);
  policiesTests(ctx);
  rulesTests(ctx);
});

// Debian's chromium driven by playwright-core (from web/node_modules), pages that record
// every console error, page error and failed request, and screenshots.
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const web = join(here, '..', '..', '..', 'web');
const require = createRequire(join(web, 'package.json'));

export function launchBrowser() {
  let playwright;
  try {
    playwright = require('playwright-core');
  } catch {
    throw new Error('playwright-core is missing from web/node_modules: run scripts/install-web-deps.sh');
  }
  return playwright.chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
}

// A new browser context (its own cookies) and page; problems lists what went wrong there. A
// stream the page closes itself (leaving a page) is aborted by the browser, which is no failure.
export async function openPage(browser) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => {
    const aborted = r.failure()?.errorText === 'net::ERR_ABORTED' && r.url().includes('/api/v1/events/stream');
    if (!aborted) problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`);
  });
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
  });
  return { page, problems, close: () => context.close() };
}

// Into $FATHOM_WEB_SCREENSHOTS, else screenshots/ of the working directory.
const shots = process.env.FATHOM_WEB_SCREENSHOTS ?? join(process.cwd(), 'screenshots');

export async function screenshot(page, name) {
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
}

// The pages of fathom serve: header, navigation, banner and the page of the address's hash.
import './styles/app.css';
import { onUnauthorized } from './api.js';
import { setCaller } from './caller.js';
import { h } from './dom.js';
import { headerElement, showCaller } from './header.js';
import { askForToken } from './login.js';
import { navElement } from './nav.js';
import { clearNotice, noticeElement, showNotice } from './notice.js';
import { addPage, leavePage, startRouter } from './router.js';
import { startSession, takeTokenFromUrl, whoami } from './session.js';
import overview from './pages/overview/page.js';
import events from './pages/events/page.js';
import catalog from './pages/catalog/page.js';
import subtree from './pages/catalog/subtree-page.js';
import jobs from './pages/jobs/page.js';
import job from './pages/jobs/job-page.js';
import h5 from './pages/h5/page.js';
import policies from './pages/policies/page.js';
import rules from './pages/rules/page.js';

for (const page of [overview, events, catalog, subtree, jobs, job, h5, policies, rules]) addPage(page);

const header = headerElement();
const main = h('main', { id: 'main' });

// True when the caller is known; a 401 has shown the login form otherwise.
async function loadCaller() {
  try {
    const caller = await whoami();
    setCaller(caller);
    showCaller(header, caller, signIn);
    return true;
  } catch (error) {
    return error.status !== 401;
  }
}

let signingIn = false;

async function signIn() {
  if (signingIn) return;
  signingIn = true;
  leavePage();
  await askForToken();
  signingIn = false;
  clearNotice();
  if (await loadCaller()) startRouter(main);
}

async function boot() {
  document.body.replaceChildren(header, h('div', { class: 'layout' }, navElement(), h('div', { class: 'content' }, noticeElement(), main)));
  onUnauthorized(signIn);
  const token = takeTokenFromUrl();
  if (token) {
    try {
      await startSession(token);
    } catch (error) {
      showNotice(`The token of the address was refused: ${error.message}`);
    }
  }
  if (await loadCaller()) startRouter(main);
}

boot();

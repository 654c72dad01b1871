// Hash routes: #/events?prefix=/data is the page "/events" with its parameters. A page is
// {path, title, nav (listed in the navigation), under (the entry it belongs to otherwise),
// render(view, params)}; render may return a function that stops what it started (streams,
// timers), called when another page replaces it.
import { h } from './dom.js';

const pages = [];
let stop = null;
let main = null;

export function addPage(page) {
  pages.push(page);
}

export function navPages() {
  return pages.filter((p) => p.nav);
}

export function currentRoute() {
  const hash = location.hash.replace(/^#/, '');
  const [path, query = ''] = hash.split('?');
  return { path: path || '/', params: new URLSearchParams(query) };
}

export function routeHref(path, params = {}) {
  const query = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== ''));
  const text = query.toString();
  return `#${path}${text ? `?${text}` : ''}`;
}

// The parameters of the page shown, changed without rendering it again.
export function replaceParams(params) {
  history.replaceState(null, '', routeHref(currentRoute().path, params));
}

// Stops the page shown and takes it away (the session ended).
export function leavePage() {
  if (stop) stop();
  stop = null;
  if (main) main.replaceChildren();
}

export function render() {
  leavePage();
  const { path, params } = currentRoute();
  const page = pages.find((p) => p.path === path);
  if (!page) {
    location.replace(routeHref(pages[0].path));
    return;
  }
  document.title = `${page.title} · fathom`;
  for (const link of document.querySelectorAll('nav a')) link.classList.toggle('active', link.dataset.page === (page.under ?? page.path));
  const view = h('div', { class: 'page', testid: `page-${page.path.slice(1).replaceAll('/', '-')}` });
  main.append(view);
  stop = page.render(view, params) ?? null;
}

// Shows the page of the address, and from then on the page of every new address.
export function startRouter(mainElement) {
  if (!main) window.addEventListener('hashchange', render);
  main = mainElement;
  render();
}

// The dashboard: a hash router over two pages (#/ the cluster, #/connectors/<name> one
// connector) that each refresh themselves every few seconds while shown.
import { call, get, ApiError } from './api.js';
import { h, clear, toast } from './dom.js';
import { clusterPage } from './cluster.js';
import { connectorPage } from './connector.js';

export const REFRESH_MS = 3000;

// Who is looking: the user, and whether the REST authentication lets them write (a
// read-only user's POST is refused with 403; the page then shows no buttons).
export const session = { user: null, writable: false, mode: 'worker', kafka: false };

async function loadSession() {
  try {
    Object.assign(session, await get('/ui/api/session'));
  } catch (e) {
    showError(e);
    return;
  }
  try {
    await call('POST', '/ui/api/session');
    session.writable = true;
  } catch (e) {
    session.writable = false;
    if (!(e instanceof ApiError) || e.status !== 403) showError(e);
  }
  document.body.classList.toggle('read-only', !session.writable);
  const who = session.user ? session.user : '';
  clear(document.getElementById('session'),
    who ? h('span', who) : null,
    h('span.badge' + (session.writable ? '' : '.readonly'), session.writable ? 'read-write' : 'read-only'));
  clear(document.getElementById('cluster-url'), session.mode === 'proxy' ? `cluster at ${session.cluster_url}` : (session.worker_id ? `served by ${session.worker_id}` : ''));
}

export function showError(e) {
  toast(e.message || String(e), 'error');
}

let current = null;
let timer = null;

async function refresh() {
  if (!current) return;
  const live = document.getElementById('live');
  try {
    await current.refresh();
    live.className = 'live ok';
  } catch (e) {
    live.className = 'live failed';
    if (current.showError) current.showError(e); else showError(e);
  }
}

function route() {
  const main = document.getElementById('main');
  if (current && current.leave) current.leave();
  clearInterval(timer);
  const hash = decodeURIComponent(location.hash.slice(1) || '/');
  const m = hash.match(/^\/connectors\/([^/]+)(?:\/(\w+))?$/);
  current = m ? connectorPage(main, m[1], m[2] || 'overview') : clusterPage(main);
  refresh();
  timer = setInterval(refresh, REFRESH_MS);
}

window.addEventListener('hashchange', route);
loadSession().then(route);

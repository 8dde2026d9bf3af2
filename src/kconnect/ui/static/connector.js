// One connector: status and actions, config editor, offsets, charts, dead letter queue.
import { call, get, enc } from './api.js';
import { h, clear, stateBadge, toast, shortClass } from './dom.js';
import { session, showError } from './app.js';
import { configEditor } from './config_editor.js';
import { offsetsPanel } from './offsets.js';
import { chartsPanel } from './charts.js';
import { dlqPanel } from './dlq.js';

const TABS = [['overview', 'Overview'], ['config', 'Config'], ['offsets', 'Offsets'], ['charts', 'Charts'], ['dlq', 'Dead letter queue']];

export function connectorPage(main, name, tab) {
  const head = h('div.connector-head');
  const body = h('section.tab-body');
  const nav = h('nav.tabs', TABS.map(([id, label]) =>
    h('a' + (id === tab ? '.active' : ''), { href: `#/connectors/${enc(name)}/${id}`, dataset: { tab: id } }, label)));
  clear(main, h('p', h('a', { href: '#/' }, '← Cluster')), head, nav, body);
  const status = { value: null };

  const panel = {
    overview: () => overviewPanel(body, name, status),
    config: () => configEditor(body, name),
    offsets: () => offsetsPanel(body, name, status),
    charts: () => chartsPanel(body, name),
    dlq: () => dlqPanel(body, name),
  }[tab]?.() || overviewPanel(body, name, status);

  async function refresh() {
    status.value = await get(`/connectors/${enc(name)}/status`);
    renderHead(head, name, status.value);
    if (panel.refresh) await panel.refresh();
  }
  return { refresh, leave: () => panel.leave && panel.leave() };
}

async function act(method, path, what) {
  try {
    await call(method, path);
    toast(what);
  } catch (e) {
    showError(e);
  }
}

function actionButtons(name, state) {
  if (!session.writable) return null;
  const c = `/connectors/${enc(name)}`;
  const includeTasks = h('input', { type: 'checkbox', id: 'restart-include-tasks', checked: true });
  const onlyFailed = h('input', { type: 'checkbox', id: 'restart-only-failed' });
  const button = (action, label, onclick, extra = {}) =>
    h('button', { type: 'button', dataset: { action }, onclick, ...extra }, label);
  return h('div.actions',
    state === 'PAUSED' || state === 'STOPPED'
      ? button('resume', 'Resume', () => act('PUT', `${c}/resume`, `Resuming ${name}`))
      : button('pause', 'Pause', () => act('PUT', `${c}/pause`, `Pausing ${name}`)),
    state !== 'STOPPED' ? button('stop', 'Stop', () => act('PUT', `${c}/stop`, `Stopping ${name}`)) : null,
    h('span.restart',
      button('restart', 'Restart', () => act('POST',
        `${c}/restart?includeTasks=${includeTasks.checked}&onlyFailed=${onlyFailed.checked}`, `Restarting ${name}`)),
      h('label', includeTasks, ' tasks too'), h('label', onlyFailed, ' only failed')),
    button('delete', 'Delete', async () => {
      if (!confirm(`Delete connector ${name}? Its config is removed; its offsets stay.`)) return;
      await act('DELETE', c, `Deleted ${name}`);
      location.hash = '#/';
    }, { className: 'danger' }));
}

function renderHead(el, name, s) {
  const state = s.connector.state;
  clear(el,
    h('h1', name, ' ', h('span#connector-state', stateBadge(state))),
    h('p.muted', `${s.type || ''} connector on ${s.connector.worker_id}`),
    actionButtons(name, state));
}

function trace(text) {
  if (!text) return null;
  const first = text.split('\n')[0];
  return h('details.trace', h('summary', first), h('pre', text));
}

function overviewPanel(body, name, status) {
  const tasks = h('div#tasks');
  const autoRestart = h('div#auto-restart');
  const connectorTrace = h('div');
  clear(body, connectorTrace, h('h2', 'Tasks'), tasks, h('h2', 'Automatic restarts'), autoRestart);
  let openTraces = new Set();

  async function refresh() {
    const s = status.value;
    if (!s) return;
    openTraces = new Set([...body.querySelectorAll('details[open]')].map((d) => d.dataset.key));
    clear(connectorTrace, s.connector.trace ? h('div', h('h2', 'Connector failure'), keepOpen(trace(s.connector.trace), 'connector', openTraces)) : null);
    clear(tasks, s.tasks.length === 0 ? h('p.muted', 'No tasks.') : h('table.grid#task-table',
      h('thead', h('tr', ['Task', 'State', 'Worker', 'Trace', ''].map((x) => h('th', x)))),
      h('tbody', s.tasks.map((t) => h('tr', { dataset: { task: t.id } },
        h('td', String(t.id)), h('td', stateBadge(t.state)), h('td', t.worker_id),
        h('td', keepOpen(trace(t.trace), 'task-' + t.id, openTraces)),
        h('td', session.writable ? h('button', { type: 'button', dataset: { action: 'restart-task' },
          onclick: () => act('POST', `/connectors/${enc(name)}/tasks/${t.id}/restart`, `Restarting task ${t.id}`) }, 'Restart') : null))))));
    try {
      const plan = await get(`/connectors/${enc(name)}/auto-restart`);
      const items = [plan.connector ? ['connector', plan.connector] : null, ...(plan.tasks || []).map((t) => [`task ${t.id}`, t])].filter(Boolean);
      clear(autoRestart, items.length === 0 ? h('p.muted', 'Nothing failed: no automatic restart planned.') :
        h('table.grid', h('thead', h('tr', ['What', 'State', 'Attempts', 'Next attempt', 'Why not'].map((x) => h('th', x)))),
          h('tbody', items.map(([what, p]) => h('tr', h('td', what), h('td', stateBadge(p.state)),
            h('td', `${p.attempts}${p.max_attempts >= 0 ? ' of ' + p.max_attempts : ''}`),
            h('td', p.next_attempt_ms ? new Date(p.next_attempt_ms).toLocaleTimeString() : '—'),
            h('td', p.reason || ''))))));
    } catch (e) {
      clear(autoRestart, h('p.muted', e.status === 404 ? 'This cluster does not restart failed tasks by itself (a kconnect feature).' : e.message));
    }
  }
  return { refresh };
}

function keepOpen(details, key, open) {
  if (!details) return null;
  details.dataset.key = key;
  if (open.has(key)) details.open = true;
  return details;
}

export { shortClass };

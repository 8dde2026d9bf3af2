// The cluster page: workers, connectors with their tasks and where they run, rebalances.
import { get } from './api.js';
import { h, clear, stateBadge, duration, time, ago, shortClass } from './dom.js';

export function clusterPage(main) {
  const workers = h('section#workers');
  const connectors = h('section#connectors');
  const rebalances = h('section#rebalances');
  clear(main, h('h1', 'Cluster'), connectors, workers, rebalances);

  async function refresh() {
    const view = await get('/ui/api/cluster');
    renderConnectors(connectors, view);
    renderWorkers(workers, view);
    renderRebalances(rebalances, view);
  }
  return { refresh };
}

function taskBadges(c) {
  return h('span.tasks', c.tasks.map((t) =>
    h('span.task', { title: `task ${t.id} on ${t.worker_id || '?'}` }, stateBadge(t.state),
      h('small', ` ${t.id}@${t.worker_id || '?'}`))));
}

function renderConnectors(el, view) {
  const rows = view.connectors.map((c) => h('tr', { dataset: { connector: c.name } },
    h('td', h('a', { href: '#/connectors/' + encodeURIComponent(c.name) }, c.name)),
    h('td', c.type || ''),
    h('td', { title: c.class || '' }, shortClass(c.class)),
    h('td.connector-state', stateBadge(c.state)),
    h('td', c.worker_id || ''),
    h('td', taskBadges(c))));
  clear(el, h('h2', `Connectors (${view.connectors.length})`),
    view.connectors.length === 0 ? h('p.muted', 'No connectors yet: POST /connectors to create one.') :
      h('table.grid#connector-table',
        h('thead', h('tr', ['Name', 'Type', 'Class', 'State', 'Worker', 'Tasks (state id@worker)'].map((x) => h('th', x)))),
        h('tbody', rows)));
}

function renderWorkers(el, view) {
  const rows = view.workers.map((w) => h('tr', { dataset: { worker: w.id } },
    h('td', w.id, w.is_leader ? h('span.badge.leader', 'leader') : null),
    h('td', w.kind === 'kconnect' ? `kconnect ${w.version || ''}` : w.kind === 'java' ? `Kafka Connect ${w.version || ''}` : (w.error || 'unreachable')),
    h('td', w.uptime_ms !== undefined ? duration(w.uptime_ms) : '—'),
    h('td', w.generation !== undefined ? String(w.generation) : '—'),
    h('td', (w.assigned_connectors || []).join(', ') || '—'),
    h('td', (w.assigned_tasks || []).join(', ') || '—')));
  clear(el, h('h2', `Workers (${view.workers.length})`),
    h('table.grid#worker-table',
      h('thead', h('tr', ['Worker', 'Version', 'Uptime', 'Generation', 'Connectors', 'Tasks'].map((x) => h('th', x)))),
      h('tbody', rows)),
    view.workers.some((w) => w.kind === 'java') ? h('p.muted', 'Java workers report no uptime, leader or rebalances through the REST API.') : null);
}

function moves(list) {
  return list.map((m) => {
    const plus = [...(m.assigned?.connectors || []), ...(m.assigned?.tasks || [])];
    const minus = [...(m.revoked?.connectors || []), ...(m.revoked?.tasks || [])];
    return h('div', h('b', m.worker + ': '),
      plus.length ? h('span.gained', '+ ' + plus.join(', ')) : null, ' ',
      minus.length ? h('span.lost', '− ' + minus.join(', ')) : null,
      !plus.length && !minus.length ? h('span.muted', 'kept its work') : null);
  });
}

function renderRebalances(el, view) {
  const list = view.rebalances || [];
  clear(el, h('h2', 'Rebalances'),
    list.length === 0 ? h('p.muted', view.workers.some((w) => w.kind === 'kconnect') ? 'No rebalance yet.' : 'Rebalance history needs kconnect workers.') :
      h('table.grid#rebalance-table',
        h('thead', h('tr', ['Generation', 'When', 'Took', 'Leader', 'What moved'].map((x) => h('th', x)))),
        h('tbody', list.map((r) => h('tr',
          h('td', String(r.generation)),
          h('td', { title: new Date(r.completed_ms).toISOString() }, `${time(r.completed_ms)} (${ago(r.completed_ms)})`),
          h('td', duration(r.duration_ms)),
          h('td', r.leader || ''),
          h('td', moves(r.moves)))))));
}

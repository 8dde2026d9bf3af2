// The cluster page: workers, connectors with their tasks and where they run, rebalances.
// Connectors are paged (PAGE a page, filtered by a name substring and a state) so a cluster
// of thousands stays a page of rows; the filter controls are built once and kept across
// refreshes, so typing in the search box is never interrupted.
import { get, enc } from './api.js';
import { h, clear, stateBadge, duration, time, ago, shortClass } from './dom.js';

const PAGE = 50;
const STATES = ['RUNNING', 'PAUSED', 'STOPPED', 'FAILED', 'UNASSIGNED', 'RESTARTING'];

export function clusterPage(main) {
  const filter = { offset: 0, search: '', state: '' };
  const workers = h('section#workers');
  const heading = h('h2', 'Connectors');
  const summary = h('div#connector-states');
  const table = h('div');
  const search = h('input#connector-search', { type: 'search', placeholder: 'name contains…',
    oninput: () => { filter.search = search.value; filter.offset = 0; refresh(); } });
  const state = h('select#connector-state-filter', {
    onchange: () => { filter.state = state.value; filter.offset = 0; refresh(); } },
  h('option', { value: '' }, 'any state'), STATES.map((x) => h('option', { value: x }, x)));
  const position = h('span#connector-page');
  const prev = h('button#page-prev', { onclick: () => { filter.offset = Math.max(0, filter.offset - PAGE); refresh(); } }, '‹ previous');
  const next = h('button#page-next', { onclick: () => { filter.offset += PAGE; refresh(); } }, 'next ›');
  const connectors = h('section#connectors', heading, summary,
    h('div.pager', search, ' ', state, ' ', prev, ' ', position, ' ', next), table);
  const rebalances = h('section#rebalances');
  clear(main, h('h1', 'Cluster'), connectors, workers, rebalances);

  let asked = 0;  // answers to older requests (typing fast) are dropped
  async function refresh() {
    const mine = ++asked;
    const query = `offset=${filter.offset}&limit=${PAGE}` +
      (filter.search ? `&search=${enc(filter.search)}` : '') + (filter.state ? `&state=${filter.state}` : '');
    const view = await get('/ui/api/cluster?' + query);
    if (mine !== asked) return;
    const page = view.connector_page;
    if (page.matching > 0 && filter.offset >= page.matching) {  // the list shrank under this page
      filter.offset = Math.floor((page.matching - 1) / PAGE) * PAGE;
      return refresh();
    }
    heading.textContent = `Connectors (${page.total})`;
    clear(summary, Object.entries(page.states).map(([s, n]) => h('button.chip', {
      onclick: () => { filter.state = s; state.value = s; filter.offset = 0; refresh(); } },
    stateBadge(s), ` ${n}`)));
    position.textContent = page.matching === 0 ? 'none match' :
      `${page.offset + 1}-${page.offset + view.connectors.length} of ${page.matching}`;
    prev.disabled = page.offset === 0;
    next.disabled = page.offset + view.connectors.length >= page.matching;
    renderConnectors(table, view);
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
  const empty = view.connector_page.total === 0 ? 'No connectors yet: POST /connectors to create one.' :
    'No connector matches the filter.';
  clear(el, view.connectors.length === 0 ? h('p.muted', empty) :
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
    h('td.assigned-connectors', names(w.assigned_connectors)),
    h('td.assigned-tasks', names(w.assigned_tasks))));
  clear(el, h('h2', `Workers (${view.workers.length})`),
    h('table.grid#worker-table',
      h('thead', h('tr', ['Worker', 'Version', 'Uptime', 'Generation', 'Connectors', 'Tasks'].map((x) => h('th', x)))),
      h('tbody', rows)),
    view.workers.some((w) => w.kind === 'java') ? h('p.muted', 'Java workers report no uptime, leader or rebalances through the REST API.') : null);
}

// {count, first: [...]} → "3: a, b, c" or "1000: a, b, … (980 more)"
function names(list) {
  if (!list || list.count === 0) return '—';
  const more = list.count - list.first.length;
  return `${list.count}: ${list.first.join(', ')}` + (more > 0 ? `, … (${more} more)` : '');
}

function moveText(move) {
  const shown = [...(move?.connectors || []), ...(move?.tasks || [])];
  const more = (move?.connectors_more || 0) + (move?.tasks_more || 0);
  return { any: shown.length + more > 0, text: shown.join(', ') + (more > 0 ? `, … (${more} more)` : '') };
}

function moves(list) {
  return list.map((m) => {
    const plus = moveText(m.assigned);
    const minus = moveText(m.revoked);
    return h('div', h('b', m.worker + ': '),
      plus.any ? h('span.gained', '+ ' + plus.text) : null, ' ',
      minus.any ? h('span.lost', '− ' + minus.text) : null,
      !plus.any && !minus.any ? h('span.muted', 'kept its work') : null);
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

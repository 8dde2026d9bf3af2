// Offsets: GET /connectors/{c}/offsets; alter (PATCH) and reset (DELETE) once it is STOPPED.
import { call, get, enc } from './api.js';
import { h, clear, toast } from './dom.js';
import { session, showError } from './app.js';

export function offsetsPanel(body, name, status) {
  const list = h('div#offsets');
  const editor = h('div');
  clear(body, h('h2', 'Offsets'), list, editor);
  let shownFor = null;

  async function load() {
    try {
      const data = await get(`/connectors/${enc(name)}/offsets`);
      const offsets = data.offsets || [];
      clear(list, offsets.length === 0 ? h('p.muted', 'No committed offsets yet.') :
        h('table.grid#offset-table', h('thead', h('tr', h('th', 'Partition'), h('th', 'Offset'))),
          h('tbody', offsets.map((o) => h('tr', h('td', h('code', JSON.stringify(o.partition))), h('td', h('code', JSON.stringify(o.offset))))))));
      return offsets;
    } catch (e) {
      clear(list, h('p.error', e.message));
      return [];
    }
  }

  async function refresh() {
    const state = status.value?.connector.state;
    if (shownFor === state) return;
    shownFor = state;
    const offsets = await load();
    if (!session.writable) return clear(editor);
    if (state !== 'STOPPED') {
      return clear(editor, h('p.muted', 'Offsets can be altered or reset once the connector is stopped (Stop above).'));
    }
    const text = h('textarea#offsets-json', { rows: 8, cols: 80, value: JSON.stringify({ offsets }, null, 2) });
    clear(editor, h('h3', 'Alter or reset'), text, h('div.actions',
      h('button', { type: 'button', dataset: { action: 'alter-offsets' }, onclick: async () => {
        let parsed;
        try { parsed = JSON.parse(text.value); } catch (e) { return showError(new Error('Not JSON: ' + e.message)); }
        try { const r = await call('PATCH', `/connectors/${enc(name)}/offsets`, parsed); toast(r?.message || 'Offsets altered'); shownFor = null; } catch (e) { showError(e); }
      } }, 'Alter offsets'),
      h('button.danger', { type: 'button', dataset: { action: 'reset-offsets' }, onclick: async () => {
        if (!confirm(`Reset every offset of ${name}?`)) return;
        try { const r = await call('DELETE', `/connectors/${enc(name)}/offsets`); toast(r?.message || 'Offsets reset'); shownFor = null; } catch (e) { showError(e); }
      } }, 'Reset offsets')));
  }
  return { refresh };
}

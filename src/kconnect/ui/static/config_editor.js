// The config editor: every setting with its value, validated as you type through
// PUT /connector-plugins/{class}/config/validate (via /ui/api, which keeps secrets hidden),
// each key's errors, documentation and recommended values beside it.
import { call, get, enc } from './api.js';
import { h, clear, toast } from './dom.js';
import { session, showError } from './app.js';

const VALIDATE_DELAY_MS = 350;

export function configEditor(body, name) {
  const summary = h('p#validation-summary.muted');
  const table = h('tbody');
  const addKey = h('input', { id: 'new-key', placeholder: 'new setting, e.g. batch.size' });
  let rows = new Map(); // key -> {input, info}
  let definitions = new Map();
  let timer = null;
  let generation = 0;

  clear(body, h('h2', 'Config'), summary,
    h('table.grid.config#config-table', h('thead', h('tr', h('th', 'Setting'), h('th', 'Value'), h('th', 'Errors, documentation, recommended values'))), table),
    session.writable ? h('div.actions',
      addKey, h('button', { type: 'button', dataset: { action: 'add-setting' }, onclick: () => { if (addKey.value.trim()) { addRow(addKey.value.trim(), ''); addKey.value = ''; schedule(); } } }, 'Add'),
      h('button.primary', { type: 'button', dataset: { action: 'save-config' }, onclick: save }, 'Save config')) :
      h('p.muted', 'Read-only: you may look, not change.'));

  function current() {
    const out = {};
    for (const [key, row] of rows) out[key] = row.input.value;
    return out;
  }

  function addRow(key, value) {
    if (rows.has(key)) return rows.get(key);
    const list = 'rec-' + key.replace(/[^a-zA-Z0-9_-]/g, '_');
    const input = h('input', { value, disabled: !session.writable, dataset: { key }, oninput: schedule, name: key });
    input.setAttribute('list', list);
    const info = h('div.key-info');
    const remove = session.writable && key !== 'connector.class' && key !== 'name'
      ? h('button.link', { type: 'button', title: 'remove this setting', onclick: () => { rows.delete(key); tr.remove(); schedule(); } }, '×') : null;
    const tr = h('tr', { dataset: { key } }, h('td.key', key, remove), h('td', input, h('datalist', { id: list })), h('td', info));
    table.append(tr);
    const row = { input, info, tr, list };
    rows.set(key, row);
    return row;
  }

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(validate, VALIDATE_DELAY_MS);
  }

  async function validate() {
    if (!session.writable) return; // validation is a PUT: read-only users may not
    const mine = ++generation;
    let result;
    try {
      result = await call('PUT', `/ui/api/connectors/${enc(name)}/validate`, { config: current() });
    } catch (e) {
      summary.textContent = e.message;
      return;
    }
    if (mine !== generation) return; // a newer edit is being validated
    show(result);
  }

  function show(result) {
    definitions = new Map(result.configs.map((c) => [c.definition.name, c]));
    for (const c of result.configs) {
      if ((c.value.errors || []).length && !rows.has(c.definition.name)) addRow(c.definition.name, '');
    }
    for (const [key, row] of rows) {
      const c = definitions.get(key);
      const errors = c ? c.value.errors || [] : [];
      row.tr.classList.toggle('invalid', errors.length > 0);
      const rec = c ? c.value.recommended_values || [] : [];
      clear(row.tr.querySelector('datalist'), rec.map((v) => h('option', { value: v })));
      clear(row.info,
        errors.map((e) => h('div.error', { dataset: { errorFor: key } }, e)),
        c ? h('div.doc', c.definition.documentation || '') : h('div.doc.muted', 'Not a setting of this connector or the framework (passed on to it as is).'),
        c ? h('div.meta', `${c.definition.type}${c.definition.required ? ', required' : ''}${c.definition.default_value !== null && c.definition.default_value !== undefined && c.definition.default_value !== '' ? ', default ' + c.definition.default_value : ''}`) : null,
        rec.length ? h('div.rec', 'Recommended: ', rec.slice(0, 12).map((v) => h('button.chip', { type: 'button', disabled: !session.writable, onclick: () => { row.input.value = v; schedule(); } }, v))) : null);
    }
    summary.textContent = result.error_count ? `${result.error_count} error(s): fix them before saving.` : 'Valid.';
    summary.className = result.error_count ? 'invalid-summary' : 'muted';
  }

  async function save() {
    try {
      await call('PUT', `/ui/api/connectors/${enc(name)}/config`, { config: current() });
      toast(`Saved the config of ${name}`);
    } catch (e) {
      showError(e);
    }
  }

  (async () => {
    try {
      const data = await get(`/ui/api/connectors/${enc(name)}/config`);
      for (const key of Object.keys(data.config).sort((a, b) => (a === 'connector.class' ? -1 : b === 'connector.class' ? 1 : a.localeCompare(b)))) {
        addRow(key, data.config[key] ?? '');
      }
      if (data.password_keys.length) summary.textContent = `Secret values (${data.password_keys.join(', ')}) show as [hidden]; leave them so to keep them.`;
      await validate();
    } catch (e) {
      summary.textContent = e.message;
    }
  })();
  return {};
}

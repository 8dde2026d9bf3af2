// The dead letter queue: the last records of errors.deadletterqueue.topic.name, newest first,
// with the __connect.errors.* headers decoded and the failed value as text or JSON.
import { get, enc } from './api.js';
import { h, clear } from './dom.js';

function decoded(d) {
  if (d.error) return h('p.error.dlq-decode-error', `Schema ${d.schema_id ?? '?'}: ${d.error}`);
  return h('div.dlq-decoded', h('p.muted', `Decoded with schema id ${d.schema_id} (${d.schema || 'schemaless'})`),
    h('pre.json', JSON.stringify(d.data, null, 2)));
}

function shown(v) {
  if (v && v.decoded) return decoded(v.decoded);
  if (!v || v.text === null || v.text === undefined) return v && v.base64 ? h('code', `(binary, base64) ${v.base64}`) : h('span.muted', 'null');
  if (v.json !== undefined) return h('pre.json', JSON.stringify(v.json, null, 2));
  return h('pre', v.text + (v.truncated ? `\n… (${v.size} bytes, cut)` : ''));
}

export function dlqPanel(body, name) {
  const limit = h('input', { type: 'number', id: 'dlq-limit', value: 20, min: 1, max: 500 });
  const out = h('div#dlq');
  clear(body, h('h2', 'Dead letter queue'),
    h('div.actions', h('label', 'Last ', limit, ' records '), h('button', { type: 'button', dataset: { action: 'dlq-refresh' }, onclick: load }, 'Refresh')), out);

  async function load() {
    clear(out, h('p.muted', 'Reading…'));
    let data;
    try {
      data = await get(`/ui/api/connectors/${enc(name)}/dlq?limit=${enc(limit.value || 20)}`);
    } catch (e) {
      clear(out, h('p.error#dlq-error', e.message));
      return;
    }
    clear(out,
      h('p.muted', `Topic ${data.topic}: ${data.records.length} record(s), newest first.`,
        data.context_headers ? '' : ' Set errors.deadletterqueue.context.headers.enable=true to see why each record failed.'),
      data.records.map((r) => {
        const e = r.error || {};
        return h('article.dlq-record', { dataset: { offset: r.dlq.offset } },
          h('h3', `${data.topic}[${r.dlq.partition}]@${r.dlq.offset}`,
            e.topic !== undefined ? h('span.muted', ` from ${e.topic}[${e.partition}]@${e.offset}`) : null),
          h('table.grid.kv',
            h('tr', h('th', 'Stage'), h('td.dlq-stage', e.stage || '—')),
            h('tr', h('th', 'Class'), h('td', e.class_name || '—')),
            h('tr', h('th', 'Connector / task'), h('td', `${e.connector || '—'} / ${e.task ?? '—'}`)),
            h('tr', h('th', 'Exception'), h('td', e.exception_class || '—')),
            h('tr', h('th', 'Message'), h('td', h('pre.dlq-message', e.exception_message || '—'))),
            h('tr', h('th', 'Key'), h('td', shown(r.key))),
            h('tr', h('th', 'Value'), h('td.dlq-value', shown(r.value)))),
          e.exception_stacktrace ? h('details.trace', h('summary', 'Stack trace'), h('pre', e.exception_stacktrace)) : null,
          r.headers.length ? h('details', h('summary', `Other headers (${r.headers.length})`), h('pre', r.headers.map((x) => `${x.name}: ${x.value}`).join('\n'))) : null);
      }));
  }
  load();
  return {};
}

// Tiny DOM helpers: h('tag.class', {attrs}, ...children). Text is always set as text, never
// as HTML, so nothing a connector or a record holds can inject markup.

export function h(spec, attrs, ...children) {
  // 'tag#id.class1.class2', each part optional but the tag
  const m = spec.match(/^([a-z0-9]*)((?:[#.][\w-]+)*)$/i);
  const el = document.createElement((m && m[1]) || 'div');
  for (const part of (m ? m[2] : '').match(/[#.][\w-]+/g) || []) {
    if (part[0] === '#') el.id = part.slice(1); else el.classList.add(part.slice(1));
  }
  if (attrs && (typeof attrs !== 'object' || attrs instanceof Node || Array.isArray(attrs))) {
    children.unshift(attrs);
    attrs = null;
  }
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k in el && k !== 'list') el[k] = v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export function clear(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

export function stateBadge(state) {
  const s = state || 'UNKNOWN';
  return h('span.badge.state-' + s.toLowerCase(), { dataset: { state: s } }, s);
}

export function ago(ms) {
  if (ms === null || ms === undefined) return '';
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  return duration(s * 1000) + ' ago';
}

export function duration(ms) {
  if (ms === null || ms === undefined || !isFinite(ms)) return '—';
  const s = Math.round(ms / 1000);
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}

export function time(ms) {
  return ms ? new Date(ms).toLocaleTimeString() : '';
}

export function toast(message, kind = 'info') {
  const el = document.getElementById('toast');
  const item = h('div.toast-' + kind, message);
  el.append(item);
  setTimeout(() => item.remove(), kind === 'error' ? 9000 : 4000);
}

export function shortClass(name) {
  if (!name) return '';
  const parts = String(name).split('.');
  return parts[parts.length - 1];
}

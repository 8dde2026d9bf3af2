// Charts of the last 15 minutes from every worker's own metrics history (gathered by
// /ui/api/cluster/metrics), one line per task, drawn with uPlot (vendored, MIT).
import { get, enc } from './api.js';
import { h, clear } from './dom.js';

export const CHARTS = [
  { id: 'records-in', title: 'Records/s in (polled from the source / read from Kafka)', metrics: ['source-record-poll-rate', 'sink-record-read-rate'], total: true },
  { id: 'records-out', title: 'Records/s out (written to Kafka / put to the sink)', metrics: ['source-record-write-rate', 'sink-record-send-rate'], total: true },
  { id: 'lag', title: 'Sink lag: sink-record-lag-max (records)', metrics: ['sink-record-lag-max'] },
  { id: 'batch', title: 'Batch size (records, average)', metrics: ['batch-size-avg'] },
  { id: 'errors', title: 'Errors, skipped records and DLQ produce requests per second', metrics: ['record-error-rate', 'record-skip-rate', 'deadletterqueue-produce-rate', 'deadletterqueue-failure-rate'] },
  { id: 'latency', title: 'put / poll latency (ms, batch average)', metrics: ['put-batch-avg-time-ms', 'poll-batch-avg-time-ms'] },
];

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];

// One table for uPlot: [x seconds, ...one array per series], aligned over every worker's times.
export function align(workers, metrics, total = false) {
  const series = [];
  for (const w of workers) {
    for (const s of w.series) {
      if (!metrics.includes(s.metric)) continue;
      const points = new Map();
      // samples of all workers fall on one grid of interval_ms, so lines and sums line up
      const step = w.interval_ms || 5000;
      w.times.forEach((t, i) => { if (s.values[i] !== null && s.values[i] !== undefined) points.set(Math.round(t / step) * step / 1000, s.values[i]); });
      series.push({ label: `task ${s.task} ${s.metric.replace(/-/g, ' ')} @ ${w.worker_id}`, points });
    }
  }
  const xs = [...new Set(series.flatMap((s) => [...s.points.keys()]))].sort((a, b) => a - b);
  if (total && series.length > 1) {
    // the connector as a whole: at each sample time, the sum of the tasks sampled then
    const sum = new Map(xs.map((x) => [x, series.reduce((n, s) => n + (s.points.get(x) || 0), 0)]));
    // the newest sample time may not have every worker's sample yet: no partial total there
    const counted = (x) => series.filter((s) => s.points.has(x)).length;
    if (xs.length > 1 && counted(xs[xs.length - 1]) < counted(xs[xs.length - 2])) sum.delete(xs[xs.length - 1]);
    series.unshift({ label: 'connector (all tasks)', points: sum });
  }
  return { labels: series.map((s) => s.label), data: [xs, ...series.map((s) => xs.map((x) => (s.points.has(x) ? s.points.get(x) : null)))] };
}

export function chartsPanel(body, name) {
  const note = h('div#charts-note.muted');
  const grid = h('div.charts');
  const boxes = new Map();
  clear(body, h('h2', 'Last 15 minutes'), note, grid);

  for (const c of CHARTS) {
    const plot = h('div.plot', { dataset: { chart: c.id } });
    const box = h('div.chart', h('h3', c.title), plot);
    grid.append(box);
    boxes.set(c.id, { plot, chart: null, labels: '' });
  }

  async function refresh() {
    const data = await get(`/ui/api/cluster/metrics?connector=${enc(name)}`);
    const missing = (data.unavailable || []).map((u) => `${u.worker_id}: ${u.reason}`);
    note.textContent = (missing.length ? 'Metrics unavailable for ' + missing.join('; ') + '. ' : '') +
      (data.workers.length ? `From ${data.workers.length} worker(s), sampled every ${data.workers[0].interval_ms / 1000} s.` : 'No worker of this cluster keeps a metrics history (charts need kconnect workers).');
    for (const c of CHARTS) draw(boxes.get(c.id), align(data.workers, c.metrics, c.total));
  }

  function draw(box, { labels, data }) {
    const key = labels.join('|');
    const hasPoints = data.length > 1 && data[0].length > 0;
    box.plot.dataset.points = String(data.slice(1).reduce((n, s) => n + s.filter((v) => v !== null).length, 0));
    if (!hasPoints) {
      if (box.chart) { box.chart.destroy(); box.chart = null; }
      clear(box.plot, h('p.muted', 'No data yet.'));
      box.labels = '';
      return;
    }
    if (box.chart && box.labels === key) {
      box.chart.setData(data);
      return;
    }
    if (box.chart) box.chart.destroy();
    clear(box.plot);
    const width = Math.max(320, box.plot.clientWidth || 560);
    box.chart = new window.uPlot({
      width, height: 220,
      scales: { x: { time: true } },
      series: [{}, ...labels.map((label, i) => ({ label, stroke: COLORS[i % COLORS.length], width: 2, spanGaps: true, points: { show: true, size: 5 } }))],
      axes: [{}, { size: 60 }],
      legend: { show: true },
    }, data, box.plot);
    box.plot._uplot = box.chart;
    box.labels = key;
  }
  return { refresh, leave: () => { for (const b of boxes.values()) if (b.chart) b.chart.destroy(); } };
}

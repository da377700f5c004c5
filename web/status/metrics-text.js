// The Prometheus text format (0.0.4) as the status page reads it, and the series it plots.
// No DOM here: Tests/web/status-metrics.test.mjs runs it under node.

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

function unescapeLabel(value) {
  return value.replace(/\\(["\\n])/g, (_, c) => (c === 'n' ? '\n' : c));
}

function number(text) {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  return Number(text);
}

/** Parses an exposition into [{name, labels, value}] (comments and blank lines skipped). */
export function parseMetrics(text) {
  const samples = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels = {};
    for (const [, key, value] of (match[2] || '').matchAll(LABEL)) labels[key] = unescapeLabel(value);
    samples.push({ name: match[1], labels, value: number(match[3]) });
  }
  return samples;
}

/** The sum of every sample of `name` whose labels include `where`. */
export function total(samples, name, where = {}) {
  let sum = 0;
  for (const s of samples) {
    if (s.name !== name) continue;
    if (Object.entries(where).every(([k, v]) => s.labels[k] === v)) sum += s.value;
  }
  return sum;
}

/** What the page plots, read from one scrape: gauges as they are, counters as totals
 *  (rates come from two scrapes, in `Rates`). */
export function readings(samples) {
  const build = samples.find((s) => s.name === 'reactorhub_build_info');
  return {
    connections: total(samples, 'reactorhub_connections'),
    instances: total(samples, 'reactorhub_instances'),
    queuedBytes: total(samples, 'reactorhub_outbound_queued_bytes'),
    actions: total(samples, 'reactorhub_actions_total'),
    frames: total(samples, 'reactorhub_patch_frames_total'),
    ready: total(samples, 'reactorhub_ready'),
    version: build ? build.labels.version : null,
  };
}

/** Per-second rates of counters between consecutive scrapes; a counter that went down
 *  (the daemon restarted) counts from zero, as Prometheus' rate() does. */
export class Rates {
  constructor() { this.last = null; }

  /** `totals`: {name: counter value}; `time`: ms. Returns {name: per second}, or null at first. */
  next(totals, time) {
    const previous = this.last;
    this.last = { totals, time };
    if (!previous || time <= previous.time) return null;
    const seconds = (time - previous.time) / 1000;
    const rates = {};
    for (const [name, value] of Object.entries(totals)) {
      const before = previous.totals[name];
      const increase = before === undefined || value < before ? value : value - before;
      rates[name] = increase / seconds;
    }
    return rates;
  }
}

/** A time series kept for `windowMs`: points older than the window are dropped. */
export class Series {
  constructor(windowMs) { this.windowMs = windowMs; this.points = []; }

  add(time, value) {
    this.points.push({ time, value });
    const oldest = time - this.windowMs;
    while (this.points.length && this.points[0].time < oldest) this.points.shift();
  }

  get latest() { return this.points.length ? this.points[this.points.length - 1].value : null; }

  get max() { return this.points.reduce((m, p) => Math.max(m, p.value), 0); }
}

/** The smallest 1, 2 or 4 times a power of ten at or above `value` (2 at least): a round top
 *  for a plot's y axis, whose ticks (top, half, 0) then all read as round numbers. */
export function roundTop(value) {
  if (!(value > 2)) return 2;
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 4, 10].map((step) => step * power).find((top) => top >= value);
}

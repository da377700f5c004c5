// The status page: polls /metrics and /readyz, plots five series over the last ten
// minutes, and lists the instances with the most subscribers from /admin/instances (with
// the admin token typed into the page, kept in sessionStorage only).
import { parseMetrics, readings, roundTop, Rates, Series } from '/status/metrics-text.js';

const WINDOW_MS = 10 * 60 * 1000;
const TOKEN_KEY = 'reactorhub.adminToken';
const params = new URLSearchParams(location.search);
const INTERVAL_MS = Math.max(250, Number(params.get('interval')) || 3000);

const $ = (testid) => document.querySelector(`[data-testid="${testid}"]`);

// `unit` names the y axis; `tick` writes a value on it (with its unit where it is short).
const PLOTS = {
  connections: { label: 'Connections', format: integer, unit: 'connections', tick: integer },
  instances: { label: 'Instances', format: integer, unit: 'instances in memory', tick: integer },
  actions: { label: 'Actions per second', format: perSecond, unit: 'actions per second', tick: (v) => `${integer(v)}/s` },
  frames: { label: 'Patch frames per second', format: perSecond, unit: 'patch frames per second', tick: (v) => `${integer(v)}/s` },
  queued: { label: 'Queued bytes', format: bytes, unit: 'bytes waiting in outboxes', tick: bytes },
};
const AXIS_TICKS = 3; // top, middle, bottom (0); start, middle, end of the time span
const series = Object.fromEntries(Object.keys(PLOTS).map((key) => [key, new Series(WINDOW_MS)]));
const rates = new Rates();

function integer(value) { return Math.round(value).toLocaleString('en-US'); }
function perSecond(value) { return value >= 100 ? integer(value) : value.toFixed(value >= 10 ? 1 : 2); }
function bytes(value) {
  if (value < 1024) return `${integer(value)} B`;
  if (value < 1048576) return `${(value / 1024).toFixed(1)} KiB`;
  return `${(value / 1048576).toFixed(1)} MiB`;
}

function clock(time) { return new Date(time).toLocaleTimeString('en-GB'); }

// Puts each plot in a frame with its axes: values on the left (top, middle, 0), the time
// below (start, middle, now), grid lines at the ticks, and the units in words underneath.
function setUpAxes() {
  for (const [key, plot] of Object.entries(PLOTS)) {
    const svg = $(`plot-${key}`);
    const frame = document.createElement('div');
    frame.className = 'plot-frame';
    const axis = (name) => {
      const element = document.createElement('div');
      element.className = `plot-axis plot-axis-${name}`;
      element.dataset.testid = `axis-${name}-${key}`;
      element.setAttribute('aria-hidden', 'true');
      for (let i = 0; i < AXIS_TICKS; i += 1) element.append(document.createElement('span'));
      return element;
    };
    svg.replaceWith(frame);
    frame.append(axis('y'), svg, axis('x'));
    for (const y of [2, 40, 78]) {
      const line = document.createElementNS('http://www.w3.org/2000/svg', 'line');
      line.setAttribute('class', 'plot-grid');
      line.setAttribute('x1', '0');
      line.setAttribute('x2', '300');
      line.setAttribute('y1', String(y));
      line.setAttribute('y2', String(y));
      svg.prepend(line);
    }
    const units = document.createElement('p');
    units.className = 'plot-units caption';
    units.dataset.testid = `axis-units-${key}`;
    units.textContent = `↑ ${plot.unit} · → time of day, last ten minutes`;
    frame.after(units);
  }
}

function drawAxes(key, top, start, now) {
  const plot = PLOTS[key];
  const values = [top, top / 2, 0];
  $(`axis-y-${key}`).querySelectorAll('span').forEach((span, i) => { span.textContent = plot.tick(values[i]); });
  const times = [start, start + (now - start) / 2, now];
  $(`axis-x-${key}`).querySelectorAll('span').forEach((span, i) => { span.textContent = clock(times[i]); });
}

function draw(key, now) {
  const plot = PLOTS[key];
  const points = series[key].points;
  const svg = $(`plot-${key}`);
  const top = roundTop(series[key].max * 1.1);
  // The x axis spans the last ten minutes, or less while the page has been open less long.
  const start = points.length > 1 ? Math.max(now - WINDOW_MS, points[0].time) : now - WINDOW_MS;
  const span = Math.max(now - start, 1);
  drawAxes(key, top, start, now);
  const x = (time) => (300 * (time - start) / span).toFixed(1);
  const y = (value) => (78 - 76 * value / top).toFixed(1);
  const line = points.map((p) => `${x(p.time)},${y(p.value)}`).join(' ');
  svg.querySelector('.plot-line').setAttribute('points', line);
  svg.querySelector('.plot-area').setAttribute('d', points.length
    ? `M${x(points[0].time)},80 L${line.replaceAll(' ', ' L')} L${x(points[points.length - 1].time)},80 Z` : '');
  svg.dataset.points = String(points.length);
  const latest = series[key].latest;
  $(`value-${key}`).textContent = latest === null ? '–' : plot.format(latest);
  $(`value-${key}`).dataset.value = latest === null ? '' : String(latest);
  svg.setAttribute('aria-label', latest === null
    ? `${plot.label} over the last ten minutes: no data yet`
    : `${plot.label} over the last ten minutes: now ${plot.format(latest)}, highest ${plot.format(series[key].max)}, ${points.length} points`);
}

function showError(text) {
  const error = $('status-error');
  error.hidden = !text;
  error.textContent = text || '';
}

// The daemon cannot be reached at all (not an error answer): the banner says so, pinned to the
// top of the screen, since on a phone the readiness pill has scrolled out of view.
class Unreachable extends Error {}

let lostSince = null;
function showConnection(lost) {
  const banner = $('status-offline');
  if (lost && lostSince === null) lostSince = Date.now();
  if (!lost) lostSince = null;
  banner.hidden = !lost;
  document.body.classList.toggle('is-offline', lost);
  if (lost) {
    banner.textContent = `Connection to the daemon lost at ${clock(lostSince)}: retrying every ${INTERVAL_MS / 1000} s.`;
  }
}

async function pollMetrics() {
  let response;
  try {
    response = await fetch('/metrics', { cache: 'no-store' });
  } catch (error) {
    throw new Unreachable(`the daemon is unreachable (${error.message})`);
  }
  if (!response.ok) throw new Error(`/metrics answered ${response.status} (is metrics.enabled false?)`);
  const now = Date.now();
  const reading = readings(parseMetrics(await response.text()));
  series.connections.add(now, reading.connections);
  series.instances.add(now, reading.instances);
  series.queued.add(now, reading.queuedBytes);
  const perSecondNow = rates.next({ actions: reading.actions, frames: reading.frames }, now);
  if (perSecondNow) {
    series.actions.add(now, perSecondNow.actions);
    series.frames.add(now, perSecondNow.frames);
  }
  for (const key of Object.keys(PLOTS)) draw(key, now);
  if (reading.version) $('status-version').textContent = `reactorhub ${reading.version}`;
  $('status-updated').textContent = `Updated ${new Date(now).toLocaleTimeString('en-GB')}`;
}

async function pollReadiness() {
  const pill = $('status-readiness');
  const text = $('status-readiness-text');
  try {
    const response = await fetch('/readyz', { cache: 'no-store' });
    const body = (await response.text()).trim();
    pill.dataset.ready = String(response.status === 200);
    text.textContent = response.status === 200 ? 'Ready' : `Not ready: ${body}`;
  } catch {
    pill.dataset.ready = 'false';
    text.textContent = 'Unreachable';
  }
}

// ---- top instances (admin API) ----------------------------------------------------------

function storedToken() { return sessionStorage.getItem(TOKEN_KEY) || ''; }

// A token the admin API refused is not sent again until another one is typed.
let refused = null;

function topMessage(text, state = 'info') {
  const message = $('top-message');
  message.textContent = text;
  message.dataset.state = state;
}

async function pollInstances() {
  const token = storedToken();
  const table = $('top-instances');
  if (!token) {
    table.hidden = true;
    $('top-total').textContent = '';
    topMessage('Type the admin token to list the instances.');
    return;
  }
  if (refused && refused.token === token) return;  // its message stays
  const response = await fetch('/admin/instances?limit=1000', { cache: 'no-store', headers: { Authorization: `Bearer ${token}` } });
  if (!response.ok) {
    table.hidden = true;
    $('top-total').textContent = '';
    const reason = response.status === 401 ? 'the token is not admin.token'
      : response.status === 404 ? 'this daemon has no admin.token: the admin API is off' : (await response.text()).trim();
    topMessage(`Admin API ${response.status}: ${reason}.`, 'error');
    if (response.status === 401 || response.status === 404) refused = { token };
    return;
  }
  const page = await response.json();
  const top = [...page.instances].sort((a, b) => b.subscribers - a.subscribers
    || `${a.kind}/${a.id}`.localeCompare(`${b.kind}/${b.id}`)).slice(0, 10);
  const body = $('top-instances-body');
  body.replaceChildren(...top.map((instance) => {
    const row = document.createElement('tr');
    row.dataset.testid = 'top-instance';
    row.dataset.address = `${instance.kind}/${instance.id}`;
    // An address may wrap after its slash (and its id after a dash or a dot), never inside a word.
    const address = [`${instance.kind}/`, document.createElement('wbr'), instance.id];
    for (const [value, testid] of [[address, 'top-instance-address'],
      [[integer(instance.subscribers)], 'top-instance-subscribers'], [[integer(instance.version)], 'top-instance-version'],
      [[bytes(instance.queuedBytes)], 'top-instance-queued']]) {
      const cell = document.createElement('td');
      cell.append(...value);
      cell.dataset.testid = testid;
      row.append(cell);
    }
    return row;
  }));
  table.hidden = top.length === 0;
  $('top-total').textContent = `${integer(page.total)} in memory`;
  topMessage(top.length ? `The ${top.length} with the most subscribers.` : 'No instance in memory.');
}

function setUpTokenForm() {
  const form = $('admin-token-form');
  const input = $('admin-token');
  input.value = storedToken();
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const token = input.value.trim();
    if (token) sessionStorage.setItem(TOKEN_KEY, token); else sessionStorage.removeItem(TOKEN_KEY);
    refused = null;
    pollInstances().catch((error) => topMessage(`Admin API unreachable: ${error.message}`, 'error'));
  });
  $('admin-token-forget').addEventListener('click', () => {
    sessionStorage.removeItem(TOKEN_KEY);
    input.value = '';
    pollInstances();
  });
}

// ---- the loop ---------------------------------------------------------------------------

async function tick() {
  try {
    await pollMetrics();
    showError('');
    showConnection(false);
  } catch (error) {
    showError(`Could not read /metrics: ${error.message}`);
    showConnection(error instanceof Unreachable);
  }
  await pollReadiness();
  try {
    await pollInstances();
  } catch (error) {
    topMessage(`Admin API unreachable: ${error.message}`, 'error');
  }
  setTimeout(tick, INTERVAL_MS);
}

$('status-interval').textContent = String(INTERVAL_MS / 1000);
setUpAxes();
setUpTokenForm();
tick();

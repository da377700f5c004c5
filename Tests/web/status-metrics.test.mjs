// The status page's reading of the Prometheus text format (web/status/metrics-text.js).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { parseMetrics, readings, roundTop, Rates, Series, total } from '../../web/status/metrics-text.js';

const EXPOSITION = `# HELP reactorhub_connections Open WebSocket connections.
# TYPE reactorhub_connections gauge
reactorhub_connections 3
# TYPE reactorhub_instances gauge
reactorhub_instances{kind="counter"} 1
reactorhub_instances{kind="doc"} 2
# TYPE reactorhub_actions_total counter
reactorhub_actions_total{kind="doc",result="accepted"} 40
reactorhub_actions_total{kind="doc",result="refused"} 2
reactorhub_actions_total{kind="counter",result="accepted"} 8
reactorhub_patch_frames_total 120
reactorhub_outbound_queued_bytes 2048
reactorhub_action_seconds_bucket{le="+Inf"} 50
reactorhub_ready 1
reactorhub_build_info{version="0.1.0"} 1
odd_label{text="a \\"quoted\\" \\\\ back\\nslash"} 1.5e3
`;

test('parses every sample with its labels, escapes and special values', () => {
  const samples = parseMetrics(EXPOSITION);
  assert.equal(samples.length, 12);
  assert.deepEqual(samples[0], { name: 'reactorhub_connections', labels: {}, value: 3 });
  assert.deepEqual(samples[3], { name: 'reactorhub_actions_total', labels: { kind: 'doc', result: 'accepted' }, value: 40 });
  assert.deepEqual(samples[8].labels, { le: '+Inf' });
  assert.deepEqual(samples[11], { name: 'odd_label', labels: { text: 'a "quoted" \\ back\nslash' }, value: 1500 });
  assert.equal(parseMetrics('x +Inf\ny NaN\n')[0].value, Infinity);
  assert.ok(Number.isNaN(parseMetrics('y NaN')[0].value));
  assert.throws(() => parseMetrics('not a sample'), /not a sample line/);
});

test('sums families, optionally where labels match', () => {
  const samples = parseMetrics(EXPOSITION);
  assert.equal(total(samples, 'reactorhub_actions_total'), 50);
  assert.equal(total(samples, 'reactorhub_actions_total', { result: 'accepted' }), 48);
  assert.equal(total(samples, 'reactorhub_missing'), 0);
  assert.deepEqual(readings(samples), {
    connections: 3, instances: 3, queuedBytes: 2048, actions: 50, frames: 120, ready: 1, version: '0.1.0',
  });
});

test('rates come from two scrapes, and a counter that went down restarts from zero', () => {
  const rates = new Rates();
  assert.equal(rates.next({ actions: 50 }, 10_000), null);
  assert.deepEqual(rates.next({ actions: 70 }, 12_000), { actions: 10 });
  assert.deepEqual(rates.next({ actions: 70 }, 14_000), { actions: 0 });
  assert.deepEqual(rates.next({ actions: 6 }, 17_000), { actions: 2 });  // a restart: 6 since
  assert.equal(rates.next({ actions: 9 }, 17_000), null);                 // no time passed
});

test('a series keeps the last window and knows its latest and highest values', () => {
  const series = new Series(600_000);
  assert.equal(series.latest, null);
  series.add(0, 5);
  series.add(300_000, 9);
  series.add(600_000, 2);
  assert.deepEqual(series.points.map((p) => p.value), [5, 9, 2]);
  series.add(600_001, 4);
  assert.deepEqual(series.points.map((p) => p.value), [9, 2, 4]);
  assert.equal(series.latest, 4);
  assert.equal(series.max, 9);
});

test('the y axis of a plot tops at the next 1, 2 or 4 times a power of ten, 2 at least', () => {
  assert.deepEqual([0, 0.4, 1, 1.1, 2, 2.5, 7, 10, 11, 180, 1000, 1001, 4.2e6].map(roundTop),
    [2, 2, 2, 2, 2, 4, 10, 10, 20, 200, 1000, 2000, 1e7]);
});

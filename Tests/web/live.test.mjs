// web/reactorhub.js in Node with a real WebSocket (Node's own, undici) against a real daemon
// process ($REACTORHUB_BINARY, else .build/debug/reactorhub; skipped when neither exists).
// Node 20 has the WebSocket global only behind --experimental-websocket: without it, this file
// runs itself again in a child process with the flag.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '../../web/reactorhub.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BINARY = process.env.REACTORHUB_BINARY || join(ROOT, '.build/debug/reactorhub');
const available = existsSync(BINARY);

if (!available) {
  test('live daemon tests', { skip: `no daemon binary at ${BINARY} (set REACTORHUB_BINARY)` }, () => {});
} else if (typeof globalThis.WebSocket === 'undefined') {
  test('live daemon tests (run again with --experimental-websocket)', () => {
    // NODE_TEST_CONTEXT would make the child report in this runner's protocol instead of text.
    const env = { ...process.env };
    delete env.NODE_TEST_CONTEXT;
    const run = spawnSync(process.execPath, ['--experimental-websocket', '--test', '--test-reporter=spec', fileURLToPath(import.meta.url)], {
      encoding: 'utf8', env, timeout: 60000,
    });
    process.stdout.write(run.stdout);
    assert.equal(run.status, 0, `the live tests failed:\n${run.stdout}\n${run.stderr}`);
  });
} else {
  liveTests();
}

function liveTests() {
  let daemon;
  let url;
  const clients = [];

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rh-node-'));
    const config = join(dir, 'reactorhub.json');
    writeFileSync(config, JSON.stringify({ logLevel: 'warning', presence: { maxListed: 2 }, reactors: { counter: { delayMs: 30 }, weather: { latencyMs: 10 } } }));
    daemon = spawn(BINARY, ['--config', config, '--port', '0', '--web-root', join(ROOT, 'web')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise((resolve, reject) => {
      let buffer = '';
      daemon.stdout.on('data', (chunk) => {
        buffer += chunk;
        if (buffer.includes('\n')) resolve(buffer.split('\n')[0]);
      });
      daemon.on('exit', (code) => reject(new Error(`the daemon exited with ${code}`)));
    });
    assert.match(line, /^listening on http:\/\/127\.0\.0\.1:\d+$/);
    url = `ws://127.0.0.1:${line.split(':').at(-1)}/ws`;
  });

  after(() => {
    for (const client of clients) client.close();
    daemon?.kill('SIGTERM');
  });

  // A client whose sockets are recorded (to drop one on purpose) and whose states are logged.
  function client(name) {
    const sockets = [];
    class RecordingWebSocket extends WebSocket {
      constructor(...args) {
        super(...args);
        sockets.push(this);
      }
    }
    const statuses = [];
    const hub = connect(url, { WebSocket: RecordingWebSocket, initialDelayMs: 50, on: { status: (s) => statuses.push(s) } });
    clients.push(hub);
    return { hub, sockets, statuses, name };
  }

  const until = async (predicate, what, timeoutMs = 5000) => {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };

  test('two clients stay in sync on counter: consecutive versions, pulses for both', async () => {
    const a = client('a');
    const b = client('b');
    const address = 'counter/node-live';
    const seen = { a: [], b: [] };
    const pulses = { a: [], b: [] };
    for (const [name, c] of [['a', a], ['b', b]]) {
      await c.hub.join(address, {
        onState: (state, info) => seen[name].push([info.version, info.cause, state.value, state.isLoading]),
        onPulse: (pulse, value) => pulses[name].push([pulse, value]),
      });
    }
    assert.equal(a.sockets[0].protocol, 'reactorhub.v1');
    const ack = await a.hub.dispatch(address, 'increase');
    assert.equal(ack.version, 0);
    await until(() => pulses.a.length === 1 && pulses.b.length === 1, 'both alerts');
    // a's own dispatch is a local change too (pending, not predicted: counter has no predictor here).
    assert.deepEqual(seen.a[1], [0, 'predicted', 0, false]);
    seen.a.splice(1, 1);
    for (const name of ['a', 'b']) {
      assert.deepEqual(seen[name], [[0, 'snapshot', 0, false], [1, 'patch', 0, true], [2, 'patch', 1, true], [3, 'patch', 1, false]]);
      assert.deepEqual(pulses[name], [['alertMessage', 'increased!']]);
    }
  });

  test('a dropped connection reconnects and resumes with since (resumed + the missed patches)', async () => {
    const a = client('a');
    const b = client('b');
    const address = 'counter/node-resume';
    const causes = [];
    await a.hub.join(address);
    await b.hub.join(address, { onState: (state, info) => causes.push([info.cause, info.version]) });
    b.sockets[0].close(); // the client's socket goes away under it
    await until(() => b.hub.status === 'reconnecting', 'b reconnecting');
    await a.hub.dispatch(address, 'increase');
    await until(() => a.hub.reactor(address).version === 3, 'the increase to finish');
    await a.hub.dispatch(address, 'decrease');
    await until(() => a.hub.reactor(address).version === 6, 'a at version 6');
    await until(() => b.hub.reactor(address)?.version === 6, 'b caught up');
    assert.deepEqual(b.hub.reactor(address).state, a.hub.reactor(address).state);
    assert.deepEqual(b.statuses, ['connecting', 'open', 'reconnecting', 'open']);
    const resumed = causes.findIndex(([cause]) => cause === 'resumed');
    assert.ok(resumed > 0, `expected a resume, got ${JSON.stringify(causes)}`);
    assert.deepEqual(causes.slice(resumed + 1).map(([, v]) => v), [1, 2, 3, 4, 5, 6].slice(causes[resumed][1]));
  });

  // PROTOCOL.md "Checksums": a client that asked checks each frame's sum with Web Crypto; an app
  // that changes its copy in place is found out at the next patch, and the client joins afresh.
  test('checksums: a copy changed behind the client\'s back is found, reported, joined afresh and converges', async () => {
    const address = 'doc/node-checksums';
    const writer = client('writer');
    const checked = connect(url, { WebSocket, checksums: true });
    clients.push(checked);
    const frames = [];
    checked.on('frame', (frame) => { if (frame.direction === 'in' && frame.message) frames.push(frame.message); });
    const handle = await checked.join(address);
    await writer.hub.join(address);
    const atVersion = (version) => new Promise((resolve) => {
      const off = checked.on('state', (changed, _state, info) => { if (changed === address && info.version === version) { off(); resolve(); } });
    });
    const first = atVersion(1);
    await writer.hub.dispatch(address, { type: 'set', path: '/list', value: [1, 2] });
    await first;
    handle.confirmedState.list.push(99); // the app's bug: its copy, changed in place
    const reported = new Promise((resolve) => checked.on('mismatch', resolve));
    const snapshot = new Promise((resolve) => {
      const off = checked.on('state', (changed, _state, info) => { if (changed === address && info.cause === 'snapshot') { off(); resolve(); } });
    });
    await writer.hub.dispatch(address, { type: 'set', path: '/n', value: 0.5 });
    const mismatch = await reported;
    assert.equal(mismatch.address, address);
    assert.equal(mismatch.version, 2);
    assert.notEqual(mismatch.expected, mismatch.actual);
    await snapshot;
    assert.deepEqual(handle.state, { list: [1, 2], n: 0.5 });
    assert.equal(checked.mismatches, 1);
    const joins = frames.filter((message) => message.type === 'snapshot' || message.type === 'patch');
    assert.deepEqual(joins.map((message) => message.type), ['snapshot', 'patch', 'patch', 'snapshot']);
    assert.ok(joins.every((message) => /^[0-9a-f]{16}$/.test(message.sum)), JSON.stringify(joins));
  });

  // PROTOCOL.md: a join with since version 41 is answered by `resumed` version 41, and the
  // missed patches (42, 43, …) follow: the resumed version is the one the patches continue from.
  test('`resumed` carries the version the missed patches continue from (PROTOCOL.md example)', async () => {
    const a = client('a');
    const b = client('b');
    const address = 'counter/node-resumed-version';
    await a.hub.join(address);
    await b.hub.join(address);
    const frames = [];
    b.hub.on('frame', (frame) => frames.push(frame.message));
    b.sockets[0].close();
    await until(() => b.hub.status === 'reconnecting', 'b reconnecting');
    await a.hub.dispatch(address, 'increase');
    await until(() => a.hub.reactor(address).version === 3, 'the increase to finish');
    await until(() => b.hub.reactor(address)?.version === 3, 'b caught up');
    const join = frames.find((m) => m?.type === 'join');
    const resumed = frames.find((m) => m?.type === 'resumed');
    assert.deepEqual(join.since.version, 0);
    assert.equal(resumed.version, join.since.version);
  });

  test('errors come back by ref: unknown_action, invalid_action, not_joined', async () => {
    const { hub } = client('c');
    await hub.join('todo/node-errors');
    await assert.rejects(hub.dispatch('todo/node-errors', { type: 'jump' }), (e) => e.code === 'unknown_action' && /actions:/.test(e.message));
    await assert.rejects(hub.dispatch('todo/node-errors', { type: 'add', title: '' }), (e) => e.code === 'invalid_action');
    await assert.rejects(hub.dispatch('counter/not-joined', 'increase'), (e) => e.code === 'not_joined');
    await assert.rejects(hub.join('nope/x'), (e) => e.code === 'unknown_reactor');
  });

  test('every todo action through the client, mirrored in a second client', async () => {
    const a = client('a');
    const b = client('b');
    const address = 'todo/node-todo';
    await a.hub.join(address);
    await b.hub.join(address);
    const items = () => a.hub.reactor(address).state.items;
    await a.hub.dispatch(address, { type: 'add', title: 'one' });
    await a.hub.dispatch(address, { type: 'add', title: 'two' });
    await a.hub.dispatch(address, { type: 'add', title: 'three' });
    await until(() => items().length === 3, 'three items');
    const [one, two] = items();
    await b.hub.dispatch(address, { type: 'toggle', id: one.id });
    await b.hub.dispatch(address, { type: 'rename', id: two.id, title: 'TWO' });
    await b.hub.dispatch(address, { type: 'move', from: 2, to: 0 });
    await until(() => items()[0].title === 'three', 'the move');
    assert.deepEqual(items().map((i) => [i.title, i.done]), [['three', false], ['one', true], ['TWO', false]]);
    await a.hub.dispatch(address, 'clearCompleted');
    await a.hub.dispatch(address, { type: 'remove', id: two.id });
    // An ack comes before the patch it caused: `a` may be acked before it holds the change.
    await until(() => b.hub.reactor(address).state.items.length === 1 && items().length === 1, 'both see the removals');
    assert.deepEqual(b.hub.reactor(address).state, a.hub.reactor(address).state);
    assert.equal(b.hub.reactor(address).version, 8);
  });

  test('presence: each sees the others (not itself), a change keeps its place, a closed client leaves, a count past maxListed', async () => {
    const a = client('a');
    const b = client('b');
    const address = 'todo/node-presence';
    const heard = [];
    const ha = await a.hub.join(address);
    const hb = await b.hub.join(address, { onPresence: (others, info) => heard.push([info.cause, others.map((p) => p.session)]) });
    assert.deepEqual(heard, [['snapshot', []]]);
    const sa = a.hub.hello.session;
    const sb = b.hub.hello.session;
    assert.notEqual(sa, sb);
    await ha.setPresence({ editing: null });
    await hb.setPresence({ editing: null });
    await until(() => hb.others.length === 1 && ha.others.length === 1, 'each sees the other');
    assert.deepEqual(hb.others, [{ session: sa, user: null, state: { editing: null } }]);
    assert.deepEqual(ha.others, [{ session: sb, user: null, state: { editing: null } }]);
    await ha.setPresence({ editing: 'item-1' });
    await until(() => hb.others[0].state.editing === 'item-1', 'b sees what a edits');
    assert.equal(hb.presenceCount, null);

    const c = client('c');
    const hc = await c.hub.join(address);
    assert.deepEqual(hc.others.map((p) => [p.session, p.state]), [[sa, { editing: 'item-1' }], [sb, { editing: null }]].sort());
    await hc.setPresence({}); // three entries, maxListed 2: counts only
    await until(() => hb.presenceCount === 3, 'the count');
    assert.deepEqual(hb.others, []);
    c.hub.close(); // back to two: listed again, b joins afresh for the whole map
    await until(() => hb.presenceCount === null && hb.others.length === 1, 'the entries again');
    assert.deepEqual(hb.others, [{ session: sa, user: null, state: { editing: 'item-1' } }]);
    // The join afresh answered before a leaves: with several service threads a's close and
    // b's join are served at once, and a snapshot taken after the leave would be heard last.
    await until(() => heard.filter(([cause]) => cause === 'snapshot').length === 2, 'b joined afresh');
    assert.deepEqual(heard.at(-1), ['snapshot', [sa]]);

    a.hub.close();
    await until(() => hb.others.length === 0, 'a leaves b\'s view');
    assert.deepEqual(heard.at(-1), ['presence', []]);
  });
}

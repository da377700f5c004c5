// Prediction and the offline queue (CLIENTS.md "Prediction") against real daemons, through a
// TCP proxy that adds latency and drops connections (helpers/proxy.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from '../../web/reactorhub.js';
import { liveSuite, startDaemon, until, OUTPUT } from './helpers/processes.mjs';
import { DelayProxy } from './helpers/proxy.mjs';

const LIMITS = { actionsPerSecond: 2000, actionBurst: 4000, joinsPerSecond: 200, joinBurst: 400 };

// The app's predictor of the todo kind: an added item shows at once (the server gives it its id).
const todoPredictors = {
  add: (state, action) => ({ ...state, items: [...state.items, { id: `pending-${state.items.length}`, title: action.title, done: false }] }),
  toggle: (state, action) => ({ ...state, items: state.items.map((item) => (item.id === action.id ? { ...item, done: !item.done } : item)) }),
};

liveSuite('prediction against a live daemon', import.meta.url, () => {
  let daemon;
  let limited; // todo.maxItems 1: adds past the first are refused
  const proxies = [];
  const clients = [];

  before(async () => {
    mkdirSync(OUTPUT, { recursive: true });
    const log = join(OUTPUT, 'node-prediction-daemons.log');
    daemon = await startDaemon({ logLevel: 'warning', limits: LIMITS }, log);
    limited = await startDaemon({ logLevel: 'warning', limits: LIMITS, reactors: { todo: { maxItems: 1 } } }, log);
  });

  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all(proxies.map((p) => p.close()));
    await daemon?.stop();
    await limited?.stop();
  });

  async function proxy(target, delays) {
    const p = await DelayProxy.start(target.port, delays);
    proxies.push(p);
    return p;
  }

  function client(url, options = {}) {
    const hub = connect(url, { initialDelayMs: 20, maxDelayMs: 200, ...options });
    clients.push(hub);
    return hub;
  }

  // Records every state change of `address` on `hub`: [cause, state, predicted, pending].
  function recordStates(hub, address) {
    const seen = [];
    hub.on('state', (at, state, info) => { if (at === address) seen.push({ cause: info.cause, state, predicted: info.predicted, pending: info.pending }); });
    return seen;
  }

  test('the shown state changes at once, before the ack; the confirmed state follows the server', async () => {
    const p = await proxy(daemon, { upMs: 150, downMs: 150 });
    const hub = client(p.url);
    const address = 'doc/predicted-now';
    const handle = await hub.join(address);
    const seen = recordStates(hub, address);
    const acked = hub.dispatch(address, { type: 'set', path: '/title', value: 'Buy milk' });
    // Synchronously after dispatch: shown, pending, not confirmed.
    assert.deepEqual(handle.state, { title: 'Buy milk' });
    assert.deepEqual(handle.confirmedState, {});
    assert.equal(handle.version, 0);
    assert.equal(handle.pending, 1);
    assert.equal(hub.pending, 1);
    assert.deepEqual(seen, [{ cause: 'predicted', state: { title: 'Buy milk' }, predicted: true, pending: 1 }]);
    const ack = await acked;
    assert.equal(ack.version, 0);
    assert.equal(ack.applied, 1);
    assert.equal(ack.duplicate, false);
    await until(() => handle.pending === 0, 'the patch to confirm the prediction');
    assert.equal(handle.state, handle.confirmedState, 'nothing pending: the shown state is the confirmed one');
    assert.equal(JSON.stringify(handle.state), '{"title":"Buy milk"}');
    assert.equal(handle.version, 1);
    // Two changes in all: the prediction, then the patch (which changed nothing shown).
    assert.deepEqual(seen.map((s) => [s.cause, s.state.title, s.predicted]), [['predicted', 'Buy milk', true], ['patch', 'Buy milk', false]]);
  });

  test('a refusal rolls the shown state back in one change, then the promise rejects with the server error', async () => {
    const p = await proxy(limited, { upMs: 100, downMs: 100 });
    const hub = client(p.url, { predictors: { todo: todoPredictors } });
    const address = 'todo/rollback';
    const handle = await hub.join(address);
    const log = [];
    hub.on('state', (at, state, info) => {
      if (at === address) log.push(`${info.cause} [${state.items.map((i) => i.title).join(',')}] ${info.predicted}`);
    });
    const settle = (title, promise) => promise.then(() => log.push(`ack ${title}`), (error) => {
      log.push(`reject ${title}: ${error.code}`);
      assert.match(error.message, /the list already has 1 items/);
      assert.ok(!handle.state.items.some((item) => item.title === title), 'rejected after the rollback');
    });
    const results = Promise.all(['a', 'b', 'c'].map((title) => settle(title, hub.dispatch(address, { type: 'add', title }))));
    assert.deepEqual(handle.state.items.map((i) => i.title), ['a', 'b', 'c'], 'all three shown at once');
    await results;
    await until(() => handle.pending === 0, 'nothing pending');
    const changes = log.filter((line) => !line.startsWith('ack') && !line.startsWith('reject'));
    assert.deepEqual(changes.slice(0, 3), ['predicted [a] true', 'predicted [a,b] true', 'predicted [a,b,c] true']);
    // Then, in the order the daemon's frames came (its refusals of b and c may come before or
    // after the patch that confirms a): a patch that shows the same items, and one rollback per
    // refusal that removes exactly the refused item, in one change.
    const rest = changes.slice(3);
    assert.equal(rest.length, 3, rest.join(' | '));
    assert.deepEqual(rest.filter((line) => line.startsWith('patch')).length, 1, rest.join(' | '));
    assert.deepEqual(rest.filter((line) => line.startsWith('rollback')).map((line) => line.replace(/ (true|false)$/, '')), ['rollback [a,c]', 'rollback [a]']);
    assert.equal(rest.at(-1).endsWith('[a] false'), true, 'nothing pending at the end');
    assert.ok(log.indexOf('reject b: invalid_action') > log.findIndex((line) => line.startsWith('rollback [a,c]')));
    assert.ok(log.indexOf('reject c: invalid_action') > log.findIndex((line) => line.startsWith('rollback [a]')));
    assert.ok(log.includes('ack a'));
    assert.equal(handle.state, handle.confirmedState);
    assert.equal(handle.state.items.length, 1);
    assert.match(handle.state.items[0].id, /^[0-9a-f]{8}$/, 'the server\'s id, not the predicted one');
  });

  test('20 random runs of concurrent writers: once nothing is pending every client shows the server\'s bytes', async () => {
    const random = seeded(34);
    for (let run = 0; run < 20; run += 1) {
      const address = `doc/converge-${run}`;
      const writers = [];
      for (let w = 0; w < 3; w += 1) {
        const url = w === 0 ? daemon.url : (await proxy(daemon, { upMs: Math.floor(random() * 40), downMs: Math.floor(random() * 40) })).url;
        const hub = client(url);
        writers.push({ hub, handle: await hub.join(address) });
      }
      await writers[0].hub.dispatch(address, { type: 'set', path: '/list', value: [] });
      await until(() => writers.every((w) => w.handle.version >= 1), `run ${run}: every writer has the list`);
      const outcomes = [];
      let predictedNow = 0;
      for (let step = 0; step < 24; step += 1) {
        const { hub, handle } = writers[Math.floor(random() * writers.length)];
        const before = handle.state;
        outcomes.push(hub.dispatch(address, randomEdit(random)).then(() => 'ack', (error) => error.code));
        if (handle.state !== before) predictedNow += 1;
      }
      const settled = await Promise.all(outcomes);
      assert.equal(settled.length, 24);
      assert.ok(settled.every((o) => o === 'ack' || o === 'invalid_action'), `run ${run}: ${settled}`);
      assert.ok(predictedNow > 0, `run ${run}: some edits were predicted`);
      await until(() => writers.every((w) => w.handle.pending === 0), `run ${run}: nothing pending`);
      const version = Math.max(...writers.map((w) => w.handle.version));
      await until(() => writers.every((w) => w.handle.version === version), `run ${run}: every writer at version ${version}`);
      const fresh = client(daemon.url);
      const truth = await fresh.join(address);
      assert.equal(truth.version, version, `run ${run}: the writers hold the server's latest version`);
      const bytes = JSON.stringify(truth.state);
      for (const [index, w] of writers.entries()) {
        assert.equal(w.handle.state, w.handle.confirmedState, `run ${run}, writer ${index}: shown is confirmed`);
        assert.equal(JSON.stringify(w.handle.state), bytes, `run ${run}, writer ${index}: the server's bytes`);
      }
      await Promise.all([fresh, ...writers.map((w) => w.hub)].map((hub) => hub.close()));
    }
  });

  test('the offline queue: actions unanswered at a drop right after sending and actions made offline are applied once each', async () => {
    // Towards the client, 3 s of latency: the daemon has applied the five adds (an observer sees
    // them) while their acks are still in the proxy when it drops the connection.
    const p = await proxy(daemon, { upMs: 0, downMs: 0 });
    const hub = client(p.url, { predictors: { todo: todoPredictors } });
    const observer = client(daemon.url);
    const address = 'todo/offline-queue';
    const handle = await hub.join(address);
    const seen = await observer.join(address);
    let acksSeen = 0;
    hub.on('frame', (frame) => { if (frame.direction === 'in' && frame.message?.type === 'ack') acksSeen += 1; });
    p.downMs = 3000;
    const titles = ['t1', 't2', 't3', 't4', 't5'];
    const first = titles.map((title) => hub.dispatch(address, { type: 'add', title }));
    await until(() => seen.state.items.length === 5, 'the daemon to apply the five adds');
    p.goDown();
    assert.equal(acksSeen, 0, 'no ack reached the client before the drop');
    await until(() => hub.status === 'reconnecting', 'the client to see the drop');
    const offline = ['t6', 't7'].map((title) => hub.dispatch(address, { type: 'add', title }));
    assert.equal(handle.pending, 7);
    assert.deepEqual(handle.confirmedState.items, []);
    assert.deepEqual(handle.state.items.map((i) => i.title), [...titles, 't6', 't7'], 'predicted while offline');
    p.downMs = 0;
    p.up();
    const acks = await Promise.all([...first, ...offline]);
    assert.deepEqual(acks.map((a) => a.duplicate), [true, true, true, true, true, false, false], 'the five were answered as repeats of their ids');
    await until(() => handle.pending === 0 && seen.state.items.length === 7, 'everything confirmed');
    assert.deepEqual(seen.state.items.map((i) => i.title), [...titles, 't6', 't7'], 'each applied once, in order');
    assert.equal(handle.state, handle.confirmedState);
    assert.equal(JSON.stringify(handle.state), JSON.stringify(seen.state));
  });

  test('past maxQueuedActions dispatch rejects with queue_full; the queue goes once the connection is back', async () => {
    const p = await proxy(daemon);
    const hub = client(p.url, { maxQueuedActions: 3 });
    const address = 'doc/overflow';
    const handle = await hub.join(address);
    p.goDown();
    await until(() => hub.status === 'reconnecting', 'the drop');
    const queued = [1, 2, 3].map((n) => hub.dispatch(address, { type: 'set', path: `/k${n}`, value: n }));
    await assert.rejects(hub.dispatch(address, { type: 'set', path: '/k4', value: 4 }), (error) => error.code === 'queue_full' && /3 actions are waiting/.test(error.message));
    assert.equal(handle.pending, 3);
    assert.deepEqual(handle.state, { k1: 1, k2: 2, k3: 3 });
    p.up();
    assert.deepEqual((await Promise.all(queued)).map((a) => a.duplicate), [false, false, false]);
    await until(() => handle.pending === 0, 'the queue confirmed');
    assert.equal(JSON.stringify(handle.state), '{"k1":1,"k2":2,"k3":3}');
    // The default is 1000: the 1001st waiting action is refused.
    const many = client(p.url);
    await many.join('doc/overflow-default');
    p.goDown();
    await until(() => many.status === 'reconnecting', 'the second drop');
    const waiting = Array.from({ length: 1000 }, (_, n) => many.dispatch('doc/overflow-default', { type: 'emit', name: 'n', value: n }).catch((e) => e.code));
    await assert.rejects(many.dispatch('doc/overflow-default', { type: 'emit', name: 'n', value: 1000 }), (error) => error.code === 'queue_full');
    assert.equal(many.pending, 1000);
    await many.close();
    assert.deepEqual(new Set(await Promise.all(waiting)), new Set(['closed']));
    p.up();
  });

  test('prediction off (predictors: {doc: false}): pending counts, the shown state waits for the server', async () => {
    const p = await proxy(daemon, { upMs: 50, downMs: 50 });
    const hub = client(p.url, { predictors: { doc: false } });
    const address = 'doc/not-predicted';
    const handle = await hub.join(address);
    const seen = recordStates(hub, address);
    const before = handle.state;
    const acked = hub.dispatch(address, { type: 'set', path: '/x', value: 1 });
    assert.equal(handle.state, before, 'not predicted');
    assert.equal(handle.pending, 1);
    assert.deepEqual(seen, [{ cause: 'predicted', state: {}, predicted: true, pending: 1 }]);
    await acked;
    await until(() => handle.pending === 0, 'confirmed');
    assert.deepEqual(seen.map((s) => [s.cause, JSON.stringify(s.state), s.predicted]), [['predicted', '{}', true], ['patch', '{"x":1}', false]]);
  });

  test('an action queued across a daemon restart is replayed on the fresh snapshot of another epoch', async () => {
    const own = await startDaemon({ logLevel: 'warning', limits: LIMITS }, join(OUTPUT, 'node-prediction-daemons.log'));
    const p = await proxy(own);
    const hub = client(p.url);
    const address = 'doc/epoch-change';
    const handle = await hub.join(address);
    await hub.dispatch(address, { type: 'set', path: '/before', value: true });
    await until(() => handle.pending === 0, 'the first edit confirmed');
    const firstEpoch = handle.epoch;
    await own.stop();
    await until(() => hub.status === 'reconnecting', 'the drop');
    const seen = recordStates(hub, address);
    const queued = hub.dispatch(address, { type: 'set', path: '/after', value: 1 });
    assert.deepEqual(handle.state, { before: true, after: 1 });
    const again = await startDaemon({ logLevel: 'warning', limits: LIMITS }, join(OUTPUT, 'node-prediction-daemons.log'));
    p.targetPort = again.port;
    try {
      await queued;
      await until(() => handle.pending === 0, 'the queued edit confirmed in the new epoch');
      assert.notEqual(handle.epoch, firstEpoch);
      const snapshot = seen.find((s) => s.cause === 'snapshot');
      assert.deepEqual(snapshot.state, { after: 1 }, 'the fresh snapshot with the pending edit predicted on top');
      assert.equal(snapshot.predicted, true);
      assert.equal(JSON.stringify(handle.state), '{"after":1}');
    } finally {
      await hub.close();
      await again.stop();
    }
  });
});

// A small deterministic generator (mulberry32), so that a failing run can be replayed.
function seeded(seed) {
  let a = seed;
  return () => {
    a = (a + 0x6D2B79F5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// A doc edit that may conflict with the others' (a remove of a member another removed, a test
// that fails): sets, removes, appends, replaces in the list, and patches.
function randomEdit(random) {
  const key = `/k${Math.floor(random() * 4)}`;
  const value = Math.floor(random() * 100);
  switch (Math.floor(random() * 6)) {
    case 0: return { type: 'set', path: key, value };
    case 1: return { type: 'remove', path: key };
    case 2: return { type: 'set', path: '/list/-', value };
    case 3: return { type: 'set', path: '/list/0', value: { at: value } };
    case 4: return { type: 'patch', ops: [{ op: 'test', path: key, value }, { op: 'add', path: '/hit', value }] };
    default: return { type: 'patch', ops: [{ op: 'add', path: key, value: [value] }, { op: 'remove', path: '/list/0' }] };
  }
}

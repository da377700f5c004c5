// The client of web/reactorhub.js against a fake WebSocket driven by the test: joins, versions,
// gaps and re-joins, `base` patches, dispatch by ref, reconnect with backoff and resume.
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { connect, ReactorHubError, ReactorHandle, PROTOCOL, isValidAddress, defaultUrl } from '../../web/reactorhub.js';
import { FakeWebSocket, ManualTimers, flush } from './helpers/fakes.mjs';

const EPOCH = 'e3f1';
let timers;

beforeEach(() => {
  FakeWebSocket.reset();
  timers = new ManualTimers();
});

function makeClient(options = {}) {
  const statuses = [];
  const frames = [];
  const client = connect('ws://hub.test/ws', {
    WebSocket: FakeWebSocket,
    setTimeout: timers.setTimeout,
    clearTimeout: timers.clearTimeout,
    random: () => 0.5,
    on: {
      status: (status, detail) => statuses.push({ status, ...detail }),
      frame: (frame) => frames.push(frame),
    },
    ...options,
  });
  return { client, statuses, frames, socket: FakeWebSocket.last };
}

// A client with `address` joined at `version`; returns the states and pulses it reported.
async function joined(address = 'counter/lobby', version = 5, state = { value: version, isLoading: false }, options = {}) {
  const made = makeClient(options);
  made.socket.open();
  const states = [];
  const pulses = [];
  const ready = made.client.join(address, {
    onState: (s, info) => states.push({ state: s, ...info }),
    onPulse: (name, value, info) => pulses.push({ name, value, ...info }),
  });
  const join = made.socket.lastSent('join', address);
  made.socket.receive({ type: 'snapshot', reactor: address, ref: join.ref, epoch: EPOCH, version, state });
  const view = await ready;
  return { ...made, states, pulses, view, address };
}

const patch = (reactor, version, ops, extra = {}) => ({ type: 'patch', reactor, version, patch: ops, ...extra });
const setValue = (value) => [{ op: 'replace', path: '/value', value }];

// What the client holds for an address, as plain data.
function held(client, address) {
  const handle = client.reactor(address);
  return { address: handle.address, state: handle.state, epoch: handle.epoch, version: handle.version };
}

test('offers the reactorhub.v1 subprotocol and reports connecting, then open', () => {
  const { socket, statuses, client } = makeClient();
  assert.equal(PROTOCOL, 'reactorhub.v1');
  assert.deepEqual(socket.protocols, ['reactorhub.v1']);
  assert.equal(socket.url, 'ws://hub.test/ws');
  assert.equal(client.status, 'connecting');
  socket.open();
  assert.deepEqual(statuses.map((s) => s.status), ['connecting', 'open']);
  assert.equal(client.hello.server, 'fake/1');
});

test('join sends a join frame once open, resolves with the handle at the snapshot and reports the state', async () => {
  const { client, socket } = makeClient();
  const states = [];
  const ready = client.join('counter/lobby', { onState: (s, info) => states.push([s, info.version, info.cause]) });
  assert.equal(socket.sent.length, 0, 'nothing is sent before the socket opens');
  socket.open();
  const join = socket.lastSent('join', 'counter/lobby');
  assert.ok(join && join.ref !== undefined && join.since === undefined);
  socket.receive({ type: 'snapshot', reactor: 'counter/lobby', ref: join.ref, epoch: EPOCH, version: 0, state: { value: 0, isLoading: false } });
  const handle = await ready;
  assert.ok(handle instanceof ReactorHandle);
  const { address, state, epoch, version } = handle;
  assert.deepEqual({ address, state, epoch, version }, { address: 'counter/lobby', state: { value: 0, isLoading: false }, epoch: EPOCH, version: 0 });
  assert.deepEqual(held(client, 'counter/lobby'), { address, state, epoch, version });
  assert.deepEqual(states, [[{ value: 0, isLoading: false }, 0, 'snapshot']]);
});

test('consecutive patches apply and move the version', async () => {
  const { client, socket, states, address } = await joined();
  socket.receive(patch(address, 6, [{ op: 'replace', path: '/isLoading', value: true }]));
  socket.receive(patch(address, 7, setValue(7)));
  assert.deepEqual(client.reactor(address).state, { value: 7, isLoading: true });
  assert.equal(client.reactor(address).version, 7);
  assert.deepEqual(states.map((s) => [s.version, s.cause]), [[5, 'snapshot'], [6, 'patch'], [7, 'patch']]);
  assert.deepEqual(states[2].patch, setValue(7));
});

test('a patch with `base` applies when its base is the held version', async () => {
  const { client, socket, address } = await joined('counter/lobby', 39);
  socket.receive(patch(address, 42, setValue(42), { base: 39 }));
  assert.deepEqual(held(client, address), { address, state: { value: 42, isLoading: false }, epoch: EPOCH, version: 42 });
  assert.equal(socket.sent.filter((m) => m.type === 'join').length, 1, 'no re-join');
});

test('a `base` that is not the held version triggers a re-join with since', async () => {
  const { client, socket, address } = await joined('counter/lobby', 39);
  socket.receive(patch(address, 43, setValue(43), { base: 40 }));
  assert.equal(client.reactor(address).version, 39);
  assert.deepEqual(socket.lastSent('join', address).since, { epoch: EPOCH, version: 39 });
});

test('a version gap triggers one re-join with since; the fresh snapshot replaces the state', async () => {
  const { client, socket, states, address } = await joined('counter/lobby', 5);
  socket.receive(patch(address, 7, setValue(7))); // 6 is missing
  socket.receive(patch(address, 8, setValue(8))); // still a gap: no second join
  const joins = socket.sent.filter((m) => m.type === 'join');
  assert.equal(joins.length, 2);
  assert.deepEqual(joins[1].since, { epoch: EPOCH, version: 5 });
  assert.equal(client.reactor(address).version, 5, 'nothing applied across the gap');
  socket.receive({ type: 'snapshot', reactor: address, ref: joins[1].ref, epoch: EPOCH, version: 8, state: { value: 8, isLoading: false } });
  socket.receive(patch(address, 9, setValue(9)));
  assert.deepEqual(held(client, address), { address, state: { value: 9, isLoading: false }, epoch: EPOCH, version: 9 });
  assert.deepEqual(states.map((s) => [s.version, s.cause]), [[5, 'snapshot'], [8, 'snapshot'], [9, 'patch']]);
});

test('a patch already applied (version not ahead) is ignored without re-join', async () => {
  const { client, socket, address } = await joined('counter/lobby', 5);
  socket.receive(patch(address, 5, setValue(100)));
  socket.receive(patch(address, 3, setValue(100)));
  assert.equal(client.reactor(address).state.value, 5);
  assert.equal(socket.sent.filter((m) => m.type === 'join').length, 1);
});

test('a patch that does not apply keeps the state, reports an error and re-joins for a snapshot', async () => {
  const { client, socket, address } = await joined('counter/lobby', 5);
  const errors = [];
  client.on('error', (e) => errors.push(e));
  socket.receive(patch(address, 6, [{ op: 'replace', path: '/value', value: 6 }, { op: 'remove', path: '/nope' }]));
  assert.deepEqual(client.reactor(address).state, { value: 5, isLoading: false });
  assert.equal(errors[0].code, 'bad_patch');
  const rejoin = socket.lastSent('join', address);
  assert.notEqual(rejoin.ref, socket.sent[0].ref);
  assert.equal(rejoin.since, undefined);
});

test('an unsolicited snapshot (after the server dropped patches) replaces the state', async () => {
  const { client, socket, address } = await joined('counter/lobby', 5);
  socket.receive({ type: 'snapshot', reactor: address, epoch: EPOCH, version: 20, state: { value: 20, isLoading: false } });
  assert.equal(client.reactor(address).version, 20);
  socket.receive(patch(address, 21, setValue(21)));
  assert.equal(client.reactor(address).state.value, 21);
});

test('pulses reach onPulse with their version, and the pulse event', async () => {
  const { client, socket, pulses, address } = await joined('counter/lobby', 5);
  const global = [];
  client.on('pulse', (reactor, name, value) => global.push([reactor, name, value]));
  socket.receive(patch(address, 6, setValue(6)));
  socket.receive({ type: 'pulse', reactor: address, version: 6, name: 'alertMessage', value: 'increased!' });
  socket.receive({ type: 'pulse', reactor: address, version: 6, name: 'alertMessage', value: 'increased!' });
  assert.deepEqual(pulses.map((p) => [p.name, p.value, p.version]), [['alertMessage', 'increased!', 6], ['alertMessage', 'increased!', 6]]);
  assert.deepEqual(global[0], [address, 'alertMessage', 'increased!']);
});

test('dispatch resolves with the ack matched by ref, in any order', async () => {
  const { client, socket, address } = await joined('todo/room', 2, { items: [] });
  const first = client.dispatch(address, { type: 'add', title: 'milk' });
  const second = client.dispatch(address, 'clearCompleted');
  const [a, b] = socket.sent.filter((m) => m.type === 'action');
  assert.deepEqual(a.action, { type: 'add', title: 'milk' });
  assert.equal(b.action, 'clearCompleted', 'a bare string action is sent as it is');
  assert.notEqual(a.ref, b.ref);
  socket.receive({ type: 'ack', reactor: address, ref: b.ref, version: 2 });
  socket.receive({ type: 'ack', reactor: address, ref: a.ref, version: 3 });
  assert.deepEqual(await first, { reactor: address, ref: a.ref, version: 3, applied: 3, id: a.id, duplicate: false });
  assert.deepEqual(await second, { reactor: address, ref: b.ref, version: 2, applied: 2, id: b.id, duplicate: false });
});

test('dispatch rejects with the server error (code, message) matched by ref', async () => {
  const { client, socket, address } = await joined();
  const ok = client.dispatch(address, 'increase');
  const bad = client.dispatch(address, { type: 'jump' });
  const [a, b] = socket.sent.filter((m) => m.type === 'action');
  socket.receive({ type: 'error', ref: b.ref, code: 'unknown_action', message: "counter has no action 'jump'; actions: increase, decrease" });
  await assert.rejects(bad, (error) => error instanceof ReactorHubError && error.code === 'unknown_action' &&
    error.message === "counter has no action 'jump'; actions: increase, decrease" && error.ref === b.ref);
  socket.receive({ type: 'ack', reactor: address, ref: a.ref, version: 5 });
  assert.equal((await ok).version, 5);
});

test('dispatch rejects with `disconnected` when the connection drops before the reply (resendActions off)', async () => {
  const { client, socket, address } = await joined(undefined, undefined, undefined, { resendActions: false });
  const pending = client.dispatch(address, 'increase');
  socket.serverClose(1006);
  await assert.rejects(pending, (error) => error.code === 'disconnected' &&
    /connection closed \(code 1006\) before the reply to action \d+ on counter\/lobby/.test(error.message));
});

test('dispatch to a reactor not joined rejects at once with `not_joined`; before the join is answered it is queued', async () => {
  const { client } = makeClient();
  await assert.rejects(client.dispatch('counter/lobby', 'increase'), (error) => error.code === 'not_joined');
  const joining = client.join('counter/lobby');
  const queued = client.dispatch('counter/lobby', 'increase');
  assert.equal(client.pending, 1);
  const socket = FakeWebSocket.last;
  socket.open();
  assert.deepEqual(socket.sent.map((m) => m.type), ['join'], 'nothing sent before the join is answered');
  socket.receive({ type: 'snapshot', reactor: 'counter/lobby', ref: socket.lastSent('join').ref, epoch: EPOCH, version: 0, state: { value: 0, isLoading: false } });
  await joining;
  const action = socket.lastSent('action');
  assert.equal(action.action, 'increase');
  socket.receive({ type: 'ack', reactor: 'counter/lobby', ref: action.ref, version: 0, applied: 1 });
  assert.deepEqual(await queued, { reactor: 'counter/lobby', ref: action.ref, version: 0, applied: 1, id: action.id, duplicate: false });
});

test('an error without a known ref is reported on the error event', async () => {
  const { client, socket } = await joined();
  const errors = [];
  client.on('error', (e) => errors.push(e));
  socket.receive({ type: 'error', code: 'bad_json', message: 'not JSON' });
  socket.receive('{nope');
  assert.deepEqual(errors.map((e) => e.code), ['bad_json', 'bad_frame']);
});

test('a refused join rejects its promise, calls onError and forgets the reactor', async () => {
  const { client, socket } = makeClient();
  socket.open();
  const errors = [];
  const ready = client.join('nope/x', { onError: (e) => errors.push(e.code) });
  const join = socket.lastSent('join', 'nope/x');
  socket.receive({ type: 'error', ref: join.ref, code: 'unknown_reactor', message: 'no kind nope; kinds: counter' });
  await assert.rejects(ready, (e) => e.code === 'unknown_reactor');
  assert.deepEqual(errors, ['unknown_reactor']);
  assert.equal(client.reactor('nope/x'), undefined);
  await assert.rejects(client.join('Bad Address'), (e) => e.code === 'invalid_reactor');
});

test('reconnect: exponential backoff with jitter, then resume via since for every joined reactor', async () => {
  const { client, socket, statuses, states, address } = await joined('counter/lobby', 5);
  const todoStates = [];
  const todoReady = client.join('todo/lobby', { onState: (s, info) => todoStates.push([info.version, info.cause, s]) });
  socket.receive({ type: 'snapshot', reactor: 'todo/lobby', ref: socket.lastSent('join', 'todo/lobby').ref, epoch: 'e9', version: 2, state: { items: [] } });
  await todoReady;

  socket.serverClose(1001, 'server shutting down');
  assert.equal(client.status, 'reconnecting');
  // random() = 0.5 and jitter 0.5: delay = base * 0.75; base 250, 500, 1000, ...
  assert.deepEqual(timers.pendingDelays, [188]);
  timers.advance(188);
  assert.equal(FakeWebSocket.instances.length, 2);
  FakeWebSocket.last.serverClose(1006); // the server is still down
  assert.deepEqual(timers.pendingDelays, [375]);
  timers.advance(375);
  FakeWebSocket.last.serverClose(1006);
  assert.deepEqual(timers.pendingDelays, [750]);
  timers.advance(750);
  const next = FakeWebSocket.last;
  assert.equal(FakeWebSocket.instances.length, 4);
  assert.deepEqual(statuses.map((s) => s.status), ['connecting', 'open', 'reconnecting', 'reconnecting', 'reconnecting']);
  assert.deepEqual(statuses.slice(2).map((s) => [s.attempt, s.delayMs]), [[1, 188], [2, 375], [3, 750]]);
  assert.equal(statuses[2].code, 1001);

  next.open('reactorhub.v1', false);
  assert.equal(client.status, 'open');
  const joins = next.sent.filter((m) => m.type === 'join');
  assert.deepEqual(joins.map((j) => [j.reactor, j.since]), [
    ['counter/lobby', { epoch: EPOCH, version: 5 }],
    ['todo/lobby', { epoch: 'e9', version: 2 }],
  ]);
  // counter: resumed, the missed patches follow; todo: history gone, a snapshot instead.
  next.receive({ type: 'resumed', reactor: address, ref: joins[0].ref, epoch: EPOCH, version: 7 });
  next.receive(patch(address, 6, [{ op: 'replace', path: '/isLoading', value: true }]));
  next.receive(patch(address, 7, setValue(6)));
  next.receive({ type: 'snapshot', reactor: 'todo/lobby', ref: joins[1].ref, epoch: 'e10', version: 0, state: { items: [] } });
  assert.deepEqual(held(client, address), { address, state: { value: 6, isLoading: true }, epoch: EPOCH, version: 7 });
  assert.deepEqual(states.map((s) => [s.version, s.cause]), [[5, 'snapshot'], [5, 'resumed'], [6, 'patch'], [7, 'patch']]);
  assert.deepEqual(todoStates.map(([v, c]) => [v, c]), [[2, 'snapshot'], [0, 'snapshot']]);
  assert.equal(client.reactor('todo/lobby').epoch, 'e10');

  // the hello resets the backoff
  next.receive({ type: 'hello', protocol: 1, server: 'fake/1', session: 'c2', reactors: {} });
  next.serverClose(1006);
  assert.deepEqual(timers.pendingDelays, [188]);
});

test('the backoff is capped at maxDelayMs and jitter only shortens it', () => {
  let r = 0;
  const { client } = makeClient({ random: () => r });
  assert.equal(client.backoffDelay(0), 250);
  assert.equal(client.backoffDelay(3), 2000);
  assert.equal(client.backoffDelay(10), 8000);
  r = 0.999;
  assert.ok(client.backoffDelay(10) >= 4000 && client.backoffDelay(10) < 4010);
});

test('a `resumed` of another epoch, or behind the held version, is answered by a plain re-join', async () => {
  const { client, socket, address } = await joined('counter/lobby', 5);
  socket.serverClose(1006);
  timers.advance(1000);
  const next = FakeWebSocket.last;
  next.open();
  const join = next.lastSent('join', address);
  next.receive({ type: 'resumed', reactor: address, ref: join.ref, epoch: 'other', version: 5 });
  const again = next.lastSent('join', address);
  assert.notEqual(again.ref, join.ref);
  assert.equal(again.since, undefined);
  next.receive({ type: 'snapshot', reactor: address, ref: again.ref, epoch: 'other', version: 1, state: { value: 0, isLoading: false } });
  assert.equal(client.reactor(address).epoch, 'other');
});

test('after a resume, a missed patch that does not apply (another history) re-joins without since', async () => {
  const { client, socket, address } = await joined('counter/lobby', 5);
  const errors = [];
  client.on('error', (e) => errors.push(e));
  socket.serverClose(1006);
  timers.advance(1000);
  const next = FakeWebSocket.last;
  next.open();
  const join = next.lastSent('join', address);
  assert.deepEqual(join.since, { epoch: EPOCH, version: 5 });
  next.receive({ type: 'resumed', reactor: address, ref: join.ref, epoch: EPOCH, version: 5 });
  // A server that reissued version 6 with other contents: the patch does not fit our copy.
  next.receive(patch(address, 6, [{ op: 'replace', path: '/missing', value: 1 }]));
  next.receive(patch(address, 7, setValue(7)));
  assert.deepEqual(held(client, address), { address, state: { value: 5, isLoading: false }, epoch: EPOCH, version: 5 });
  assert.deepEqual(errors.map((e) => e.code), ['bad_patch']);
  const again = next.sent.filter((m) => m.type === 'join' && m.reactor === address);
  assert.equal(again.length, 2, 'one re-join, not one per later patch');
  assert.equal(again[1].since, undefined);
  next.receive({ type: 'snapshot', reactor: address, ref: again[1].ref, epoch: EPOCH, version: 7, state: { value: 7, isLoading: false } });
  assert.deepEqual(held(client, address), { address, state: { value: 7, isLoading: false }, epoch: EPOCH, version: 7 });
});

test('a join made while reconnecting is sent (without since) once the connection is back', async () => {
  const { client, socket } = await joined('counter/lobby', 5);
  socket.serverClose(1006);
  const ready = client.join('weather/lobby');
  timers.advance(1000);
  FakeWebSocket.last.open();
  const join = FakeWebSocket.last.lastSent('join', 'weather/lobby');
  assert.equal(join.since, undefined);
  FakeWebSocket.last.receive({ type: 'snapshot', reactor: 'weather/lobby', ref: join.ref, epoch: 'w', version: 0, state: { weather: null, isLoading: false } });
  assert.equal((await ready).state.weather, null);
});

test('leave sends leave, resolves at left, stops callbacks and is not re-joined after a reconnect', async () => {
  const { client, socket, states, address } = await joined('counter/lobby', 5);
  const left = client.leave(address);
  const leave = socket.lastSent('leave', address);
  socket.receive(patch(address, 6, setValue(6)));
  socket.receive({ type: 'left', reactor: address, ref: leave.ref });
  await left;
  assert.equal(states.length, 1);
  assert.equal(client.reactor(address), undefined);
  socket.serverClose(1006);
  timers.advance(1000);
  FakeWebSocket.last.open();
  assert.equal(FakeWebSocket.last.sent.filter((m) => m.type === 'join').length, 0);
});

test('leave then join again: the reply to the first join is ignored, the second one counts', async () => {
  const { client, socket } = makeClient();
  socket.open();
  const seen = [];
  const first = client.join('counter/x');
  first.catch(() => {});
  client.leave('counter/x');
  const second = client.join('counter/x', { onState: (s, info) => seen.push(info.version) });
  const [join1, join2] = socket.sent.filter((m) => m.type === 'join');
  const leave = socket.lastSent('leave');
  socket.receive({ type: 'snapshot', reactor: 'counter/x', ref: join1.ref, epoch: EPOCH, version: 1, state: { value: 1 } });
  socket.receive(patch('counter/x', 2, setValue(2)));
  socket.receive({ type: 'left', reactor: 'counter/x', ref: leave.ref });
  socket.receive({ type: 'snapshot', reactor: 'counter/x', ref: join2.ref, epoch: EPOCH, version: 2, state: { value: 2 } });
  await assert.rejects(first, (e) => e.code === 'left');
  assert.equal((await second).version, 2);
  assert.deepEqual(seen, [2]);
});

test('frame events carry every frame sent and received, with its direction', async () => {
  const { frames, address, client } = await joined('counter/lobby', 5);
  client.dispatch(address, 'increase').catch(() => {});
  const summary = frames.map((f) => `${f.direction}:${f.message.type}`);
  assert.deepEqual(summary, ['in:hello', 'out:join', 'in:snapshot', 'out:action']);
  assert.equal(typeof frames[0].data, 'string');
  assert.equal(typeof frames[0].time, 'number');
});

test('close() stops for good: status closed, pending rejected, no reconnect', async () => {
  const { client, socket, statuses, address } = await joined();
  const pending = client.dispatch(address, 'increase');
  const never = client.join('todo/x');
  client.close();
  await assert.rejects(pending, (e) => e.code === 'closed');
  await assert.rejects(never, (e) => e.code === 'closed');
  assert.deepEqual(socket.closedByClient, { code: 1000, reason: '' });
  assert.equal(statuses.at(-1).status, 'closed');
  assert.equal(timers.queue.size, 0);
  assert.equal(FakeWebSocket.instances.length, 1);
});

test('reconnectNow skips the backoff delay', async () => {
  const { client, socket } = await joined();
  socket.serverClose(1006);
  assert.equal(FakeWebSocket.instances.length, 1);
  client.reconnectNow();
  assert.equal(FakeWebSocket.instances.length, 2);
  assert.equal(timers.queue.size, 0);
});

test('the heartbeat pings and gives up a silent connection', async () => {
  const { client, socket } = makeClient({ heartbeatMs: 1000, heartbeatTimeoutMs: 500 });
  socket.open();
  timers.advance(1000);
  const ping = socket.lastSent('ping');
  socket.receive({ type: 'pong', ref: ping.ref });
  await flush();
  timers.advance(1000);
  assert.equal(socket.sent.filter((m) => m.type === 'ping').length, 2);
  timers.advance(500); // no pong this time
  assert.equal(client.status, 'reconnecting');
  assert.ok(socket.closedByClient);
});

test('an exception in a handler does not stop the frame processing', async () => {
  const { client, socket } = makeClient();
  socket.open();
  const seen = [];
  const uncaught = [];
  const onUncaught = (error) => uncaught.push(error.message);
  process.prependListener('uncaughtException', onUncaught);
  const saved = process.listeners('uncaughtException').filter((l) => l !== onUncaught);
  for (const l of saved) process.off('uncaughtException', l);
  try {
    client.join('counter/a', { onState: () => { throw new Error('boom'); } });
    client.join('counter/b', { onState: (s) => seen.push(s.value) });
    const [a, b] = socket.sent.filter((m) => m.type === 'join');
    socket.receive({ type: 'snapshot', reactor: 'counter/a', ref: a.ref, epoch: 'x', version: 0, state: { value: 1 } });
    socket.receive({ type: 'snapshot', reactor: 'counter/b', ref: b.ref, epoch: 'x', version: 0, state: { value: 2 } });
    await flush();
  } finally {
    process.off('uncaughtException', onUncaught);
    for (const l of saved) process.on('uncaughtException', l);
  }
  assert.deepEqual(seen, [2]);
  assert.deepEqual(uncaught, ['boom']);
});

test('addresses and the default URL', () => {
  assert.ok(isValidAddress('counter/lobby'));
  assert.ok(isValidAddress('todo/Room_1.a-b'));
  assert.ok(!isValidAddress('counter'));
  assert.ok(!isValidAddress('Counter/x'));
  assert.ok(!isValidAddress('counter/has space'));
  assert.equal(defaultUrl({ protocol: 'http:', host: '127.0.0.1:8080' }), 'ws://127.0.0.1:8080/ws');
  assert.equal(defaultUrl({ protocol: 'https:', host: 'hub.example' }), 'wss://hub.example/ws');
});

test('without a WebSocket implementation, connect explains what to pass', () => {
  const saved = globalThis.WebSocket;
  delete globalThis.WebSocket;
  try {
    assert.throws(() => connect('ws://x/ws'), /pass options.WebSocket/);
  } finally {
    if (saved) globalThis.WebSocket = saved;
  }
});

test('every action carries an id of 1 to 64 characters, a new one per action', async () => {
  const { client, socket, address } = await joined();
  client.dispatch(address, 'increase');
  client.dispatch(address, 'increase');
  const [a, b] = socket.sent.filter((m) => m.type === 'action');
  assert.equal(typeof a.id, 'string');
  assert.ok(a.id.length >= 1 && a.id.length <= 64, a.id);
  assert.notEqual(a.id, b.id);
});

test('after a reconnect, actions sent but never answered are sent again with the same id once rejoined', async () => {
  const { client, socket, address } = await joined();
  const answered = client.dispatch(address, 'increase');
  const lost1 = client.dispatch(address, 'increase');
  const lost2 = client.dispatch(address, 'decrease');
  const [a, b, c] = socket.sent.filter((m) => m.type === 'action');
  socket.receive({ type: 'ack', reactor: address, ref: a.ref, version: 5 });
  assert.equal((await answered).version, 5);
  socket.serverClose(1006);
  timers.advance(60_000);
  const next = FakeWebSocket.last;
  assert.notEqual(next, socket);
  next.open();
  const join = next.lastSent('join', address);
  assert.deepEqual(join.since, { epoch: EPOCH, version: 5 });
  assert.equal(next.sent.filter((m) => m.type === 'action').length, 0, 'nothing is resent before the reactor is joined again');
  next.receive({ type: 'resumed', reactor: address, ref: join.ref, epoch: EPOCH, version: 5 });
  const resent = next.sent.filter((m) => m.type === 'action');
  assert.deepEqual(resent.map((m) => [m.id, m.action]), [[b.id, 'increase'], [c.id, 'decrease']], 'same ids, same order');
  next.receive({ type: 'ack', reactor: address, ref: resent[0].ref, version: 5, duplicate: true });
  next.receive({ type: 'error', ref: resent[1].ref, code: 'invalid_action', message: 'no' });
  const first = await lost1;
  assert.equal(first.id, b.id);
  assert.equal(first.duplicate, true);
  await assert.rejects(lost2, (error) => error.code === 'invalid_action');
  // answered ones are not sent again on a later reconnect
  next.serverClose(1006);
  timers.advance(60_000);
  const third = FakeWebSocket.last;
  third.open();
  third.receive({ type: 'resumed', reactor: address, ref: third.lastSent('join', address).ref, epoch: EPOCH, version: 5 });
  assert.equal(third.sent.filter((m) => m.type === 'action').length, 0);
});

test('a snapshot after the reconnect also releases the unanswered actions; leave or close rejects them', async () => {
  const { client, socket, address } = await joined();
  const lost = client.dispatch(address, 'increase');
  const id = socket.lastSent('action', address).id;
  socket.serverClose(1006);
  timers.advance(60_000);
  const next = FakeWebSocket.last;
  next.open();
  next.receive({ type: 'snapshot', reactor: address, ref: next.lastSent('join', address).ref, epoch: 'other', version: 0, state: { value: 0, isLoading: false } });
  const again = next.lastSent('action', address);
  assert.equal(again.id, id);
  next.serverClose(1006);
  client.leave(address);
  await assert.rejects(lost, (error) => error.code === 'left');
  client.close();
});

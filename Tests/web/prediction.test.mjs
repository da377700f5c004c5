// Prediction against the fake socket (frames in the order each case needs): the doc kind's own
// predictors, predictors that predict nothing, confirmation without a patch, a snapshot that
// reaches `applied`, and what leave and close do to pending actions.
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { connect, builtInPredictors } from '../../web/reactorhub.js';
import { FakeWebSocket, ManualTimers } from './helpers/fakes.mjs';

const EPOCH = 'e1';

beforeEach(() => FakeWebSocket.reset());

async function joined(address, state, options = {}) {
  const timers = new ManualTimers();
  const client = connect('ws://hub.test/ws', { WebSocket: FakeWebSocket, setTimeout: timers.setTimeout, clearTimeout: timers.clearTimeout, ...options });
  const socket = FakeWebSocket.last;
  socket.open();
  const changes = [];
  const ready = client.join(address, { onState: (shown, info) => changes.push([info.cause, shown, info.predicted, info.pending]) });
  socket.receive({ type: 'snapshot', reactor: address, ref: socket.lastSent('join', address).ref, epoch: EPOCH, version: 0, state });
  const handle = await ready;
  changes.length = 0;
  return { client, socket, handle, changes, timers };
}

const sentAction = (socket, index) => socket.sent.filter((m) => m.type === 'action')[index];

test('doc is predicted as the server applies set, remove and patch; emit and a failing edit predict nothing', () => {
  const { set, remove, patch } = builtInPredictors.doc;
  const state = Object.freeze({ a: Object.freeze([1, 2]), b: 1 });
  assert.deepEqual(set(state, { path: '/c', value: { d: 1 } }), { a: [1, 2], b: 1, c: { d: 1 } });
  assert.deepEqual(set(state, { path: '/a/-', value: 3 }), { a: [1, 2, 3], b: 1 }, 'append at -');
  assert.deepEqual(set(state, { path: '/a/2', value: 3 }), { a: [1, 2, 3], b: 1 }, 'append at the length');
  assert.deepEqual(set(state, { path: '/a/0', value: 9 }), { a: [9, 2], b: 1 }, 'an element is replaced, not inserted');
  assert.deepEqual(set(state, { path: '', value: { fresh: true } }), { fresh: true });
  assert.equal(set(state, { path: '', value: [1] }), undefined, 'the root stays an object');
  assert.throws(() => set(state, { path: '/a/5', value: 0 }), /out of bounds/, 'past the end');
  assert.equal(set(state, { path: '/b/x', value: 0 }), undefined, 'no members in a number');
  assert.throws(() => set(state, { path: '/nope/x', value: 0 }), /does not exist/);
  assert.deepEqual(remove(state, { path: '/b' }), { a: [1, 2] });
  assert.equal(remove(state, { path: '' }), undefined);
  assert.deepEqual(patch(state, { ops: [{ op: 'test', path: '/b', value: 1 }, { op: 'replace', path: '/b', value: 2 }] }), { a: [1, 2], b: 2 });
  assert.throws(() => patch(state, { ops: [{ op: 'test', path: '/b', value: 5 }] }), /test failed/);
  assert.equal(builtInPredictors.doc.emit, undefined);
});

test('a predictor that throws or returns undefined predicts nothing; the action still counts as pending', async () => {
  const predictors = { todo: { add: () => { throw new Error('cannot'); }, toggle: () => undefined, rename: () => 'not an object' } };
  const { client, handle, changes } = await joined('todo/a', { items: [] }, { predictors });
  const before = handle.state;
  client.dispatch('todo/a', { type: 'add', title: 'x' });
  client.dispatch('todo/a', { type: 'toggle', id: 'x' });
  client.dispatch('todo/a', { type: 'rename', id: 'x', title: 'y' });
  assert.equal(handle.state, before);
  assert.equal(handle.pending, 3);
  assert.deepEqual(changes.map(([cause, , predicted, pending]) => [cause, predicted, pending]), [['predicted', true, 1], ['predicted', true, 2], ['predicted', true, 3]]);
});

test('an ack whose applied is already reached confirms at once; otherwise the patch that reaches it does', async () => {
  const { client, socket, handle, changes } = await joined('doc/a', {});
  const noChange = client.dispatch('doc/a', { type: 'emit', name: 'ping', value: 1 });
  const change = client.dispatch('doc/a', { type: 'set', path: '/x', value: 1 });
  assert.deepEqual(handle.state, { x: 1 });
  socket.receive({ type: 'ack', reactor: 'doc/a', ref: sentAction(socket, 0).ref, version: 0, applied: 0 });
  assert.equal((await noChange).applied, 0);
  assert.equal(handle.pending, 1, 'the emit confirmed at its ack');
  socket.receive({ type: 'ack', reactor: 'doc/a', ref: sentAction(socket, 1).ref, version: 0, applied: 1 });
  await change;
  assert.equal(handle.pending, 1, 'the set waits for version 1');
  socket.receive({ type: 'patch', reactor: 'doc/a', version: 1, patch: [{ op: 'add', path: '/x', value: 1 }] });
  assert.equal(handle.pending, 0);
  assert.equal(handle.state, handle.confirmedState);
  assert.deepEqual(changes.map(([cause, shown, predicted]) => [cause, JSON.stringify(shown), predicted]), [
    ['predicted', '{}', true], ['predicted', '{"x":1}', true], ['confirmed', '{"x":1}', true], ['patch', '{"x":1}', false],
  ]);
});

test('an unsolicited snapshot at or past applied drops the action; one before it keeps it predicted', async () => {
  const { client, socket, handle } = await joined('doc/a', {});
  client.dispatch('doc/a', { type: 'set', path: '/x', value: 1 });
  client.dispatch('doc/a', { type: 'set', path: '/y', value: 2 });
  socket.receive({ type: 'ack', reactor: 'doc/a', ref: sentAction(socket, 0).ref, version: 4, applied: 5 });
  socket.receive({ type: 'ack', reactor: 'doc/a', ref: sentAction(socket, 1).ref, version: 6, applied: 7 });
  socket.receive({ type: 'snapshot', reactor: 'doc/a', epoch: EPOCH, version: 6, state: { x: 1, z: 0 } });
  assert.equal(handle.pending, 1);
  assert.deepEqual(handle.state, { x: 1, z: 0, y: 2 });
  socket.receive({ type: 'snapshot', reactor: 'doc/a', epoch: EPOCH, version: 7, state: { x: 1, z: 0, y: 2 } });
  assert.equal(handle.pending, 0);
  assert.equal(handle.state, handle.confirmedState);
});

test('leave rejects the queued actions with left and keeps those in flight; close rejects the rest with closed', async () => {
  const { client, socket, handle } = await joined('doc/a', {});
  const pendingCounts = [];
  client.on('pending', (count) => pendingCounts.push(count));
  const inFlight = client.dispatch('doc/a', { type: 'set', path: '/x', value: 1 });
  socket.serverClose(1006); // the in-flight one goes back to the queue (resent after the reconnect)
  const queued = client.dispatch('doc/a', { type: 'set', path: '/y', value: 2 });
  assert.deepEqual(handle.state, { x: 1, y: 2 });
  assert.equal(client.pending, 2);
  client.leave('doc/a');
  await assert.rejects(inFlight, (error) => error.code === 'left');
  await assert.rejects(queued, (error) => error.code === 'left');
  assert.equal(client.pending, 0);
  const other = client.join('doc/b');
  const waiting = client.dispatch('doc/b', { type: 'set', path: '/z', value: 3 });
  assert.equal(client.pending, 1);
  await client.close();
  await assert.rejects(waiting, (error) => error.code === 'closed');
  await assert.rejects(other, (error) => error.code === 'closed');
  assert.equal(client.pending, 0);
  assert.deepEqual(pendingCounts, [1, 2, 0, 1, 0]);
});

test('with resendActions off an action unanswered at a drop is rolled back and rejects with disconnected', async () => {
  const { client, socket, handle, changes } = await joined('doc/a', {}, { resendActions: false });
  const lost = client.dispatch('doc/a', { type: 'set', path: '/x', value: 1 });
  assert.deepEqual(handle.state, { x: 1 });
  socket.serverClose(1006);
  await assert.rejects(lost, (error) => error.code === 'disconnected');
  assert.deepEqual(handle.state, {});
  assert.deepEqual(changes.map(([cause, , predicted]) => [cause, predicted]), [['predicted', true], ['rollback', false]]);
});

// Presence in web/reactorhub.js (PROTOCOL.md "Presence") against a fake WebSocket and manual
// timers: the map rebuilt from every snapshot and `resumed`, joins and leaves applied in order,
// this connection's own entry left out of `others`, counts past presence.maxListed, and
// setPresence (ack, refusal, waiting for the join, set again after a reconnect, left, closed);
// a page hidden into the back/forward cache closes its connection, so that it leaves the rooms.
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../../web/reactorhub.js';
import { FakeWebSocket, ManualTimers, flush } from './helpers/fakes.mjs';

const EPOCH = 'e3f1';
const ADDRESS = 'todo/room';
let timers;

beforeEach(() => {
  FakeWebSocket.reset();
  timers = new ManualTimers();
});

function makeClient(options = {}) {
  const events = [];
  const client = connect('ws://hub.test/ws', {
    WebSocket: FakeWebSocket,
    setTimeout: timers.setTimeout,
    clearTimeout: timers.clearTimeout,
    random: () => 0.5,
    on: { presence: (address, others, info) => events.push({ address, others, info }) },
    ...options,
  });
  return { client, events, socket: FakeWebSocket.last };
}

const entry = (session, user, state) => ({ session, user, state });
const snapshot = (ref, extra = {}, version = 3) => ({ type: 'snapshot', reactor: ADDRESS, ref, epoch: EPOCH, version, state: { items: [] }, ...extra });
const broadcast = (members) => ({ type: 'presence', reactor: ADDRESS, ...members });

// A client (hello session c1) with ADDRESS joined; its handle, and what its handlers heard in order.
async function joined(extra = { presence: { c1: { user: null, state: { me: true } }, c4: { user: 'ann', state: { editing: 'a' } }, c9: { user: null, state: {} } } }, options = {}) {
  const made = makeClient(options);
  made.socket.open();
  const heard = [];
  const ready = made.client.join(ADDRESS, {
    onState: (state, info) => heard.push(['state', info.cause]),
    onPresence: (others, info) => heard.push(['presence', info.cause, others, info.presenceCount]),
  });
  made.socket.receive(snapshot(made.socket.lastSent('join', ADDRESS).ref, extra));
  const handle = await ready;
  return { ...made, heard, handle };
}

test('the snapshot brings the others: every session but this one, in the snapshot order, after onState', async () => {
  const { handle, heard, events } = await joined();
  const others = [entry('c4', 'ann', { editing: 'a' }), entry('c9', null, {})];
  assert.deepEqual(handle.others, others);
  assert.equal(handle.presenceCount, null);
  assert.deepEqual(heard, [['state', 'snapshot'], ['presence', 'snapshot', others, null]]);
  assert.deepEqual(events, [{ address: ADDRESS, others, info: { address: ADDRESS, cause: 'snapshot', presenceCount: null } }]);
});

test('a snapshot without presence members: nobody', async () => {
  const { handle, heard } = await joined({});
  assert.deepEqual(handle.others, []);
  assert.deepEqual(heard, [['state', 'snapshot'], ['presence', 'snapshot', [], null]]);
});

test('broadcasts: joins are set (newcomers last, a changed state keeps its place), leaves removed', async () => {
  const { handle, socket, heard, events } = await joined();
  socket.receive(broadcast({ joins: { c12: { user: 'bob', state: { editing: 'b' } }, c4: { user: 'ann', state: {} } }, leaves: [] }));
  assert.deepEqual(handle.others, [entry('c4', 'ann', {}), entry('c9', null, {}), entry('c12', 'bob', { editing: 'b' })]);
  socket.receive(broadcast({ joins: {}, leaves: ['c9', 'c1'] }));
  assert.deepEqual(handle.others, [entry('c4', 'ann', {}), entry('c12', 'bob', { editing: 'b' })]);
  socket.receive(broadcast({ joins: { c9: { user: null, state: { back: 1 } } }, leaves: ['c4'] }));
  assert.deepEqual(handle.others, [entry('c12', 'bob', { editing: 'b' }), entry('c9', null, { back: 1 })]);
  assert.deepEqual(heard.map(([kind, cause]) => `${kind}:${cause}`), ['state:snapshot', 'presence:snapshot', 'presence:presence', 'presence:presence', 'presence:presence']);
  assert.deepEqual(events.slice(1).map((e) => [e.info.joins, e.info.leaves]), [[['c12', 'c4'], []], [[], ['c9', 'c1']], [['c9'], ['c4']]]);
  assert.deepEqual(events.at(-1).others, handle.others);
});

test('our own entry stays out of others, whatever the broadcasts say about it', async () => {
  const { handle, socket } = await joined({});
  socket.receive(broadcast({ joins: { c1: { user: null, state: { editing: 'x' } } }, leaves: [] }));
  assert.deepEqual(handle.others, []);
  socket.receive(broadcast({ joins: { c2: { user: null, state: {} } }, leaves: [] }));
  assert.deepEqual(handle.others.map((p) => p.session), ['c2']);
});

test('presence frames for a reactor not joined, or before its snapshot, are ignored', async () => {
  const { client, socket, events } = makeClient();
  socket.open();
  const ready = client.join(ADDRESS);
  socket.receive(broadcast({ joins: { c5: { user: null, state: {} } }, leaves: [] }));
  socket.receive({ type: 'presence', reactor: 'todo/other', joins: { c6: { user: null, state: {} } }, leaves: [] });
  assert.deepEqual(events, []);
  socket.receive(snapshot(socket.lastSent('join', ADDRESS).ref));
  assert.deepEqual((await ready).others, []);
  assert.deepEqual(events.map((e) => e.info.cause), ['snapshot']);
});

test('past presence.maxListed: a count instead of entries; listed again, the client joins afresh for the whole map', async () => {
  const { handle, socket, heard } = await joined({ presenceCount: 101 });
  assert.deepEqual(handle.others, []);
  assert.equal(handle.presenceCount, 101);
  socket.receive(broadcast({ presenceCount: 102 }));
  assert.equal(handle.presenceCount, 102);
  const joinsBefore = socket.sent.filter((m) => m.type === 'join').length;
  socket.receive(broadcast({ joins: {}, leaves: ['c7', 'c8'] })); // down to 100: only the change is listed
  assert.equal(handle.presenceCount, null);
  const joins = socket.sent.filter((m) => m.type === 'join');
  assert.equal(joins.length, joinsBefore + 1, 'a join for a snapshot with every entry');
  assert.equal(joins.at(-1).since, undefined);
  socket.receive(snapshot(joins.at(-1).ref, { presence: { c2: { user: null, state: {} }, c3: { user: 'cy', state: {} } } }));
  assert.deepEqual(handle.others, [entry('c2', null, {}), entry('c3', 'cy', {})]);
  assert.deepEqual(heard.filter(([kind]) => kind === 'presence').map(([, cause, others, count]) => [cause, others.length, count]),
    [['snapshot', 0, 101], ['presence', 0, 102], ['presence', 0, null], ['snapshot', 2, null]]);
});

test('setPresence sends the state with a ref and resolves at the ack; null clears', async () => {
  const { handle, socket } = await joined({});
  const set = handle.setPresence({ editing: 'a1' });
  const sent = socket.lastSent('presence', ADDRESS);
  assert.deepEqual(sent, { type: 'presence', reactor: ADDRESS, state: { editing: 'a1' }, ref: sent.ref });
  let settled = false;
  set.then(() => { settled = true; });
  await flush();
  assert.equal(settled, false, 'not before the ack');
  socket.receive({ type: 'ack', reactor: ADDRESS, ref: sent.ref, version: 3 });
  assert.equal(await set, undefined);
  const cleared = handle.setPresence(null);
  const clear = socket.lastSent('presence', ADDRESS);
  assert.equal(clear.state, null);
  assert.notEqual(clear.ref, sent.ref);
  socket.receive({ type: 'ack', reactor: ADDRESS, ref: clear.ref, version: 3 });
  await cleared;
});

test('setPresence rejects with the server\'s error, and refuses what is not an object without sending', async () => {
  const { handle, socket } = await joined({});
  const set = handle.setPresence({ typing: true });
  const sent = socket.lastSent('presence', ADDRESS);
  socket.receive({ type: 'error', ref: sent.ref, code: 'rate_limited', message: 'more than 20 actions and presence updates per second' });
  await assert.rejects(set, (e) => e.code === 'rate_limited' && e.reactor === ADDRESS && /per second/.test(e.message));
  const count = socket.sent.length;
  for (const wrong of [[1, 2], 'here', 3, undefined]) {
    await assert.rejects(handle.setPresence(wrong), (e) => e.code === 'invalid_presence');
  }
  assert.equal(socket.sent.length, count);
});

test('setPresence before the snapshot waits for the join to be answered, then sends the latest state', async () => {
  const { client, socket } = makeClient();
  socket.open();
  const ready = client.join(ADDRESS);
  const join = socket.lastSent('join', ADDRESS);
  socket.receive(snapshot(join.ref));
  const handle = await ready;
  // The handle is only had at the snapshot; a second address joined while the first is pending:
  const readyB = client.join('todo/b');
  const joinB = socket.lastSent('join', 'todo/b');
  socket.receive({ type: 'snapshot', reactor: 'todo/b', ref: joinB.ref, epoch: EPOCH, version: 0, state: {} });
  const handleB = await readyB;
  assert.notEqual(handle, handleB);
  // After a reconnect, before the re-join is answered: nothing is sent yet.
  socket.serverClose(1006);
  timers.advance(1000);
  const second = FakeWebSocket.last;
  second.open();
  const first = handle.setPresence({ n: 1 });
  const latest = handle.setPresence({ n: 2 });
  assert.equal(second.lastSent('presence'), undefined);
  const rejoin = second.lastSent('join', ADDRESS);
  second.receive({ type: 'resumed', reactor: ADDRESS, ref: rejoin.ref, epoch: EPOCH, version: 3 });
  const presences = second.sent.filter((m) => m.type === 'presence');
  assert.deepEqual(presences.map((m) => m.state), [{ n: 2 }], 'one frame, with the latest state');
  const order = second.sent.map((m) => m.type);
  assert.ok(order.indexOf('join') < order.indexOf('presence'));
  second.receive({ type: 'ack', reactor: ADDRESS, ref: presences[0].ref, version: 3 });
  assert.deepEqual(await Promise.all([first, latest]), [undefined, undefined]);
});

test('after a reconnect: presence rebuilt from `resumed` (not replayed), our presence set again on the new session', async () => {
  const { handle, socket, heard } = await joined();
  const set = handle.setPresence({ editing: 'a' });
  socket.receive({ type: 'ack', reactor: ADDRESS, ref: socket.lastSent('presence').ref, version: 3 });
  await set;
  socket.serverClose(1006);
  timers.advance(1000);
  const second = FakeWebSocket.last;
  second.open('reactorhub.v1', false);
  second.receive({ type: 'hello', protocol: 1, server: 'fake/1', session: 'c20', reactors: {} });
  const rejoin = second.lastSent('join', ADDRESS);
  assert.deepEqual(rejoin.since, { epoch: EPOCH, version: 3 });
  assert.equal(second.lastSent('presence'), undefined, 'not before the reactor is answered');
  // c1 (our old connection) and c9 are gone; c4 is still here.
  second.receive({ type: 'resumed', reactor: ADDRESS, ref: rejoin.ref, epoch: EPOCH, version: 3, presence: { c4: { user: 'ann', state: {} } } });
  assert.deepEqual(handle.others, [entry('c4', 'ann', {})]);
  assert.deepEqual(heard.at(-1), ['presence', 'resumed', [entry('c4', 'ann', {})], null]);
  const again = second.sent.filter((m) => m.type === 'presence');
  assert.deepEqual(again.map((m) => [m.reactor, m.state]), [[ADDRESS, { editing: 'a' }]]);
  // the broadcast of our new entry does not show us among the others
  second.receive(broadcast({ joins: { c20: { user: null, state: { editing: 'a' } } }, leaves: [] }));
  assert.deepEqual(handle.others, [entry('c4', 'ann', {})]);
  // a resync snapshot on the same connection does not send it a third time
  second.receive(snapshot(undefined, { presence: { c4: { user: 'ann', state: {} }, c20: { user: null, state: { editing: 'a' } } } }));
  assert.equal(second.sent.filter((m) => m.type === 'presence').length, 1);
});

test('a cleared presence is not sent after a reconnect (a new connection has none)', async () => {
  const { handle, socket } = await joined({});
  handle.setPresence({ a: 1 }).catch(() => {});
  handle.setPresence(null).catch(() => {});
  socket.serverClose(1006);
  timers.advance(1000);
  const second = FakeWebSocket.last;
  second.open();
  second.receive(snapshot(second.lastSent('join', ADDRESS).ref, {}, 4));
  assert.equal(second.lastSent('presence'), undefined);
  const set = handle.setPresence({ a: 2 }); // joined on this connection: sent at once
  const sent = second.lastSent('presence');
  assert.deepEqual(sent.state, { a: 2 });
  second.receive({ type: 'ack', reactor: ADDRESS, ref: sent.ref, version: 4 });
  await set;
});

test('a connection lost before the ack rejects with disconnected; left and closed reject waiting calls', async () => {
  const { client, handle, socket } = await joined({});
  const unanswered = handle.setPresence({ a: 1 });
  socket.serverClose(1006);
  await assert.rejects(unanswered, (e) => e.code === 'disconnected');
  const waiting = handle.setPresence({ a: 2 });
  client.leave(ADDRESS);
  await assert.rejects(waiting, (e) => e.code === 'left');
  await assert.rejects(handle.setPresence({ a: 3 }), (e) => e.code === 'left');

  const other = await joined({});
  other.socket.serverClose(1006);
  const pending = other.handle.setPresence({ b: 1 });
  other.client.close();
  await assert.rejects(pending, (e) => e.code === 'closed');
  await assert.rejects(other.handle.setPresence({ b: 2 }), (e) => e.code === 'closed');
});

test('joining again gives the same handle and tells the new handlers the presence held', async () => {
  const { client, handle } = await joined();
  const heard = [];
  const again = await client.join(ADDRESS, { onPresence: (others, info) => heard.push([others.map((p) => p.session), info.cause]) });
  assert.equal(again, handle);
  await flush();
  assert.deepEqual(heard, [[['c4', 'c9'], 'snapshot']]);
});

test('the handle reads what the client holds now', async () => {
  const { client, handle, socket } = await joined({});
  socket.receive({ type: 'patch', reactor: ADDRESS, version: 4, patch: [{ op: 'add', path: '/items/-', value: { id: 'a', title: 'x', done: false } }] });
  assert.equal(handle.version, 4);
  assert.equal(handle.epoch, EPOCH);
  assert.deepEqual(handle.state, client.reactor(ADDRESS).state);
  assert.deepEqual(handle.state.items.map((i) => i.id), ['a']);
});

const pageEvent = (type, persisted) => Object.assign(new Event(type), { persisted });

test('a page hidden (back/forward cache) closes its connection with 1001; shown again, it reconnects at once and sets its presence again', async () => {
  const page = new EventTarget();
  const { client, handle, socket } = await joined({}, { page });
  const set = handle.setPresence({ editing: 'a' });
  socket.receive({ type: 'ack', reactor: ADDRESS, ref: socket.lastSent('presence').ref, version: 3 });
  await set;
  page.dispatchEvent(pageEvent('pagehide', true));
  assert.deepEqual(socket.closedByClient, { code: 1001, reason: 'page hidden' });
  assert.equal(client.status, 'reconnecting');
  assert.equal(FakeWebSocket.instances.length, 1);
  page.dispatchEvent(pageEvent('pageshow', false)); // a fresh load, not a restore: nothing to do
  assert.equal(FakeWebSocket.instances.length, 1);
  page.dispatchEvent(pageEvent('pageshow', true));
  assert.equal(FakeWebSocket.instances.length, 2, 'without waiting for the backoff');
  const second = FakeWebSocket.last;
  second.open();
  const rejoin = second.lastSent('join', ADDRESS);
  assert.deepEqual(rejoin.since, { epoch: EPOCH, version: 3 });
  second.receive({ type: 'resumed', reactor: ADDRESS, ref: rejoin.ref, epoch: EPOCH, version: 3 });
  assert.deepEqual(second.sent.filter((m) => m.type === 'presence').map((m) => m.state), [{ editing: 'a' }]);
  client.close();
  page.dispatchEvent(pageEvent('pagehide', true));
  page.dispatchEvent(pageEvent('pageshow', true));
  assert.equal(FakeWebSocket.instances.length, 2, 'a closed client no longer follows the page');
});

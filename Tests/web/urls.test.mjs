// web/reactorhub.js with several URLs (the nodes of a cluster), the end of a session it cannot
// renew (1008 without a token function), and close() waiting for the closing handshake, against
// a fake WebSocket driven by the test.
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../../web/reactorhub.js';
import { FakeWebSocket, ManualTimers, flush } from './helpers/fakes.mjs';

const URLS = ['ws://node-a/ws', 'ws://node-b/ws', 'ws://node-c/ws'];
let timers;

beforeEach(() => {
  FakeWebSocket.reset();
  timers = new ManualTimers();
});

function makeClient(url = URLS, options = {}) {
  const statuses = [];
  const errors = [];
  const client = connect(url, {
    WebSocket: FakeWebSocket,
    setTimeout: timers.setTimeout,
    clearTimeout: timers.clearTimeout,
    random: () => 0,
    on: { status: (status, detail) => statuses.push({ status, ...detail }), error: (error) => errors.push(error) },
    ...options,
  });
  return { client, statuses, errors };
}

const urlsTried = () => FakeWebSocket.instances.map((socket) => socket.url.split('?')[0]);

test('a connection that fails moves on to the next URL, round and round', () => {
  const { client } = makeClient();
  assert.deepEqual(client.urls, URLS);
  assert.equal(client.url, 'ws://node-a/ws');
  FakeWebSocket.last.serverClose(1006);   // node-a refuses
  timers.advance(250);
  FakeWebSocket.last.serverClose(1006);   // node-b refuses
  timers.advance(500);
  FakeWebSocket.last.open();              // node-c answers
  assert.equal(client.status, 'open');
  assert.equal(client.url, 'ws://node-c/ws');
  FakeWebSocket.last.serverClose(1001, 'shutting down');
  timers.advance(250);
  assert.deepEqual(urlsTried(), ['ws://node-a/ws', 'ws://node-b/ws', 'ws://node-c/ws', 'ws://node-a/ws']);
});

test('a page whose node died resumes its reactors on the next one', async () => {
  const { client } = makeClient(URLS.slice(0, 2));
  FakeWebSocket.last.open();
  const ready = client.join('counter/lobby');
  const first = FakeWebSocket.last;
  first.receive({ type: 'snapshot', reactor: 'counter/lobby', ref: first.lastSent('join').ref, epoch: 'e1', version: 4, state: { value: 4 } });
  await ready;
  first.serverClose(1006);
  timers.advance(250);
  const second = FakeWebSocket.last;
  assert.equal(second.url, 'ws://node-b/ws');
  second.open();
  const rejoin = second.lastSent('join', 'counter/lobby');
  assert.deepEqual(rejoin.since, { epoch: 'e1', version: 4 });
});

test('one URL keeps working as before', () => {
  const { client } = makeClient('ws://only/ws');
  assert.deepEqual(client.urls, ['ws://only/ws']);
  FakeWebSocket.last.serverClose(1006);
  timers.advance(250);
  assert.deepEqual(urlsTried(), ['ws://only/ws', 'ws://only/ws']);
});

test('an empty list of URLs is refused at once', () => {
  assert.throws(() => makeClient([]), TypeError);
});

test('a 1008 without a token function ends the client with the reason instead of a reconnect loop', async () => {
  const { client, statuses, errors } = makeClient(URLS, { token: 'static.token.here' });
  FakeWebSocket.last.open();
  const never = client.join('counter/lobby');
  FakeWebSocket.last.serverClose(1008, 'revoked');
  await assert.rejects(never, (error) => error.code === 'unauthenticated' && error.message.includes('1008 revoked'));
  const last = statuses.at(-1);
  assert.equal(last.status, 'closed');
  assert.equal(last.code, 1008);
  assert.equal(last.reason, 'revoked');
  assert.equal(last.error.code, 'unauthenticated');
  assert.deepEqual(errors.map((error) => error.code), ['unauthenticated']);
  timers.advance(60000);
  assert.equal(FakeWebSocket.instances.length, 1);
  assert.deepEqual(timers.pendingDelays, []);
});

test('a 1008 with a token function reconnects with a fresh token', () => {
  let issued = 0;
  const { client } = makeClient(URLS, { token: () => `fresh.${++issued}.token` });
  FakeWebSocket.last.open();
  FakeWebSocket.last.serverClose(1008, 'token expired');
  assert.equal(client.status, 'reconnecting');
  timers.advance(250);
  assert.equal(FakeWebSocket.instances.length, 2);
  assert.match(FakeWebSocket.last.url, /^ws:\/\/node-b\/ws\?token=fresh\.2\.token$/);
});

test('close() sends 1000 and resolves once the server answered the close', async () => {
  const { client } = makeClient();
  const socket = FakeWebSocket.last;
  socket.open();
  let resolved = false;
  const closing = client.close().then(() => { resolved = true; });
  assert.deepEqual(socket.closedByClient, { code: 1000, reason: '' });
  assert.equal(resolved, false);
  await closing;
  assert.equal(socket.readyState, FakeWebSocket.CLOSED);
  assert.deepEqual(timers.pendingDelays, []);
  assert.equal(client.status, 'closed');
});

test('close() gives up waiting after closeTimeoutMs when the server never answers', async () => {
  FakeWebSocket.answersClose = false;
  const { client } = makeClient();
  FakeWebSocket.last.open();
  let resolved = false;
  client.close().then(() => { resolved = true; });
  await flush();
  assert.equal(resolved, false);
  assert.deepEqual(timers.pendingDelays, [1000]);
  timers.advance(1000);
  await flush();
  assert.equal(resolved, true);
});

test('close() before the socket opened resolves at once', async () => {
  const { client } = makeClient();
  await client.close();
  assert.equal(FakeWebSocket.last.readyState, FakeWebSocket.CLOSED);
  assert.deepEqual(timers.pendingDelays, []);
});

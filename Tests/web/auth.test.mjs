// Tokens in web/reactorhub.js against a fake WebSocket and manual timers: `?token=` on the
// upgrade, a string or an (async) function, the refresh before `exp`, a fresh token after a
// 1008 close, and `forbidden` / `unauthenticated` as rejections carrying the code.
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { connect, ReactorHubError, tokenExpiry } from '../../web/reactorhub.js';
import { FakeWebSocket, ManualTimers, flush } from './helpers/fakes.mjs';

const WALL = 1_800_000_000_000; // the wall clock (ms) when the test's manual clock reads 0
const EPOCH = 'e1';
let timers;

beforeEach(() => {
  FakeWebSocket.reset();
  timers = new ManualTimers();
});

const b64url = (text) => Buffer.from(text).toString('base64url');

/** A JWT-shaped token (the client never verifies signatures). */
function jwt(claims) {
  return `${b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${b64url(JSON.stringify(claims))}.c2lnbmF0dXJl`;
}

/** A token for alice expiring `seconds` after the manual clock's now; `n` tells tokens apart. */
const tokenFor = (seconds, n = 0) => jwt({ sub: 'alice', exp: Math.floor((WALL + timers.now) / 1000) + seconds, n });

function makeClient(options = {}) {
  const statuses = [];
  const errors = [];
  const lefts = [];
  const client = connect('ws://hub.test/ws', {
    WebSocket: FakeWebSocket,
    setTimeout: timers.setTimeout,
    clearTimeout: timers.clearTimeout,
    wallNow: () => WALL + timers.now,
    random: () => 0.5,
    on: {
      status: (status, detail) => statuses.push({ status, ...detail }),
      error: (error) => errors.push(error),
      left: (address, reason) => lefts.push([address, reason]),
    },
    ...options,
  });
  return { client, statuses, errors, lefts };
}

const tokenOf = (socket) => new URL(socket.url).searchParams.get('token');
const hello = (user = 'alice') => ({ type: 'hello', protocol: 1, server: 'fake/1', session: 'c1', user, reactors: {} });

function openWithHello(socket, user = 'alice') {
  socket.open('reactorhub.v1', false);
  socket.receive(hello(user));
}

test('tokenExpiry reads exp from the payload, and nothing else', () => {
  assert.equal(tokenExpiry(jwt({ sub: 'a', exp: 1767225600 })), 1767225600);
  assert.equal(tokenExpiry(jwt({ sub: 'a' })), undefined);
  assert.equal(tokenExpiry(jwt({ sub: 'a', exp: '1767225600' })), undefined);
  assert.equal(tokenExpiry('not-a-token'), undefined);
  assert.equal(tokenExpiry('a.%%%.c'), undefined);
  assert.equal(tokenExpiry(undefined), undefined);
  // base64url with - and _ and no padding
  const claims = { sub: '\u00ff\u00fe>>>???', exp: 42 };
  const text = jwt(claims);
  assert.match(text.split('.')[1], /[-_]/);
  assert.equal(tokenExpiry(text), 42);
});

test('a string token goes on the upgrade as ?token=, encoded, after any query of the url', () => {
  const token = tokenFor(3600);
  makeClient({ token });
  assert.equal(FakeWebSocket.last.url, `ws://hub.test/ws?token=${token}`);
  assert.equal(tokenOf(FakeWebSocket.last), token);
  connect('ws://hub.test/ws?room=a', { WebSocket: FakeWebSocket, token: 'a+b/c=' });
  assert.equal(FakeWebSocket.last.url, 'ws://hub.test/ws?room=a&token=a%2Bb%2Fc%3D');
  connect('ws://hub.test/ws', { WebSocket: FakeWebSocket });
  assert.equal(FakeWebSocket.last.url, 'ws://hub.test/ws', 'no token, no query');
});

test('a token function is called for the first connection; an async one before the socket exists', async () => {
  let calls = 0;
  const token = tokenFor(3600);
  makeClient({ token: () => { calls += 1; return token; } });
  assert.equal(calls, 1);
  assert.equal(tokenOf(FakeWebSocket.last), token);

  FakeWebSocket.reset();
  let resolve;
  const { client, statuses } = makeClient({ token: () => new Promise((r) => { resolve = r; }) });
  assert.equal(FakeWebSocket.instances.length, 0, 'no socket before the token');
  assert.equal(client.status, 'connecting');
  resolve(token);
  await flush();
  assert.equal(FakeWebSocket.instances.length, 1);
  assert.equal(tokenOf(FakeWebSocket.last), token);
  openWithHello(FakeWebSocket.last);
  assert.equal(client.user, 'alice');
  assert.deepEqual(statuses.map((s) => s.status), ['connecting', 'open']);
});

test('the token is refreshed tokenRefreshLeadMs before exp with a fresh one from the function', async () => {
  const issued = [];
  const { client, errors } = makeClient({ token: () => { const t = tokenFor(120, issued.length); issued.push(t); return t; } });
  const socket = FakeWebSocket.last;
  openWithHello(socket);
  assert.equal(client.tokenExpires, tokenExpiry(issued[0]));
  assert.deepEqual(timers.pendingDelays, [90000], 'refresh 30 s before exp');
  timers.advance(89999);
  assert.equal(issued.length, 1);
  timers.advance(1);
  await flush();
  assert.equal(issued.length, 2);
  const auth = socket.lastSent('auth');
  assert.deepEqual(auth, { type: 'auth', token: issued[1], ref: auth.ref });
  socket.receive({ type: 'authed', ref: auth.ref, user: 'alice', expires: tokenExpiry(issued[1]) });
  await flush();
  assert.equal(client.tokenExpires, tokenExpiry(issued[1]));
  assert.deepEqual(timers.pendingDelays, [90000], 'the next refresh is armed from the new exp');
  assert.equal(socket.sent.filter((m) => m.type === 'auth').length, 1);
  assert.deepEqual(errors, []);
});

test('a token shorter-lived than the lead is refreshed at half its remaining life', async () => {
  const issued = [];
  makeClient({ token: () => { const t = tokenFor(10, issued.length); issued.push(t); return t; } });
  openWithHello(FakeWebSocket.last);
  assert.deepEqual(timers.pendingDelays, [5000]);
  timers.advance(5000);
  await flush();
  assert.equal(FakeWebSocket.last.lastSent('auth').token, issued[1]);
});

test('refreshToken() sends an auth and resolves with the authed reply; a string token cannot refresh', async () => {
  const fresh = tokenFor(600, 1);
  let next = tokenFor(600, 0);
  const { client } = makeClient({ token: async () => next });
  await flush();
  const socket = FakeWebSocket.last;
  openWithHello(socket);
  next = fresh;
  const done = client.refreshToken();
  await flush();
  const auth = socket.lastSent('auth');
  assert.equal(auth.token, fresh);
  socket.receive({ type: 'authed', ref: auth.ref, user: 'alice', expires: tokenExpiry(fresh) });
  assert.deepEqual(await done, { type: 'authed', ref: auth.ref, user: 'alice', expires: tokenExpiry(fresh) });

  const fixed = makeClient({ token: tokenFor(600) });
  openWithHello(FakeWebSocket.last);
  assert.deepEqual(timers.pendingDelays.filter((d) => d > 1000).length, 1, 'only the first client has a refresh armed');
  await assert.rejects(fixed.client.refreshToken(), (e) => e instanceof ReactorHubError && e.code === 'token_unavailable');
});

test('a refused refresh surfaces as an error event with its code, and the connection stays', async () => {
  const { client, errors } = makeClient({ token: () => tokenFor(120) });
  const socket = FakeWebSocket.last;
  openWithHello(socket);
  timers.advance(90000);
  await flush();
  const auth = socket.lastSent('auth');
  socket.receive({ type: 'error', ref: auth.ref, code: 'forbidden', message: "this connection is authenticated as 'alice'; a token for 'bob' cannot replace it" });
  await flush();
  assert.deepEqual(errors.map((e) => [e.code, e instanceof ReactorHubError]), [['forbidden', true]]);
  assert.equal(client.status, 'open');
  assert.equal(socket.closedByClient, null);
});

test('after a close 1008 token expired a fresh token is fetched before the reconnect', async () => {
  const issued = [];
  const { client, statuses } = makeClient({ token: async () => { const t = tokenFor(120, issued.length); issued.push(t); return t; } });
  await flush();
  const first = FakeWebSocket.last;
  openWithHello(first);
  client.join('doc/x').catch(() => {});
  first.serverClose(1008, 'token expired');
  assert.equal(client.status, 'reconnecting');
  assert.deepEqual(statuses.at(-1), { status: 'reconnecting', code: 1008, reason: 'token expired', attempt: 1, delayMs: 188 });
  assert.equal(issued.length, 1, 'not fetched before the backoff delay');
  timers.advance(188);
  assert.equal(issued.length, 2, 'fetched at the reconnect');
  assert.equal(FakeWebSocket.instances.length, 1, 'the socket waits for the token');
  await flush();
  assert.equal(FakeWebSocket.instances.length, 2);
  assert.equal(tokenOf(FakeWebSocket.last), issued[1]);
  assert.notEqual(issued[1], issued[0]);
});

test('a token in hand is reused after a plain drop, and replaced when it ran out or never opened', async () => {
  let calls = 0;
  // The backoff (3 s, then 6 s) outlasts the second token (2 s).
  const { client } = makeClient({ initialDelayMs: 4000, token: () => { calls += 1; return tokenFor(calls === 2 ? 2 : 3600, calls); } });
  openWithHello(FakeWebSocket.last);
  FakeWebSocket.last.serverClose(1006);
  timers.advance(3000);
  assert.equal(calls, 1, 'a network drop: the same token again');
  assert.equal(tokenOf(FakeWebSocket.instances[1]), tokenOf(FakeWebSocket.instances[0]));
  // The upgrade fails without opening (a browser shows a 401 that way): fetch another.
  FakeWebSocket.last.serverClose(1006);
  timers.advance(6000);
  assert.equal(calls, 2);
  assert.equal(FakeWebSocket.instances.length, 3);
  openWithHello(FakeWebSocket.last);
  assert.equal(client.attempt, 0);
  // The token in hand passes its exp while disconnected: fetch another.
  FakeWebSocket.last.serverClose(1006);
  timers.advance(3000);
  assert.equal(calls, 3);
  assert.equal(FakeWebSocket.instances.length, 4);
  assert.ok(tokenExpiry(tokenOf(FakeWebSocket.last)) * 1000 > WALL + timers.now);
});

test('a token function that fails is reported as token_unavailable and tried again after the backoff', async () => {
  let calls = 0;
  const { client, errors, statuses } = makeClient({
    token: async () => { calls += 1; if (calls === 1) throw new Error('the login server is down'); return tokenFor(600); },
  });
  await flush();
  assert.equal(FakeWebSocket.instances.length, 0);
  assert.deepEqual(errors.map((e) => e.code), ['token_unavailable']);
  assert.match(errors[0].message, /the login server is down/);
  assert.equal(client.status, 'reconnecting');
  assert.equal(statuses.at(-1).attempt, 1);
  timers.advance(188);
  await flush();
  assert.equal(calls, 2);
  assert.equal(FakeWebSocket.instances.length, 1);
  const { client: other, errors: otherErrors } = makeClient({ token: () => '' });
  assert.deepEqual(otherErrors.map((e) => e.code), ['token_unavailable']);
  assert.equal(other.status, 'reconnecting');
});

test('forbidden and unauthenticated reject joins and dispatches with the code', async () => {
  const { client } = makeClient({ token: tokenFor(3600) });
  const socket = FakeWebSocket.last;
  openWithHello(socket);
  const join = client.join('doc/secret');
  const sentJoin = socket.lastSent('join', 'doc/secret');
  socket.receive({ type: 'error', ref: sentJoin.ref, code: 'forbidden', message: "doc/secret needs the 'read' right; this token's read patterns: doc/alice-*" });
  await assert.rejects(join, (e) => e instanceof ReactorHubError && e.code === 'forbidden' && e.reactor === 'doc/secret' && /needs the 'read' right/.test(e.message));
  assert.deepEqual(client.addresses, []);

  const readable = client.join('doc/alice-1');
  const sent = socket.lastSent('join', 'doc/alice-1');
  socket.receive({ type: 'snapshot', reactor: 'doc/alice-1', ref: sent.ref, epoch: EPOCH, version: 0, state: {} });
  await readable;
  const action = client.dispatch('doc/alice-1', { type: 'set', path: '/a', value: 1 });
  const sentAction = socket.lastSent('action', 'doc/alice-1');
  socket.receive({ type: 'error', ref: sentAction.ref, code: 'forbidden', message: "doc/alice-1 needs the 'act' right; this token's act patterns: none" });
  await assert.rejects(action, (e) => e.code === 'forbidden' && e.reactor === 'doc/alice-1' && e.ref === sentAction.ref);
  const early = client.dispatch('doc/alice-1', 'x');
  socket.receive({ type: 'error', ref: socket.lastSent('action').ref, code: 'unauthenticated', message: 'authenticate first' });
  await assert.rejects(early, (e) => e.code === 'unauthenticated');
  assert.deepEqual(client.addresses, ['doc/alice-1'], 'a refused action does not leave the reactor');
});

test('an unsolicited left with a reason forgets the reactor and tells its handlers', async () => {
  const { client, lefts } = makeClient({ token: tokenFor(3600) });
  const socket = FakeWebSocket.last;
  openWithHello(socket);
  const heard = [];
  for (const address of ['doc/keep', 'doc/lose']) {
    const ready = client.join(address, { onError: (e) => heard.push([address, e.code, e.reactor]) });
    socket.receive({ type: 'snapshot', reactor: address, ref: socket.lastSent('join', address).ref, epoch: EPOCH, version: 0, state: {} });
    await ready;
  }
  socket.receive({ type: 'left', reactor: 'doc/lose', reason: 'forbidden' });
  assert.deepEqual(heard, [['doc/lose', 'forbidden', 'doc/lose']]);
  assert.deepEqual(lefts, [['doc/lose', 'forbidden']]);
  assert.deepEqual(client.addresses, ['doc/keep']);
  assert.equal(client.reactor('doc/lose'), undefined);
  // Patches for it are ignored, the other one goes on.
  socket.receive({ type: 'patch', reactor: 'doc/lose', version: 1, patch: [{ op: 'add', path: '/x', value: 1 }] });
  socket.receive({ type: 'patch', reactor: 'doc/keep', version: 1, patch: [{ op: 'add', path: '/y', value: 2 }] });
  assert.deepEqual(client.reactor('doc/keep').state, { y: 2 });
  assert.equal(socket.sent.filter((m) => m.type === 'join' && m.reactor === 'doc/lose').length, 1, 'not joined again');
});

test('a re-join refused as forbidden after a reconnect gives the reactor up', async () => {
  const { client, lefts } = makeClient({ token: () => tokenFor(3600) });
  openWithHello(FakeWebSocket.last);
  const ready = client.join('doc/x');
  FakeWebSocket.last.receive({ type: 'snapshot', reactor: 'doc/x', ref: FakeWebSocket.last.lastSent('join').ref, epoch: EPOCH, version: 3, state: {} });
  await ready;
  FakeWebSocket.last.serverClose(1006);
  timers.advance(188);
  const socket = FakeWebSocket.last;
  openWithHello(socket);
  const rejoin = socket.lastSent('join', 'doc/x');
  assert.deepEqual(rejoin.since, { epoch: EPOCH, version: 3 });
  socket.receive({ type: 'error', ref: rejoin.ref, code: 'forbidden', message: "doc/x needs the 'read' right" });
  assert.deepEqual(lefts, [['doc/x', 'forbidden']]);
  assert.deepEqual(client.addresses, []);
});

test('close() stops the refresh timer and ignores a token that arrives later', async () => {
  let resolve;
  const { client } = makeClient({ token: () => new Promise((r) => { resolve = r; }) });
  client.close();
  resolve(tokenFor(600));
  await flush();
  assert.equal(FakeWebSocket.instances.length, 0);
  const other = makeClient({ token: () => tokenFor(600) });
  openWithHello(FakeWebSocket.last);
  assert.equal(timers.pendingDelays.length, 1);
  await other.client.close();
  assert.deepEqual(timers.pendingDelays, []);
});

test('an upgrade refused with only an error event (Node) is a failed attempt that fetches a fresh token', () => {
  let calls = 0;
  const { client, statuses } = makeClient({ token: () => { calls += 1; return tokenFor(600, calls); } });
  const refused = FakeWebSocket.last;
  refused.onerror?.({ type: 'error' }); // no close event follows
  assert.equal(client.status, 'reconnecting');
  assert.deepEqual(statuses.at(-1), { status: 'reconnecting', code: 1006, reason: '', attempt: 1, delayMs: 188 });
  timers.advance(188);
  assert.equal(calls, 2);
  assert.equal(FakeWebSocket.instances.length, 2);
  // Once open, an error waits for its close event.
  openWithHello(FakeWebSocket.last);
  FakeWebSocket.last.onerror?.({ type: 'error' });
  assert.equal(client.status, 'open');
});

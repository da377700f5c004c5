// Checksums in web/reactorhub.js (PROTOCOL.md "Checksums (opt-in)") against a fake WebSocket:
// the option puts `checksums: true` on every join; each snapshot, resumed and patch `sum` is
// checked (Web Crypto's SHA-256 over the RFC 8785 form); a copy that does not match is reported
// once (the 'mismatch' event, the `mismatches` counter) and joined afresh; the asynchronous
// digests are taken in arrival order, and a mismatch found after a new snapshot joins nothing.
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { connect, canonicalJSON, stateChecksum } from '../../web/reactorhub.js';
import { FakeWebSocket, ManualTimers, flush } from './helpers/fakes.mjs';

const EPOCH = 'e7';
const ADDRESS = 'doc/summed';
let timers;

beforeEach(() => {
  FakeWebSocket.reset();
  timers = new ManualTimers();
});

/** The server's sum, from Node's own SHA-256 (not Web Crypto, the client's default). */
const sum = (state) => createHash('sha256').update(canonicalJSON(state)).digest('hex').slice(0, 16);
/** Node's SHA-256 as the client's digest: done within the microtasks a `flush` waits for. */
const nodeDigest = (bytes) => createHash('sha256').update(bytes).digest();

function makeClient(options = {}) {
  const mismatches = [];
  const client = connect('ws://hub.test/ws', {
    WebSocket: FakeWebSocket,
    setTimeout: timers.setTimeout,
    clearTimeout: timers.clearTimeout,
    random: () => 0.5,
    checksums: true,
    digest: nodeDigest,
    on: { mismatch: (mismatch) => mismatches.push(mismatch) },
    ...options,
  });
  FakeWebSocket.last.open();
  return { client, socket: FakeWebSocket.last, mismatches };
}

async function joined(state = { a: 1 }, options = {}) {
  const made = makeClient(options);
  const ready = made.client.join(ADDRESS);
  const join = made.socket.lastSent('join', ADDRESS);
  made.socket.receive({ type: 'snapshot', reactor: ADDRESS, ref: join.ref, epoch: EPOCH, version: 1, state, sum: sum(state) });
  const handle = await ready;
  await flush();
  return { ...made, handle, join };
}

const patch = (version, operations, state) => ({ type: 'patch', reactor: ADDRESS, version, patch: operations, sum: sum(state) });

test('canonicalJSON is RFC 8785: sorted by UTF-16 code units, ECMAScript numbers, JSON escapes', async () => {
  const value = JSON.parse('{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],'
    + '"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}');
  assert.equal(canonicalJSON(value), '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}');
  const keys = { '\u20ac': 1, '\r': 2, '\ufb33': 3, 1: 4, '\u{1f600}': 5, '\u0080': 6, 'ö': 7 };
  assert.deepEqual(JSON.parse(`[${canonicalJSON(keys).slice(1, -1).replace(/:\d/g, '')}]`), ['\r', '1', '\u0080', 'ö', '\u20ac', '\u{1f600}', '\ufb33']);
  assert.equal(await stateChecksum({}), '44136fa355b3678a');
  assert.equal(await stateChecksum({ n: 1.0 }), await stateChecksum({ n: 1 }));
});

test('every join asks for checksums, and matching sums change nothing', async () => {
  const { client, socket, mismatches, handle, join } = await joined();
  assert.equal(join.checksums, true);
  socket.receive(patch(2, [{ op: 'add', path: '/b', value: [0.1, 'é\u0001'] }], { a: 1, b: [0.1, 'é\u0001'] }));
  socket.receive(patch(3, [{ op: 'remove', path: '/a' }], { b: [0.1, 'é\u0001'] }));
  await flush();
  assert.equal(handle.version, 3);
  assert.equal(client.mismatches, 0);
  assert.deepEqual(mismatches, []);
  assert.equal(socket.sent.filter((m) => m.type === 'join').length, 1);
});

test('a copy changed behind the client\'s back is found at the next patch, reported once, and joined afresh', async () => {
  const { client, socket, mismatches, handle } = await joined({ a: 1, list: [1, 2] });
  handle.confirmedState.list.push(99); // an app that mutates its copy
  socket.receive(patch(2, [{ op: 'replace', path: '/a', value: 2 }], { a: 2, list: [1, 2] }));
  socket.receive(patch(3, [{ op: 'replace', path: '/a', value: 3 }], { a: 3, list: [1, 2] }));
  await flush();
  await flush();
  assert.equal(client.mismatches, 1);
  assert.deepEqual(mismatches, [{ address: ADDRESS, version: 2, expected: sum({ a: 2, list: [1, 2] }), actual: sum({ a: 2, list: [1, 2, 99] }) }]);
  const rejoin = socket.lastSent('join', ADDRESS);
  assert.notEqual(rejoin.ref, undefined);
  assert.equal(rejoin.since, undefined, 'the copy is wrong: no resume from it');
  assert.equal(rejoin.checksums, true);
  assert.equal(socket.sent.filter((m) => m.type === 'join').length, 2);
  const fresh = { a: 3, list: [1, 2] };
  socket.receive({ type: 'snapshot', reactor: ADDRESS, ref: rejoin.ref, epoch: EPOCH, version: 3, state: fresh, sum: sum(fresh) });
  socket.receive(patch(4, [{ op: 'replace', path: '/a', value: 4 }], { a: 4, list: [1, 2] }));
  await flush();
  assert.deepEqual(handle.state, { a: 4, list: [1, 2] });
  assert.equal(client.mismatches, 1);
});

test('a snapshot that does not match its own sum is reported, and not joined again (no join loop)', async () => {
  const made = makeClient();
  made.client.join(ADDRESS);
  const join = made.socket.lastSent('join', ADDRESS);
  made.socket.receive({ type: 'snapshot', reactor: ADDRESS, ref: join.ref, epoch: EPOCH, version: 5, state: { a: 1 }, sum: '0000000000000000' });
  await flush();
  assert.equal(made.client.mismatches, 1);
  assert.equal(made.mismatches[0].version, 5);
  assert.equal(made.socket.sent.filter((m) => m.type === 'join').length, 1);
  // Its copy stays suspect: the patches on it are not checked again until a snapshot.
  made.socket.receive(patch(6, [{ op: 'replace', path: '/a', value: 2 }], { a: 2 }));
  await flush();
  assert.equal(made.client.mismatches, 1);
});

test('checks run one after the other in arrival order; a mismatch of a copy replaced meanwhile joins nothing', async () => {
  // A digest whose answers the test releases one by one.
  const waiting = [];
  const digest = (bytes) => new Promise((resolve) => waiting.push(() => resolve(nodeDigest(bytes))));
  const made = makeClient({ digest });
  made.client.join(ADDRESS);
  const join = made.socket.lastSent('join', ADDRESS);
  made.socket.receive({ type: 'snapshot', reactor: ADDRESS, ref: join.ref, epoch: EPOCH, version: 1, state: { a: 1 }, sum: sum({ a: 1 }) });
  made.socket.receive({ type: 'patch', reactor: ADDRESS, version: 2, patch: [{ op: 'replace', path: '/a', value: 2 }], sum: 'ffffffffffffffff' });
  // A snapshot replaces that copy before the patch's check is done.
  made.socket.receive({ type: 'snapshot', reactor: ADDRESS, epoch: EPOCH, version: 3, state: { a: 3 }, sum: sum({ a: 3 }) });
  await flush();
  assert.equal(waiting.length, 1, 'one check at a time');
  waiting.shift()();
  await flush();
  assert.equal(waiting.length, 1, 'the patch is checked after the first snapshot');
  assert.equal(made.client.mismatches, 0);
  waiting.shift()();
  await flush();
  assert.equal(made.client.mismatches, 1, 'the patch did not match');
  assert.equal(made.mismatches[0].version, 2);
  assert.equal(made.socket.sent.filter((m) => m.type === 'join').length, 1, 'but its copy is gone: nothing to join again');
  waiting.shift()();
  await flush();
  assert.equal(waiting.length, 0);
  assert.equal(made.client.mismatches, 1);
});

test('with Web Crypto (the default digest) a mismatch is found too', async () => {
  const made = makeClient({ digest: undefined });
  const reported = new Promise((resolve) => made.client.on('mismatch', resolve));
  made.client.join(ADDRESS);
  const join = made.socket.lastSent('join', ADDRESS);
  made.socket.receive({ type: 'snapshot', reactor: ADDRESS, ref: join.ref, epoch: EPOCH, version: 1, state: { é: [1.5] }, sum: sum({ é: [1.5] }) });
  made.socket.receive(patch(2, [{ op: 'add', path: '/é/-', value: 2 }], { é: [1.5, 3] }));
  const mismatch = await reported;
  assert.deepEqual(mismatch, { address: ADDRESS, version: 2, expected: sum({ é: [1.5, 3] }), actual: sum({ é: [1.5, 2] }) });
  assert.equal(made.client.mismatches, 1);
  assert.equal(made.socket.sent.filter((m) => m.type === 'join').length, 2);
});

test('without the option nothing is asked and sums are not checked', async () => {
  const made = makeClient({ checksums: false });
  made.client.join(ADDRESS);
  const join = made.socket.lastSent('join', ADDRESS);
  assert.equal(join.checksums, undefined);
  made.socket.receive({ type: 'snapshot', reactor: ADDRESS, ref: join.ref, epoch: EPOCH, version: 1, state: {}, sum: '0000000000000000' });
  await flush();
  assert.equal(made.client.mismatches, 0);
});

test('checksums without Web Crypto or a digest are refused at once', () => {
  const subtle = Object.getOwnPropertyDescriptor(globalThis, 'crypto');
  Object.defineProperty(globalThis, 'crypto', { value: undefined, configurable: true });
  try {
    assert.throws(() => connect('ws://hub.test/ws', { WebSocket: FakeWebSocket, checksums: true }), /checksums need Web Crypto/);
  } finally {
    Object.defineProperty(globalThis, 'crypto', subtle);
  }
});

// web/reactorhub.js with tokens against a real daemon with an `auth` section
// ($REACTORHUB_BINARY, else .build/debug/reactorhub; skipped when neither exists): ?token= on
// the upgrade, forbidden as rejections, the refresh before exp, and a fresh token after the
// server closed with 1008 `token expired`. Tokens are HS256, signed here with node:crypto.
// Node 20 needs --experimental-websocket: without it, this file runs itself again with the flag.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, tokenExpiry } from '../../web/reactorhub.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BINARY = process.env.REACTORHUB_BINARY || join(ROOT, '.build/debug/reactorhub');
const SECRET = 'node-live-secret-0123456789abcdef0123456789abcdef';

if (!existsSync(BINARY)) {
  test('live auth tests', { skip: `no daemon binary at ${BINARY} (set REACTORHUB_BINARY)` }, () => {});
} else if (typeof globalThis.WebSocket === 'undefined') {
  test('live auth tests (run again with --experimental-websocket)', () => {
    const env = { ...process.env };
    delete env.NODE_TEST_CONTEXT;
    const run = spawnSync(process.execPath, ['--experimental-websocket', '--test', '--test-reporter=spec', fileURLToPath(import.meta.url)], {
      encoding: 'utf8', env, timeout: 120000,
    });
    process.stdout.write(run.stdout);
    assert.equal(run.status, 0, `the live auth tests failed:\n${run.stdout}\n${run.stderr}`);
  });
} else {
  liveAuthTests();
}

/** An HS256 JWT for `sub`, valid `seconds` from now. */
function sign(sub, seconds, rights = { read: ['*'], act: ['*'] }, secret = SECRET) {
  const encode = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const input = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode({ sub, iat: now, exp: now + seconds, rh: rights })}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

function liveAuthTests() {
  let daemon;
  let url;
  const clients = [];

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rh-node-auth-'));
    const config = join(dir, 'reactorhub.json');
    writeFileSync(config, JSON.stringify({ logLevel: 'warning', auth: { hs256Secret: SECRET, leewaySeconds: 0 } }));
    daemon = spawn(BINARY, ['--config', config, '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
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

  function client(options) {
    const statuses = [];
    const errors = [];
    const frames = [];
    const hub = connect(url, {
      initialDelayMs: 50,
      on: { status: (s, detail) => statuses.push([s, detail.code, detail.reason]), error: (e) => errors.push(e), frame: (f) => frames.push(f) },
      ...options,
    });
    clients.push(hub);
    return { hub, statuses, errors, frames };
  }

  const until = async (predicate, what, timeoutMs = 15000) => {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  test('a string token opens as its user; forbidden comes back as rejections with the code', async () => {
    const { hub } = client({ token: sign('alice', 600, { read: ['doc/*'], act: ['doc/alice-*'] }) });
    await until(() => hub.hello !== null, 'hello');
    assert.equal(hub.user, 'alice');
    await hub.join('doc/alice-1');
    const ack = await hub.dispatch('doc/alice-1', { type: 'set', path: '/a', value: 1 });
    assert.equal(ack.version, 0);
    await hub.join('doc/shared');
    await assert.rejects(hub.dispatch('doc/shared', { type: 'set', path: '/a', value: 1 }),
      (e) => e.code === 'forbidden' && e.message === "doc/shared needs the 'act' right; this token's act patterns: doc/alice-*");
    await assert.rejects(hub.join('todo/x'), (e) => e.code === 'forbidden' && /todo\/x needs the 'read' right/.test(e.message));
    assert.deepEqual(hub.addresses, ['doc/alice-1', 'doc/shared']);
  });

  test('a token refused at the upgrade is replaced by a fresh one at the next attempt', async () => {
    let next = 'not-a-token';
    let calls = 0;
    const { hub, statuses } = client({ token: async () => { calls += 1; return next; } });
    // The daemon answers 401 `malformed`; a WebSocket client sees a failed handshake (no open).
    await until(() => statuses.filter(([s]) => s === 'reconnecting').length >= 2, 'two refused attempts');
    assert.equal(hub.hello, null);
    assert.ok(calls >= 2, 'a token was asked for at each attempt');
    next = sign('bob', 600);
    await until(() => hub.user === 'bob', 'bob signed in at a later attempt');
    assert.equal(hub.status, 'open');
    await hub.join('doc/bob');
  });

  test('the token is refreshed before exp and the connection outlives the first token', async () => {
    const issued = [];
    const { hub, statuses, frames } = client({
      tokenRefreshLeadMs: 2500,
      token: async () => { const t = sign('carol', 5); issued.push(t); return t; },
    });
    await until(() => hub.user === 'carol', 'carol');
    const firstExp = tokenExpiry(issued[0]);
    await hub.join('doc/carol');
    await until(() => frames.some((f) => f.message?.type === 'authed'), 'the first refresh', 15000);
    assert.equal(issued.length >= 2, true);
    await until(() => Date.now() > firstExp * 1000 + 500, 'past the first exp');
    assert.equal(hub.status, 'open');
    const ack = await hub.dispatch('doc/carol', { type: 'set', path: '/alive', value: true });
    assert.equal(typeof ack.version, 'number');
    assert.deepEqual(statuses.map(([s]) => s), ['connecting', 'open']);
  });

  test('after a close 1008 token expired a fresh token is fetched and the reactors are joined again', async () => {
    const issued = [];
    // The refresh gets a token signed with another secret: refused (unauthenticated), so the
    // server closes the connection at exp; the reconnect then asks for a token again.
    const tokens = [() => sign('dave', 4), () => sign('dave', 600, undefined, 'wrong-secret-0123456789abcdef0123456789'), () => sign('dave', 600)];
    const { hub, statuses, errors } = client({
      tokenRefreshLeadMs: 1000,
      token: async () => { const t = tokens[Math.min(issued.length, 2)](); issued.push(t); return t; },
    });
    const states = [];
    await hub.join('doc/dave', { onState: (state, info) => states.push([info.cause, info.version]) });
    await until(() => statuses.some(([s, code]) => s === 'reconnecting' && code === 1008), 'the 1008 close');
    const closed = statuses.find(([s, code]) => s === 'reconnecting' && code === 1008);
    assert.deepEqual(closed, ['reconnecting', 1008, 'token expired']);
    assert.deepEqual(errors.map((e) => e.code), ['unauthenticated']);
    await until(() => hub.status === 'open' && issued.length === 3, 'reconnected with the third token');
    await until(() => states.length >= 2, 'joined again');
    assert.deepEqual(statuses.map(([s]) => s), ['connecting', 'open', 'reconnecting', 'open']);
    assert.equal(hub.user, 'dave');
    assert.equal((await hub.dispatch('doc/dave', { type: 'set', path: '/x', value: 1 })).version, 0);
  });
}

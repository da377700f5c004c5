// Real processes for the live tests of web/reactorhub.js: daemons ($REACTORHUB_BINARY, else
// .build/debug/reactorhub) and a redis-server of the test's own on a free loopback port; and
// the re-run of a test file under --experimental-websocket on a Node without the global.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const BINARY = process.env.REACTORHUB_BINARY || join(ROOT, '.build/debug/reactorhub');
export const OUTPUT = process.env.REACTORHUB_TEST_OUTPUT || join(ROOT, 'test-output');

/** Runs `body` (which declares the tests) when a daemon binary and a WebSocket global exist;
 *  without the global (Node 20), runs `file` again with --experimental-websocket. With
 *  `nodePath`, the file runs (again) with that folder on NODE_PATH too (Debian's node modules,
 *  where the CommonJS React packages find each other). */
export function liveSuite(name, file, body, { nodePath = null } = {}) {
  const paths = (process.env.NODE_PATH ?? '').split(':').filter(Boolean);
  const needsPath = nodePath !== null && !paths.includes(nodePath);
  if (!existsSync(BINARY)) {
    test(name, { skip: `no daemon binary at ${BINARY} (set REACTORHUB_BINARY)` }, () => {});
  } else if (typeof globalThis.WebSocket === 'undefined' || needsPath) {
    test(`${name} (run again with ${needsPath ? `NODE_PATH=${nodePath}` : '--experimental-websocket'})`, () => {
      const env = { ...process.env };
      delete env.NODE_TEST_CONTEXT; // else the child reports in this runner's protocol
      if (needsPath) env.NODE_PATH = [...paths, nodePath].join(':');
      const flags = typeof globalThis.WebSocket === 'undefined' ? ['--experimental-websocket'] : [];
      const run = spawnSync(process.execPath, [...flags, '--test', '--test-reporter=spec', fileURLToPath(file)], {
        encoding: 'utf8', env, timeout: 240000,
      });
      process.stdout.write(run.stdout);
      assert.equal(run.status, 0, `${name} failed:\n${run.stdout}\n${run.stderr}`);
    });
  } else {
    body();
  }
}

/** A free loopback port (the kernel's choice, released at once). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Resolves with the first line `child` prints on its standard output. */
function firstLine(child) {
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      if (buffer.includes('\n')) resolve(buffer.split('\n')[0]);
    });
    child.on('exit', (code) => reject(new Error(`${child.spawnfile} exited with ${code}`)));
  });
}

/** A daemon with `config` on a port of its own; its standard error goes to `log` (a path). */
export async function startDaemon(config, log) {
  const dir = mkdtempSync(join(tmpdir(), 'rh-node-daemon-'));
  const path = join(dir, 'reactorhub.json');
  writeFileSync(path, JSON.stringify(config));
  const { openSync } = await import('node:fs');
  const child = spawn(BINARY, ['--config', path, '--port', '0', '--web-root', join(ROOT, 'web')], {
    cwd: ROOT, stdio: ['ignore', 'pipe', openSync(log, 'a')],
  });
  const line = await firstLine(child);
  assert.match(line, /^listening on http:\/\/127\.0\.0\.1:\d+$/);
  const port = Number(line.split(':').at(-1));
  return { child, port, url: `ws://127.0.0.1:${port}/ws`, stop: () => stopChild(child, 'SIGTERM'), kill: () => stopChild(child, 'SIGKILL') };
}

/** Ends `child` with `signal` and resolves once it exited. */
export function stopChild(child, signal) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

/** A redis-server without persistence on a free loopback port, up once it answers PING. */
export async function startRedis() {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'rh-node-redis-'));
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: 'ignore',
  });
  const deadline = Date.now() + 20000;
  while (!(await answersPing(port))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`redis-server did not start on ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { port, address: `127.0.0.1:${port}`, stop: () => stopChild(child, 'SIGKILL') };
}

function answersPing(port) {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' }, () => socket.write('PING\r\n'));
    socket.setTimeout(1000, () => { socket.destroy(); resolve(false); });
    socket.once('data', (data) => { socket.destroy(); resolve(String(data).startsWith('+PONG')); });
    socket.once('error', () => resolve(false));
  });
}

/** Waits until `predicate()` holds, polling; throws after `timeoutMs`. */
export async function until(predicate, what, timeoutMs = 20000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

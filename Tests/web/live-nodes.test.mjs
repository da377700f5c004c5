// web/reactorhub.js against real processes: a client given the URLs of a two-node cluster (its
// own redis-server) whose node is killed moves to the other node and resumes there; and close()
// leaves the daemon a normal close (1000 in its JSON log), every time.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from '../../web/reactorhub.js';
import { OUTPUT, liveSuite, startDaemon, startRedis, until } from './helpers/processes.mjs';

liveSuite('live node tests', import.meta.url, () => {
  const stops = [];
  after(async () => { for (const stop of stops.reverse()) await stop(); });
  mkdirSync(OUTPUT, { recursive: true });

  test('a client whose node died moves to the next URL and resumes its reactor there', async () => {
    const redis = await startRedis();
    stops.push(redis.stop);
    const prefix = `rhnode${process.pid}x${Date.now() % 100000}`;
    const node = (id) => startDaemon({
      persistence: { kind: 'redis' }, reactors: { counter: { delayMs: 30 } },
      cluster: { redis: redis.address, nodeId: id, leaseMs: 1500, keyPrefix: prefix },
    }, join(OUTPUT, `node-live-${id}.log`));
    const n1 = await node('n1');
    stops.push(n1.stop);
    const n2 = await node('n2');
    stops.push(n2.stop);

    // Port 1 on the loopback: nothing listens there, so the first URL fails.
    const client = connect(['ws://127.0.0.1:1/ws', n1.url, n2.url], { initialDelayMs: 50, maxDelayMs: 400 });
    stops.push(() => client.close());
    // The hello follows the socket's open in a message of its own.
    await until(() => client.status === 'open' && client.hello !== null, 'the first open connection and its hello');
    assert.equal(client.hello.node, 'n1');
    const address = `counter/nodes${Date.now() % 100000}`;
    const handle = await client.join(address);
    await client.dispatch(address, 'increase');
    await until(() => handle.state.value === 1 && !handle.state.isLoading, 'the first increase');
    const epoch = handle.epoch;

    await n1.kill();
    await until(() => client.status === 'open' && client.hello.node === 'n2', 'a connection to n2');
    assert.equal(client.url, n2.url);
    await until(() => handle.state.value === 1, 'the reactor resumed on n2');
    assert.equal(handle.epoch, epoch);
    // Until n2 takes over the instance n1 owned, actions are answered `overloaded` (CLUSTER.md).
    let refusals = 0;
    for (;;) {
      try {
        await client.dispatch(address, 'increase');
        break;
      } catch (error) {
        assert.equal(error.code, 'overloaded');
        assert.ok(++refusals < 20, 'n2 never took the instance over');
      }
    }
    await until(() => handle.state.value === 2 && !handle.state.isLoading, 'the increase on n2');
    assert.equal(handle.epoch, epoch);
  });

  test('close() leaves the daemon a normal close (1000), every time', async () => {
    const log = join(OUTPUT, `node-live-close-${process.pid}-${Date.now()}.log`);
    const daemon = await startDaemon({ persistence: { kind: 'memory' }, logLevel: 'info', logFormat: 'json' }, log);
    stops.push(daemon.stop);
    const runs = 5;
    for (let run = 0; run < runs; run += 1) {
      const sockets = [];
      class RecordingWebSocket extends WebSocket {
        constructor(...args) {
          super(...args);
          sockets.push(this);
        }
      }
      const client = connect(daemon.url, { WebSocket: RecordingWebSocket });
      await client.join(`counter/close${run}`);
      await client.close();
      // Resolved once the closing handshake is over: the server's close frame came back.
      assert.equal(sockets.length, 1);
      assert.equal(sockets[0].readyState, WebSocket.CLOSED);
      assert.equal(client.status, 'closed');
    }
    const closes = () => readFileSync(log, 'utf8').split('\n').filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line)).filter((line) => line.message === 'connection closed').map((line) => line.metadata);
    await until(() => closes().length === runs, `${runs} closes in the daemon's log`);
    assert.deepEqual(closes().map((close) => close.code), Array(runs).fill('1000'));
  });
});

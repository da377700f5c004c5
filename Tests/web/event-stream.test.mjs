// The HTTP fallback of web/reactorhub.js (EventStreamSocket, withEventStreamFallback) against a
// real daemon process: the client's protocol over Server-Sent Events and POST, next to a
// WebSocket client of the same reactors. Node has no EventSource: helpers/event-source.mjs is a
// small one; fetch is Node's own.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { EventStreamSocket, connect, withEventStreamFallback } from '../../web/reactorhub.js';
import { NodeEventSource } from './helpers/event-source.mjs';
import { OUTPUT, liveSuite, startDaemon, until } from './helpers/processes.mjs';

liveSuite('the HTTP fallback against a live daemon', import.meta.url, () => {
  let daemon;
  const clients = [];
  const options = { EventSource: NodeEventSource };

  before(async () => {
    daemon = await startDaemon({ logLevel: 'warning', reactors: { counter: { delayMs: 20 } } }, join(OUTPUT, 'node-event-stream.log'));
  });

  after(async () => {
    for (const client of clients) client.close();
    await daemon?.stop();
  });

  function client(WebSocket) {
    const hub = connect(daemon.url, { WebSocket, initialDelayMs: 50 });
    clients.push(hub);
    return hub;
  }

  class EventStreamOnly extends EventStreamSocket {
    constructor(url, protocols) { super(url, protocols, options); }
  }

  test('joins, actions with acks, patches and pulses go over the fallback', async () => {
    const hub = client(EventStreamOnly);
    const watcher = client(WebSocket);
    const seen = [];
    const pulses = [];
    await hub.join('counter/fallback', { onState: (state, info) => seen.push([info.cause, info.version, state.value]), onPulse: (name, value) => pulses.push([name, value]) });
    await watcher.join('counter/fallback');
    assert.equal(hub.hello.server, 'reactorhub over HTTP (Server-Sent Events)');
    assert.deepEqual(Object.keys(hub.hello.reactors).sort(), ['counter', 'doc', 'todo', 'weather']);
    const ack = await hub.dispatch('counter/fallback', 'increase');
    assert.deepEqual([ack.version, ack.applied], [0, 1]);
    await until(() => pulses.length === 1, 'the pulse');
    assert.deepEqual(pulses, [['alertMessage', 'increased!']]);
    assert.equal(hub.reactor('counter/fallback').version, 3);
    // The watcher's patch comes over its own connection, which may be later than the
    // fallback's pulse (a fresh-clone run compared them before it came).
    await until(() => watcher.reactor('counter/fallback').confirmedState.value === 1, "the watcher's patch");
    assert.equal(watcher.reactor('counter/fallback').confirmedState.value, 1);
    assert.deepEqual(seen.filter(([cause]) => cause === 'snapshot' || cause === 'patch').map(([, version]) => version), [0, 1, 2, 3]);
  });

  test('a refused action rejects with its code and a join of an unknown kind is refused', async () => {
    const hub = client(EventStreamOnly);
    await hub.join('todo/fallback-refused');
    await assert.rejects(hub.dispatch('todo/fallback-refused', { type: 'toggle', id: 'nope' }), (error) => error.code === 'invalid_action');
    await assert.rejects(hub.join('nope/x'), (error) => error.code === 'unknown_reactor');
    assert.equal(hub.status, 'open');
  });

  test('a WebSocket that cannot open falls back, and actions reach WebSocket subscribers', async () => {
    class Blocked {
      constructor() {
        this.readyState = 0;
        this.listeners = { open: [], close: [], error: [] };
        setTimeout(() => {
          this.readyState = 3;
          this.onerror?.({});
          for (const listener of this.listeners.error) listener({});
          this.onclose?.({ code: 1006, reason: '' });
          for (const listener of this.listeners.close) listener({ code: 1006 });
        }, 5);
      }
      addEventListener(type, listener) { this.listeners[type].push(listener); }
      close() {}
      send() { throw new Error('not open'); }
    }
    const hub = client(withEventStreamFallback(Blocked, options));
    const watcher = client(WebSocket);
    await watcher.join('todo/fallback-mixed');
    await until(() => hub.status === 'open', 'the fallback connection', 10000);
    await hub.join('todo/fallback-mixed');
    await hub.dispatch('todo/fallback-mixed', { type: 'add', title: 'over HTTP' });
    await until(() => watcher.reactor('todo/fallback-mixed').confirmedState.items.length === 1, 'the WebSocket watcher to see the item');
    assert.equal(watcher.reactor('todo/fallback-mixed').confirmedState.items[0].title, 'over HTTP');
    await watcher.dispatch('todo/fallback-mixed', { type: 'add', title: 'over WebSocket' });
    await until(() => hub.reactor('todo/fallback-mixed').confirmedState.items.length === 2, 'the fallback to see the second item');
  });
});

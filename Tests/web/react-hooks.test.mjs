// reactorhub/react against a real daemon, rendered by Debian's React 18 and
// react-test-renderer: the packed package in a project's node_modules (helpers/package.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { liveSuite, startDaemon, until, OUTPUT } from './helpers/processes.mjs';
import { DEBIAN_MODULES, consumerProject } from './helpers/package.mjs';
import { DelayProxy } from './helpers/proxy.mjs';

liveSuite('React hooks against a live daemon', import.meta.url, () => {
  let daemon;
  let proxy;
  let hub;  // reactorhub, as the project imports it
  let hooks; // reactorhub/react
  let React;
  let TestRenderer;
  const clients = [];
  const renderers = [];

  before(async () => {
    mkdirSync(OUTPUT, { recursive: true });
    daemon = await startDaemon({ logLevel: 'warning' }, join(OUTPUT, 'node-react-daemon.log'));
    proxy = await DelayProxy.start(daemon.port, { upMs: 80, downMs: 80 });
    const modules = join(consumerProject(), 'node_modules');
    const load = async (path) => import(pathToFileURL(join(modules, path)).href);
    hub = await load('reactorhub/reactorhub.js');
    hooks = await load('reactorhub/react.js');
    React = (await load('react/index.js')).default;
    TestRenderer = (await load('react-test-renderer/index.js')).default;
  });

  after(async () => {
    for (const renderer of renderers) renderer.unmount();
    await Promise.all(clients.map((c) => c.close()));
    await proxy?.close();
    await daemon?.stop();
  });

  function client(url = daemon.url, options = {}) {
    const c = hub.connect(url, { initialDelayMs: 20, maxDelayMs: 200, ...options });
    clients.push(c);
    return c;
  }

  // A component that calls `hook` and records each render's result.
  function render(hook, ...args) {
    const renders = [];
    function Probe() {
      renders.push(hook(...args));
      return null;
    }
    const renderer = TestRenderer.create(React.createElement(Probe));
    renderers.push(renderer);
    return { renders, renderer, last: () => renders.at(-1) };
  }

  // The frames of `type` a client sent for `address`.
  function sentFrames(c, type, address) {
    const frames = [];
    c.on('frame', (frame) => { if (frame.direction === 'out' && frame.message?.type === type && frame.message.reactor === address) frames.push(frame.message); });
    return frames;
  }

  test('useReactor renders the state, re-renders with the prediction before the ack, then with another client\'s patch', async () => {
    const c = client(proxy.url);
    const address = 'doc/hooks-render';
    const { renders, last } = render(hooks.useReactor, c, address);
    assert.equal(renders[0].state, undefined);
    assert.equal(renders[0].version, null);
    await until(() => last().version === 0 && last().status === 'open', 'the first snapshot rendered');
    assert.deepEqual(last().state, {});
    assert.equal(last().error, null);
    const acked = last().dispatch({ type: 'set', path: '/title', value: 'Buy milk' });
    await until(() => last().pending === 1, 'the predicted render');
    assert.deepEqual(last().state, { title: 'Buy milk' }, 'shown before the ack');
    assert.deepEqual(last().confirmedState, {});
    assert.equal(last().version, 0);
    assert.equal((await acked).applied, 1);
    await until(() => last().pending === 0, 'the confirmation');
    assert.equal(last().version, 1);
    assert.equal(last().state, last().confirmedState);
    const other = client();
    await other.join(address);
    await other.dispatch(address, { type: 'set', path: '/by', value: 'other' });
    await until(() => last().version === 2, 'the other client\'s patch rendered');
    assert.deepEqual(last().state, { title: 'Buy milk', by: 'other' });
  });

  test('useReactor re-renders on its reactor\'s state only: not for pulses, presence or other reactors', async () => {
    const c = client();
    const address = 'doc/hooks-quiet';
    const elsewhere = 'doc/hooks-elsewhere';
    const { renders, last } = render(hooks.useReactor, c, address);
    await until(() => last().version === 0 && last().status === 'open', 'joined');
    await c.join(elsewhere);
    const other = client();
    await other.join(address);
    await other.join(elsewhere);
    const before = renders.length;
    await other.dispatch(address, { type: 'emit', name: 'cursor', value: 3 });              // a pulse
    await (await other.join(address)).setPresence({ typing: true });                       // presence
    await other.dispatch(elsewhere, { type: 'set', path: '/x', value: 1 });                // another reactor
    await other.dispatch(address, { type: 'set', path: '/barrier', value: true });         // this reactor
    await until(() => last().version === 1, 'the barrier rendered');
    assert.equal(renders.length, before + 1, 'one re-render: the state change');
    assert.equal(c.reactor(elsewhere).version, 1, 'the other reactor did change meanwhile');
  });

  test('one join per address however many components hold it; the leave after the last unmount', async () => {
    const c = client();
    const address = 'doc/hooks-shared';
    const joins = sentFrames(c, 'join', address);
    const leaves = sentFrames(c, 'leave', address);
    function Pair({ both }) {
      return React.createElement(React.Fragment, null,
        React.createElement(Holder, { hook: hooks.useReactor }),
        both ? React.createElement(Holder, { hook: hooks.useReactor }) : null,
        both ? React.createElement(Holder, { hook: hooks.usePresence }) : null);
    }
    const seen = [];
    function Holder({ hook }) {
      seen.push(hook(c, address));
      return null;
    }
    const renderer = TestRenderer.create(React.createElement(Pair, { both: true }));
    await until(() => c.reactor(address)?.version === 0, 'joined');
    assert.equal(seen.filter((view) => 'others' in view).length >= 1, true, 'usePresence rendered');
    assert.equal(joins.length, 1, 'one join for three hooks');
    renderer.update(React.createElement(Pair, { both: false }));
    await c.ping(); // a round trip: a leave would have been sent before it
    assert.equal(leaves.length, 0, 'still held by one component');
    renderer.unmount();
    await until(() => leaves.length === 1, 'the leave');
    await until(() => c.reactor(address) === undefined, 'the reactor forgotten');
    assert.equal(joins.length, 1);
  });

  test('useSyncStatus follows the connection and the unconfirmed actions across reactors', async () => {
    const p = await DelayProxy.start(daemon.port);
    const c = client(p.url);
    try {
      const address = 'doc/hooks-sync';
      await c.join(address);
      const { renders, last } = render(hooks.useSyncStatus, c);
      await until(() => last().status === 'open', 'open');
      assert.equal(last().pending, 0);
      p.goDown();
      await until(() => last().status === 'reconnecting', 'reconnecting rendered');
      const queued = [c.dispatch(address, { type: 'set', path: '/a', value: 1 }), c.dispatch(address, { type: 'set', path: '/b', value: 2 })];
      await until(() => last().pending === 2, 'two unsent rendered');
      p.up();
      await Promise.all(queued);
      await until(() => last().pending === 0 && last().status === 'open', 'all confirmed');
      const statuses = renders.map((r) => r.status).filter((s, i, all) => s !== all[i - 1]);
      assert.deepEqual(statuses.slice(-3), ['open', 'reconnecting', 'open']);
      assert.deepEqual(renders.map((r) => r.pending).filter((n, i, all) => n !== all[i - 1]), [0, 1, 2, 1, 0]);
    } finally {
      await c.close();
      await p.close();
    }
  });

  test('usePresence: others without this connection, a count with it once set, and set', async () => {
    const c = client();
    const address = 'doc/hooks-presence';
    const { last } = render(hooks.usePresence, c, address);
    await until(() => c.reactor(address)?.version === 0, 'joined');
    assert.deepEqual(last().others, []);
    assert.equal(last().count, 0);
    await last().set({ cursor: 1 });
    await until(() => last().count === 1, 'own presence counted');
    assert.deepEqual(last().others, []);
    const other = client();
    const handle = await other.join(address);
    await handle.setPresence({ cursor: 7 });
    await until(() => last().count === 2, 'the other counted');
    assert.deepEqual(last().others.map((o) => o.state), [{ cursor: 7 }]);
    assert.equal(last().others[0].session, other.hello.session);
    await other.leave(address);
    await until(() => last().count === 1 && last().others.length === 0, 'the other left');
  });

  test('useReactor reports the error that refused the join', async () => {
    const c = client();
    const { last } = render(hooks.useReactor, c, 'nope/x');
    await until(() => last().error !== null, 'the refusal rendered');
    assert.ok(last().error instanceof hub.ReactorHubError);
    assert.equal(last().error.code, 'unknown_reactor');
    assert.equal(last().state, undefined);
  });
}, { nodePath: DEBIAN_MODULES });

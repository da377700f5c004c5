// reactorhub/react: React 18 hooks over a ReactorHubClient (CLIENTS.md "A package for web
// developers"; docs/web-client.md "React hooks").
//
//   const todo = useReactor(client, 'todo/lobby');   // {state, confirmedState, version, pending, status, dispatch, error}
//   const { others, count, set } = usePresence(client, 'todo/lobby');
//   const { status, pending } = useSyncStatus(client);
//
// The hooks hold an address while any of them is mounted: one join however many components use
// it, one leave after the last unmount. They re-render on what they return only: useReactor on
// the reactor's state changes (shown state, version, pending) and the connection's status, not on
// pulses, presence or other reactors.
import { useCallback, useSyncExternalStore } from 'react';

// What the hooks of one client share for one address: who holds it, and the cached results.
class AddressStore {
  constructor(client, address) {
    this.client = client;
    this.address = address;
    this.holders = 0;
    this.listeners = new Set();
    this.error = null;
    this.reactorView = null;
    this.presenceView = null;
    this.unsubscribe = [];
  }

  // Every hook subscribes through here: the first holder joins and listens to the client.
  subscribe(listener) {
    this.listeners.add(listener);
    this.holders += 1;
    if (this.holders === 1 && this.unsubscribe.length === 0) this.hold();
    return () => {
      this.listeners.delete(listener);
      this.holders -= 1;
      // A remount in the same commit (StrictMode, a moved component) keeps the join.
      if (this.holders === 0) queueMicrotask(() => { if (this.holders === 0) this.release(); });
    };
  }

  hold() {
    const { client, address } = this;
    const notify = () => { for (const listener of [...this.listeners]) listener(); };
    const mine = (at) => at === address;
    this.unsubscribe = [
      client.on('state', (at) => { if (mine(at)) notify(); }),
      client.on('status', notify),
      client.on('presence', (at) => { if (mine(at)) notify(); }),
    ];
    this.error = null;
    client.join(address, { onError: (error) => { this.error = error; notify(); } }).catch((error) => {
      if (error.code === 'left' || error.code === 'closed') return;
      this.error = error;
      notify();
    });
  }

  release() {
    for (const off of this.unsubscribe.splice(0)) off();
    if (this.client.status !== 'closed') this.client.leave(this.address).catch(() => {});
  }

  // The result of useReactor, the same object until something in it changed.
  reactorSnapshot() {
    const handle = this.client.reactor(this.address);
    const next = {
      state: handle?.state, confirmedState: handle?.confirmedState, version: handle?.version ?? null,
      pending: handle?.pending ?? 0, status: connectionStatus(this.client), error: this.error,
    };
    const last = this.reactorView;
    if (last && Object.keys(next).every((key) => last[key] === next[key])) return last;
    this.reactorView = next;
    return next;
  }

  presenceSnapshot() {
    const handle = this.client.reactor(this.address);
    const others = handle?.others ?? [];
    const count = handle?.presenceTotal ?? 0;
    const last = this.presenceView;
    if (last && last.count === count && last.others.length === others.length && last.others.every((entry, i) => entry === others[i])) return last;
    this.presenceView = { others, count };
    return this.presenceView;
  }
}

const stores = new WeakMap(); // client -> Map(address -> AddressStore)

// The connection's status; a client not opened yet ('idle') is reported as connecting.
const connectionStatus = (client) => (client.status === 'idle' ? 'connecting' : client.status);

function storeFor(client, address) {
  let byAddress = stores.get(client);
  if (!byAddress) stores.set(client, (byAddress = new Map()));
  let store = byAddress.get(address);
  if (!store) byAddress.set(address, (store = new AddressStore(client, address)));
  return store;
}

/** The reactor at `address`, joined while the component is mounted: `{state, confirmedState,
 *  version, pending, status, dispatch, error}`; `dispatch(action)` is bound to the address. */
export function useReactor(client, address) {
  const store = storeFor(client, address);
  const subscribe = useCallback((listener) => store.subscribe(listener), [store]);
  const view = useSyncExternalStore(subscribe, () => store.reactorSnapshot());
  const dispatch = useCallback((action) => client.dispatch(address, action), [client, address]);
  return { ...view, dispatch };
}

/** Who else is in the reactor at `address` (held like useReactor): `{others, count, set}`. */
export function usePresence(client, address) {
  const store = storeFor(client, address);
  const subscribe = useCallback((listener) => store.subscribe(listener), [store]);
  const view = useSyncExternalStore(subscribe, () => store.presenceSnapshot());
  const set = useCallback((state) => {
    const handle = client.reactor(address);
    return handle ? handle.setPresence(state) : client.join(address).then((joined) => joined.setPresence(state));
  }, [client, address]);
  return { ...view, set };
}

/** The connection's status and this client's unconfirmed actions across reactors. */
export function useSyncStatus(client) {
  const subscribe = useCallback((listener) => {
    const offStatus = client.on('status', listener);
    const offPending = client.on('pending', listener);
    return () => { offStatus(); offPending(); };
  }, [client]);
  const status = useSyncExternalStore(subscribe, () => connectionStatus(client));
  const pending = useSyncExternalStore(subscribe, () => client.pending);
  return { status, pending };
}

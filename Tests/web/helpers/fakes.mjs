// Test doubles for web/reactorhub.js: a WebSocket driven by the test, and manual timers.

/** A WebSocket the test drives: `open()`, `receive(message)`, `serverClose(code)`; `sent` holds
 *  what the client sent (parsed). Every instance is recorded in `FakeWebSocket.instances`. */
export class FakeWebSocket {
  static instances = [];
  static CONNECTING = 0;
  static OPEN = 1;
  static CLOSING = 2;
  static CLOSED = 3;

  constructor(url, protocols) {
    this.url = url;
    this.protocols = protocols;
    this.readyState = FakeWebSocket.CONNECTING;
    this.protocol = '';
    this.sent = [];
    this.closedByClient = null;
    this.onopen = this.onmessage = this.onclose = this.onerror = null;
    FakeWebSocket.instances.push(this);
  }

  static reset() {
    FakeWebSocket.instances = [];
    FakeWebSocket.answersClose = true;
  }

  static get last() {
    return FakeWebSocket.instances[FakeWebSocket.instances.length - 1];
  }

  send(data) {
    if (this.readyState !== FakeWebSocket.OPEN) throw new Error('send on a socket that is not open');
    this.sent.push(JSON.parse(data));
  }

  /** Whether a close by the client is answered by the server (its close event follows in a
   *  microtask, as the closing handshake ends); false plays a server that never answers. */
  static answersClose = true;

  close(code = 1000, reason = '') {
    this.closedByClient = { code, reason };
    const wasOpen = this.readyState === FakeWebSocket.OPEN;
    this.readyState = wasOpen ? FakeWebSocket.CLOSING : FakeWebSocket.CLOSED;
    if (wasOpen && FakeWebSocket.answersClose) {
      queueMicrotask(() => {
        this.readyState = FakeWebSocket.CLOSED;
        this.onclose?.({ code, reason, wasClean: true });
      });
    }
  }

  // -- driven by the test --
  open(protocol = 'reactorhub.v1', hello = true) {
    this.readyState = FakeWebSocket.OPEN;
    this.protocol = protocol;
    this.onopen?.({ type: 'open' });
    if (hello) this.receive({ type: 'hello', protocol: 1, server: 'fake/1', session: 'c1', reactors: {} });
  }

  receive(message) {
    this.onmessage?.({ data: typeof message === 'string' ? message : JSON.stringify(message) });
  }

  serverClose(code = 1006, reason = '') {
    this.readyState = FakeWebSocket.CLOSED;
    this.onclose?.({ code, reason, wasClean: code !== 1006 });
  }

  /** The last message sent of a type (and reactor). */
  lastSent(type, reactor) {
    return [...this.sent].reverse().find((m) => m.type === type && (reactor === undefined || m.reactor === reactor));
  }
}

/** setTimeout/clearTimeout that only run when the test advances the clock. */
export class ManualTimers {
  constructor() {
    this.now = 0;
    this.nextId = 1;
    this.queue = new Map();
    this.setTimeout = (fn, ms) => {
      const id = this.nextId++;
      this.queue.set(id, { fn, at: this.now + ms, ms });
      return id;
    };
    this.clearTimeout = (id) => this.queue.delete(id);
  }

  /** The delays of the timers waiting now. */
  get pendingDelays() {
    return [...this.queue.values()].map((t) => t.ms);
  }

  advance(ms) {
    const until = this.now + ms;
    for (;;) {
      const due = [...this.queue.entries()].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.queue.delete(due[0]);
      this.now = due[1].at;
      due[1].fn();
    }
    this.now = until;
  }
}

/** Lets pending promise callbacks run. */
export const flush = () => new Promise((resolve) => setImmediate(resolve));

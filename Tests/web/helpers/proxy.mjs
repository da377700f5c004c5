// A TCP proxy on a free loopback port in front of a daemon, for the live tests of prediction and
// of the offline queue: it adds latency to each direction (bytes keep their order), counts what
// it forwards, drops every connection on demand, and can refuse new ones while "down".
import { createServer, createConnection } from 'node:net';

export class DelayProxy {
  /** A proxy to 127.0.0.1:`targetPort` with `upMs` of added latency towards the daemon and
   *  `downMs` towards the client. */
  static async start(targetPort, { upMs = 0, downMs = 0 } = {}) {
    const proxy = new DelayProxy(targetPort, upMs, downMs);
    await proxy.listen(0);
    return proxy;
  }

  constructor(targetPort, upMs, downMs) {
    this.targetPort = targetPort;
    this.upMs = upMs;
    this.downMs = downMs;
    this.pairs = new Set();
    this.accepted = 0;
    this.forwarded = { up: 0, down: 0 }; // bytes delivered after their delay
    this.down = false;
  }

  listen(port) {
    this.server = createServer((client) => this._accept(client));
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.port = this.server.address().port;
        resolve();
      });
    });
  }

  get url() { return `ws://127.0.0.1:${this.port}/ws`; }

  get httpUrl() { return `http://127.0.0.1:${this.port}/`; }

  _accept(client) {
    if (this.down) {
      client.destroy();
      return;
    }
    this.accepted += 1;
    const upstream = createConnection({ port: this.targetPort, host: '127.0.0.1' });
    const pair = { client, upstream, timers: new Set(), closed: false };
    this.pairs.add(pair);
    this._pipe(pair, client, upstream, 'up');
    this._pipe(pair, upstream, client, 'down');
    const end = () => this._close(pair);
    for (const socket of [client, upstream]) {
      socket.on('error', end);
      socket.on('close', end);
    }
  }

  // Forwards `from` → `to` after the direction's delay; a chunk never overtakes an earlier one.
  _pipe(pair, from, to, direction) {
    let lastAt = 0;
    from.on('data', (chunk) => {
      const delay = direction === 'up' ? this.upMs : this.downMs;
      const at = Math.max(Date.now() + delay, lastAt);
      lastAt = at;
      const deliver = () => {
        if (pair.closed) return;
        this.forwarded[direction] += chunk.length;
        to.write(chunk);
      };
      if (at <= Date.now()) {
        deliver();
        return;
      }
      const timer = setTimeout(() => { pair.timers.delete(timer); deliver(); }, at - Date.now());
      pair.timers.add(timer);
    });
  }

  // Closes both sides at once; bytes still delayed are lost, as on a network that went away.
  _close(pair) {
    if (pair.closed) return;
    pair.closed = true;
    for (const timer of pair.timers) clearTimeout(timer);
    pair.client.destroy();
    pair.upstream.destroy();
    this.pairs.delete(pair);
  }

  /** Drops every connection now (no close frame: the client sees 1006). */
  dropAll() {
    for (const pair of [...this.pairs]) this._close(pair);
  }

  /** Drops every connection and refuses new ones until `up()`. */
  goDown() {
    this.down = true;
    this.dropAll();
  }

  up() {
    this.down = false;
  }

  async close() {
    this.dropAll();
    await new Promise((resolve) => this.server.close(() => resolve()));
  }
}

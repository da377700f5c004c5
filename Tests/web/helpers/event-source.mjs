// A minimal EventSource for Node (which has none): enough of the WHATWG interface for
// EventStreamSocket over plain HTTP. Named events, `data`, `id` (kept and sent back as
// Last-Event-ID when it reconnects after the stream ended), comments skipped; a non-200
// answer closes it for good (readyState 2) after an `error` event, as browsers do.
import { request } from 'node:http';

export class NodeEventSource {
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    this.lastEventId = '';
    this.listeners = new Map();
    this.opened = 0; // connections made
    this.connect();
  }

  addEventListener(type, listener) {
    if (!this.listeners.has(type)) this.listeners.set(type, []);
    this.listeners.get(type).push(listener);
  }

  dispatch(type, event) {
    for (const listener of this.listeners.get(type) ?? []) listener(event);
  }

  connect() {
    const headers = { Accept: 'text/event-stream' };
    if (this.lastEventId) headers['Last-Event-ID'] = this.lastEventId;
    this.request = request(this.url, { headers }, (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        this.readyState = 2;
        this.dispatch('error', { type: 'error' });
        return;
      }
      this.readyState = 1;
      this.opened += 1;
      let buffer = '';
      let fields = {};
      response.setEncoding('utf8');
      response.on('data', (chunk) => {
        buffer += chunk;
        let newline;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (line === '') {
            if (fields.data !== undefined) {
              if (fields.id !== undefined) this.lastEventId = fields.id;
              this.dispatch(fields.event ?? 'message', { type: fields.event ?? 'message', data: fields.data, lastEventId: this.lastEventId });
            }
            fields = {};
          } else if (!line.startsWith(':')) {
            const colon = line.indexOf(':');
            const value = line.slice(colon + 1);
            fields[line.slice(0, colon)] = value.startsWith(' ') ? value.slice(1) : value;
          }
        }
      });
      response.on('end', () => this.dropped());
    });
    this.request.on('error', () => this.dropped());
    this.request.end();
  }

  dropped() {
    if (this.readyState === 2) return;
    this.readyState = 0;
    this.dispatch('error', { type: 'error' });
    setTimeout(() => { if (this.readyState === 0) this.connect(); }, 50);
  }

  close() {
    this.readyState = 2;
    this.request?.destroy();
  }
}

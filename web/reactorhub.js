// reactorhub.js: a dependency-free client for the ReactorHub protocol v1 (docs/protocol.md).
//
//   import { connect } from './reactorhub.js';
//   const hub = connect('ws://127.0.0.1:8080/ws');   // or several: connect(['wss://a/ws', 'wss://b/ws'])
//   await hub.join('counter/lobby', { onState: (state) => render(state), onPulse: (name, value) => toast(value) });
//   await hub.dispatch('counter/lobby', 'increase');     // shown at once where a predictor says what it does
//   const todo = await hub.join('todo/lobby', { onPresence: (others) => showWho(others) });
//   await todo.setPresence({ editing: 'item-1' });         // todo.others: everyone else here
//
// Works in browsers and in Node (pass `WebSocket` in the options when there is no global one).
// Documented in docs/web-client.md.

export const PROTOCOL = 'reactorhub.v1';
const ADDRESS = /^[a-z][a-z0-9-]{0,31}\/[A-Za-z0-9._-]{1,64}$/;
const OPEN = 1;

/** An error refused by the server (`code` is the protocol's error code: `forbidden`,
 *  `unauthenticated`, …) or raised by the client (`disconnected`, `not_connected`, `closed`, `left`,
 *  `not_joined`, `queue_full`, `invalid_reactor`, `invalid_presence`, `bad_frame`, `bad_patch`,
 *  `timeout`, `token_unavailable`). */
export class ReactorHubError extends Error {
  constructor(code, message, details = {}) {
    super(message);
    this.name = 'ReactorHubError';
    this.code = code;
    Object.assign(this, details);
  }
}

/** Raised by applyPatch when an operation does not apply; `index` is the operation's position. */
export class PatchError extends Error {
  constructor(message, index, operation) {
    super(index === undefined ? message : `operation ${index}: ${message}`);
    this.name = 'PatchError';
    this.index = index;
    this.operation = operation;
  }
}

export function isValidAddress(address) {
  return typeof address === 'string' && ADDRESS.test(address);
}

// ---------------------------------------------------------------------------------------------
// JSON values and RFC 6902 JSON Patch

const hasOwn = (object, key) => Object.prototype.hasOwnProperty.call(object, key);
const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

// Plain assignment of "__proto__" would change the prototype instead of adding a member.
function setMember(object, key, value) {
  if (key === '__proto__') {
    Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    object[key] = value;
  }
}

function shallowCopy(node) {
  if (Array.isArray(node)) return node.slice();
  const copy = {};
  for (const key of Object.keys(node)) setMember(copy, key, node[key]);
  return copy;
}

/** A deep copy of a JSON value. */
export function cloneJSON(value) {
  if (Array.isArray(value)) return value.map(cloneJSON);
  if (isObject(value)) {
    const copy = {};
    for (const key of Object.keys(value)) setMember(copy, key, cloneJSON(value[key]));
    return copy;
  }
  return value;
}

/** Structural equality of two JSON values (member order does not matter). */
export function jsonEqual(a, b) {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => jsonEqual(item, b[index]));
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((key) => hasOwn(b, key) && jsonEqual(a[key], b[key]));
  }
  return false;
}

/** Splits an RFC 6901 JSON Pointer into its unescaped reference tokens. */
export function parsePointer(pointer) {
  if (typeof pointer !== 'string') throw new PatchError(`a JSON Pointer must be a string, got ${typeof pointer}`);
  if (pointer === '') return [];
  if (pointer[0] !== '/') throw new PatchError(`JSON Pointer '${pointer}' must be empty or start with '/'`);
  return pointer.slice(1).split('/').map((token) => {
    if (/~(?![01])/.test(token)) throw new PatchError(`JSON Pointer '${pointer}' has an invalid escape (only ~0 and ~1)`);
    return token.replace(/~1/g, '/').replace(/~0/g, '~');
  });
}

const INDEX = /^(0|[1-9][0-9]*)$/;

// The array index a token names; `allowEnd` admits the length itself and '-' (add only).
function arrayIndex(array, token, pointer, allowEnd) {
  if (token === '-' && allowEnd) return array.length;
  if (!INDEX.test(token)) throw new PatchError(`'${token}' in '${pointer}' is not an array index`);
  const index = Number(token);
  if (index > array.length || (index === array.length && !allowEnd)) {
    throw new PatchError(`index ${index} in '${pointer}' is out of bounds (array length ${array.length})`);
  }
  return index;
}

function child(node, token, pointer) {
  if (Array.isArray(node)) return node[arrayIndex(node, token, pointer, false)];
  if (isObject(node)) {
    if (!hasOwn(node, token)) throw new PatchError(`'${pointer}' does not exist (no member '${token}')`);
    return node[token];
  }
  throw new PatchError(`'${pointer}' does not exist (a ${node === null ? 'null' : typeof node} has no members)`);
}

function valueAt(root, tokens, pointer) {
  let node = root;
  for (const token of tokens) node = child(node, token, pointer);
  return node;
}

// Returns a new root in which the parent of the target was copied (with every node on the way
// down) and handed to `edit(parentCopy, lastToken)`. Untouched subtrees are shared.
function edited(root, tokens, pointer, edit) {
  const descend = (node, depth) => {
    if (!Array.isArray(node) && !isObject(node)) {
      throw new PatchError(`'${pointer}' does not exist (a ${node === null ? 'null' : typeof node} has no members)`);
    }
    const copy = shallowCopy(node);
    const token = tokens[depth];
    if (depth === tokens.length - 1) {
      edit(copy, token);
    } else if (Array.isArray(node)) {
      const index = arrayIndex(node, token, pointer, false);
      copy[index] = descend(node[index], depth + 1);
    } else {
      setMember(copy, token, descend(child(node, token, pointer), depth + 1));
    }
    return copy;
  };
  return descend(root, 0);
}

function addValue(root, tokens, pointer, value) {
  if (tokens.length === 0) return value;
  return edited(root, tokens, pointer, (parent, token) => {
    if (Array.isArray(parent)) parent.splice(arrayIndex(parent, token, pointer, true), 0, value);
    else setMember(parent, token, value);
  });
}

function removeValue(root, tokens, pointer) {
  if (tokens.length === 0) throw new PatchError('cannot remove the whole document');
  return edited(root, tokens, pointer, (parent, token) => {
    if (Array.isArray(parent)) parent.splice(arrayIndex(parent, token, pointer, false), 1);
    else if (hasOwn(parent, token)) delete parent[token];
    else throw new PatchError(`'${pointer}' does not exist (no member '${token}')`);
  });
}

function replaceValue(root, tokens, pointer, value) {
  if (tokens.length === 0) return value;
  return edited(root, tokens, pointer, (parent, token) => {
    if (Array.isArray(parent)) parent[arrayIndex(parent, token, pointer, false)] = value;
    else if (hasOwn(parent, token)) setMember(parent, token, value);
    else throw new PatchError(`'${pointer}' does not exist (no member '${token}')`);
  });
}

function member(operation, name, type) {
  if (!hasOwn(operation, name)) throw new PatchError(`'${operation.op}' needs a '${name}' member`);
  const value = operation[name];
  if (type && typeof value !== type) throw new PatchError(`'${name}' must be a ${type}`);
  return value;
}

function applyOperation(document, operation) {
  if (!isObject(operation)) throw new PatchError('an operation must be an object');
  const op = member(operation, 'op', 'string');
  const pointer = member(operation, 'path', 'string');
  const path = parsePointer(pointer);
  switch (op) {
    case 'add':
      return addValue(document, path, pointer, cloneJSON(member(operation, 'value')));
    case 'remove':
      return removeValue(document, path, pointer);
    case 'replace':
      valueAt(document, path, pointer); // the target must exist
      return replaceValue(document, path, pointer, cloneJSON(member(operation, 'value')));
    case 'test': {
      const expected = member(operation, 'value');
      if (!jsonEqual(valueAt(document, path, pointer), expected)) throw new PatchError(`test failed: '${pointer}' is not equal to the given value`);
      return document;
    }
    case 'move': {
      const fromPointer = member(operation, 'from', 'string');
      const from = parsePointer(fromPointer);
      const value = valueAt(document, from, fromPointer);
      if (fromPointer === pointer) return document;
      if (path.length > from.length && from.every((token, i) => token === path[i])) {
        throw new PatchError(`cannot move '${fromPointer}' into its own child '${pointer}'`);
      }
      return addValue(removeValue(document, from, fromPointer), path, pointer, value);
    }
    case 'copy': {
      const fromPointer = member(operation, 'from', 'string');
      const value = valueAt(document, parsePointer(fromPointer), fromPointer);
      return addValue(document, path, pointer, cloneJSON(value));
    }
    default:
      throw new PatchError(`unknown operation '${op}' (add, remove, replace, move, copy, test)`);
  }
}

/**
 * Applies an RFC 6902 JSON Patch and returns the new document. Atomic: when an operation fails
 * it throws a PatchError and `document` is unchanged (it is never mutated; unchanged subtrees
 * are shared with the result).
 */
export function applyPatch(document, patch) {
  if (!Array.isArray(patch)) throw new PatchError('a JSON Patch must be an array of operations');
  let result = document;
  patch.forEach((operation, index) => {
    try {
      result = applyOperation(result, operation);
    } catch (error) {
      if (error instanceof PatchError && error.index === undefined) throw new PatchError(error.message, index, operation);
      throw error;
    }
  });
  return result;
}

// ---------------------------------------------------------------------------------------------
// Prediction (CLIENTS.md "Prediction"): the shown state is the confirmed one with this client's
// pending actions replayed on top by predictors, pure functions (state, action) → state.

// The `doc` kind's own operations, as the server applies them (DocumentEdits): `set` adds or
// replaces a member, replaces an array element or appends at `-` or at the length; `remove`
// removes; `patch` applies RFC 6902 all or nothing. `emit` changes no state.
function docSet(state, { path, value }) {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return isObject(value) ? cloneJSON(value) : undefined;
  const parentTokens = tokens.slice(0, -1);
  const parent = valueAt(state, parentTokens, path);
  const last = tokens[tokens.length - 1];
  if (isObject(parent) || (Array.isArray(parent) && (last === '-' || Number(last) === parent.length))) {
    return addValue(state, tokens, path, cloneJSON(value));
  }
  if (Array.isArray(parent)) return replaceValue(state, tokens, path, cloneJSON(value));
  return undefined;
}

function docRemove(state, { path }) {
  const tokens = parsePointer(path);
  return tokens.length === 0 ? undefined : removeValue(state, tokens, path);
}

/** The predictors the client brings: the `doc` kind's `set`, `remove` and `patch`. */
export const builtInPredictors = Object.freeze({
  doc: Object.freeze({ set: docSet, remove: docRemove, patch: (state, { ops }) => applyPatch(state, ops) }),
});

// The shown state: `confirmed` with each pending action's prediction on top, in sending order.
// A predictor that returns undefined, throws, or (for a state that is an object) returns
// something else than an object predicts nothing for that action.
function predictedState(confirmed, records) {
  let state = confirmed;
  for (const record of records) {
    if (!record.predictor) continue;
    let next;
    try {
      next = record.predictor(state, record.action);
    } catch {
      continue;
    }
    if (next !== undefined && (!isObject(state) || isObject(next))) state = next;
  }
  return state;
}

// ---------------------------------------------------------------------------------------------
// Tokens

function base64UrlDecode(text) {
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4);
  const binary = globalThis.atob(base64);
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

// The payload of a JWT, read without verifying anything; undefined when the text is not a JWT.
function tokenPayload(token) {
  if (typeof token !== 'string') return undefined;
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const payload = JSON.parse(base64UrlDecode(parts[1]));
    return payload !== null && typeof payload === 'object' ? payload : undefined;
  } catch {
    return undefined;
  }
}

/** The `exp` of a JWT (seconds since 1970), read from its payload without verifying anything;
 *  undefined when the text is not a JWT or has no numeric `exp`. */
export function tokenExpiry(token) {
  const exp = tokenPayload(token)?.exp;
  return typeof exp === 'number' && Number.isFinite(exp) ? exp : undefined;
}

// ---------------------------------------------------------------------------------------------
// The client

const DEFAULTS = {
  protocols: [PROTOCOL],
  reconnect: true,
  // Actions carry an id; after a reconnect, the ones sent but never answered are sent
  // again with the same id once their reactor is joined (the server answers a repeat with
  // the first reply, marked duplicate, and does not apply it twice).
  resendActions: true,
  initialDelayMs: 250,
  maxDelayMs: 8000,
  backoffFactor: 2,
  jitter: 0.5,
  heartbeatMs: 0,
  heartbeatTimeoutMs: 10000,
  token: null,
  tokenRefreshLeadMs: 30000,
  // How long close() waits for the server's answer to its close frame.
  closeTimeoutMs: 1000,
  // Actions dispatched and not sent yet (offline, or before their reactor's join was answered):
  // past this many, dispatch rejects with queue_full.
  maxQueuedActions: 1000,
  // {KIND: {ACTION_TYPE: (state, action) => newState}}; `doc` is predicted by the client itself
  // unless `{doc: false}`.
  predictors: {},
};

// The page's window in a browser (whose pagehide and pageshow the client follows), else null.
function browserWindow() {
  const page = globalThis.window;
  return page === globalThis && typeof page.addEventListener === 'function' ? page : null;
}

function monotonicNow() {
  return globalThis.performance?.now ? globalThis.performance.now() : Date.now();
}

// Runs a user callback; an exception is reported asynchronously so that it reaches the console
// (or the process) without breaking the processing of the frame.
function safely(callback, ...args) {
  if (typeof callback !== 'function') return;
  try {
    callback(...args);
  } catch (error) {
    queueMicrotask(() => { throw error; });
  }
}

// One entry of a presence map: `{session, user, state}` (user null without a token's sub).
function presenceEntry(session, value) {
  return Object.freeze({ session, user: typeof value?.user === 'string' ? value.user : null, state: value?.state ?? null });
}

// The presence members of a snapshot or `resumed`: the entries by session, or only a count.
function presenceOf(message) {
  const entries = new Map();
  if (typeof message.presenceCount === 'number') return { entries, count: message.presenceCount };
  if (isObject(message.presence)) {
    for (const [session, value] of Object.entries(message.presence)) entries.set(session, presenceEntry(session, value));
  }
  return { entries, count: null };
}

/**
 * A joined reactor, as `join` (and `client.reactor(address)`) gives it: what the client holds for
 * it (read live: the shown and the confirmed state, the version, the pending actions) and its
 * presence (PROTOCOL.md "Presence"). The same handle for every join of the address until it is
 * left; after that its `setPresence` rejects with `left`.
 */
export class ReactorHandle {
  constructor(client, entry) {
    this.address = entry.address;
    Object.defineProperty(this, '_client', { value: client });
    Object.defineProperty(this, '_entry', { value: entry });
  }

  /** The shown state: the confirmed state with this client's pending actions predicted on top
   *  (never mutated: each change makes a new object). The confirmed state itself when nothing is
   *  pending. */
  get state() { return this._entry.state; }

  /** The server's state at `version`, exactly as its snapshots and patches made it. */
  get confirmedState() { return this._entry.confirmed; }

  get epoch() { return this._entry.epoch; }

  /** The version of the confirmed state. */
  get version() { return this._entry.version; }

  /** This client's actions on the reactor that are queued, sent, or acknowledged with their
   *  `applied` version not reached yet, predicted or not. */
  get pending() { return this._entry.actions.length; }

  /** `client.dispatch(address, action)` for this reactor. */
  dispatch(action) { return this._client.dispatch(this.address, action); }

  /** The other connections' presence here, `[{session, user, state}]`, this connection's own
   *  entry left out; in the order they first appeared (a changed state keeps its place). Empty
   *  when the server sends only a count. */
  get others() { return this._client._others(this._entry); }

  /** How many connections have a presence here (this one included once it set one) when the
   *  server sends only the count (past `presence.maxListed`); null while it lists the entries. */
  get presenceCount() { return this._entry.presenceCount; }

  /** How many connections have a presence here, this one included once it set one: the
   *  server's count past `presence.maxListed`, else the entries it listed. */
  get presenceTotal() { return this._entry.presenceCount ?? this._entry.presence.size; }

  /** Sets this connection's presence here (a JSON object; null clears it). Resolves at the ack;
   *  rejects with the server's error, `disconnected`, `left`, `closed` or `invalid_presence`.
   *  Sent once the reactor is joined, and set again after each reconnect (a presence belongs to
   *  a connection). */
  setPresence(state) { return this._client._setPresence(this._entry, state); }
}

export class ReactorHubClient {
  constructor(url, options = {}) {
    // Several URLs (the nodes of a cluster): a connection that fails or drops moves on to the next.
    this.urls = Array.isArray(url) ? [...url] : [url];
    if (this.urls.length === 0 || this.urls.some((each) => typeof each !== 'string' || each === '')) {
      throw new TypeError('reactorhub: connect needs a URL or a non-empty array of URLs');
    }
    this._urlIndex = 0;
    this.options = { ...DEFAULTS, ...options };
    this._WebSocket = options.WebSocket ?? globalThis.WebSocket;
    if (typeof this._WebSocket !== 'function') {
      throw new TypeError('reactorhub: no WebSocket implementation; pass options.WebSocket');
    }
    this._setTimeout = options.setTimeout ?? ((fn, ms) => globalThis.setTimeout(fn, ms));
    this._clearTimeout = options.clearTimeout ?? ((id) => globalThis.clearTimeout(id));
    this._random = options.random ?? Math.random;
    this._now = options.now ?? monotonicNow;
    this._wallNow = options.wallNow ?? (() => Date.now());
    this.status = 'idle';
    this.hello = null;
    this.user = null;
    this.tokenExpires = null;
    this.attempt = 0;
    this._token = typeof options.token === 'string' ? options.token : null; // the token in hand
    this._tokenStale = false; // the token in hand was refused or ran out: fetch another
    this._tokenRequest = 0;   // the latest call of the token function; older answers are ignored
    this._sentToken = null;   // the token of the current connection's upgrade
    this._refreshTimer = null;
    this._socket = null;
    this._listeners = new Map();
    this._reactors = new Map();
    this._pending = new Map();
    this._pendingActions = 0; // the count last announced by the 'pending' event
    this._nextRef = 1;
    this._reconnectTimer = null;
    this._heartbeatTimer = null;
    this._closed = false;
    this._page = options.page !== undefined ? options.page : browserWindow();
    this._onPageHide = () => this._pageHidden();
    this._onPageShow = (event) => { if (event?.persisted) this.reconnectNow(); };
    this._page?.addEventListener('pagehide', this._onPageHide);
    this._page?.addEventListener('pageshow', this._onPageShow);
    // Listeners given in the options see the first 'connecting' status too.
    for (const [event, listener] of Object.entries(options.on ?? {})) this.on(event, listener);
  }

  // -- events ----------------------------------------------------------------------------------

  /** Subscribes to 'status', 'frame', 'hello', 'state', 'pulse', 'presence', 'left' or 'error'; returns an unsubscribe function. */
  on(event, listener) {
    if (!this._listeners.has(event)) this._listeners.set(event, new Set());
    this._listeners.get(event).add(listener);
    return () => this.off(event, listener);
  }

  off(event, listener) {
    this._listeners.get(event)?.delete(listener);
  }

  _emit(event, ...args) {
    for (const listener of [...(this._listeners.get(event) ?? [])]) safely(listener, ...args);
  }

  _setStatus(status, detail = {}) {
    if (this.status === status && status !== 'reconnecting') return;
    this.status = status;
    this._emit('status', status, detail);
  }

  // -- connection ------------------------------------------------------------------------------

  /** Opens the connection (connect() calls it). */
  open() {
    if (this._socket || this._closed) return this;
    this._setStatus('connecting');
    this._openSocket();
    return this;
  }

  /** The URL of the current connection (or of the next attempt). */
  get url() { return this.urls[this._urlIndex]; }

  get isOpen() {
    return this._socket !== null && this._socket.readyState === OPEN && this.status === 'open';
  }

  // Gets the token for the next connection (when there is one), then opens the socket.
  _openSocket() {
    this._reconnectTimer = null;
    let token;
    try {
      token = this._tokenForConnection();
    } catch (error) {
      this._tokenFailed(error);
      return;
    }
    if (token && typeof token.then === 'function') {
      const request = this._tokenRequest;
      token.then(
        (value) => {
          if (request !== this._tokenRequest || this._closed || this._socket) return;
          try {
            this._openSocketWith(value);
          } catch (error) {
            this._scheduleReconnect({ error }); // the first attempt's constructor failure, asynchronously
          }
        },
        (error) => { if (request === this._tokenRequest && !this._closed && !this._socket) this._tokenFailed(error); },
      );
      return;
    }
    this._openSocketWith(token);
  }

  // The token to open the next connection with: the one in hand, unless the token option is a
  // function and the token in hand is missing, stale (a 1008 close, an upgrade that did not open)
  // or past its exp; then a fresh one from the function (a string, or a promise of one).
  _tokenForConnection() {
    const source = this.options.token;
    if (typeof source !== 'function') return source ?? null;
    if (this._token !== null && !this._tokenStale && !this._expired(this._token)) return this._token;
    return this._fetchToken();
  }

  _fetchToken() {
    const request = ++this._tokenRequest;
    const result = this.options.token();
    if (result && typeof result.then === 'function') {
      return result.then((value) => (request === this._tokenRequest ? this._acceptToken(value) : value));
    }
    return this._acceptToken(result);
  }

  _acceptToken(value) {
    if (typeof value !== 'string' || value === '') {
      throw new ReactorHubError('token_unavailable', `the token function gave ${value === '' ? 'an empty string' : typeof value}, not a token`);
    }
    this._token = value;
    this._tokenStale = false;
    return value;
  }

  _expired(token) {
    const exp = tokenExpiry(token);
    return exp !== undefined && exp * 1000 <= this._wallNow();
  }

  // The token function threw or rejected: reported, and tried again after the backoff delay.
  _tokenFailed(error) {
    const failure = error instanceof ReactorHubError ? error : new ReactorHubError('token_unavailable', `no token for the connection: ${error?.message ?? error}`, { cause: error });
    this._emit('error', failure);
    if (this.options.reconnect) {
      this._scheduleReconnect({ error: failure });
    } else {
      this._closed = true;
      this._setStatus('closed', { error: failure });
      this._failJoins('closed', 'no token for the connection and reconnect is off');
    }
  }

  /** The URL of a connection: `url` with `?token=` (browsers cannot set headers on a WebSocket). */
  _connectionUrl(token) {
    if (!token) return this.url;
    return `${this.url}${this.url.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}`;
  }

  _openSocketWith(token) {
    let socket;
    try {
      socket = new this._WebSocket(this._connectionUrl(token), this.options.protocols);
    } catch (error) {
      if (this.attempt === 0 && this.status === 'connecting') throw error;
      this._scheduleReconnect({ error });
      return;
    }
    this._socket = socket;
    this._sentToken = token || null;
    let opened = false;
    socket.onopen = () => {
      if (socket !== this._socket) return;
      opened = true;
      this._setStatus('open', { protocol: socket.protocol });
      this._startHeartbeat();
      for (const entry of this._reactors.values()) this._sendJoin(entry, true);
    };
    socket.onmessage = (event) => {
      if (socket === this._socket) this._receive(event.data);
    };
    socket.onclose = (event) => {
      if (socket === this._socket) this._lost(event?.code ?? 1006, event?.reason ?? '', opened);
    };
    // Once open, a close event follows an error. Before it opened, Node's WebSocket (undici)
    // fires only the error when the upgrade is refused (a 401 or 403): that attempt is over.
    socket.onerror = () => {
      if (socket === this._socket && !opened) this._lost(1006, '', false);
    };
  }

  // The connection is gone (closed by the server, the network, or given up by the heartbeat).
  // After a 1008 (`token expired`, `revoked`, `authentication timeout`), or an upgrade that never
  // opened (a browser shows a 401 that way), the token in hand is not used again. The next attempt
  // goes to the next URL. A 1008 without a token function to get another token from ends the
  // client: the same token (or none) would be refused again at every reconnect.
  _lost(code, reason, opened = true) {
    const socket = this._socket;
    this._socket = null;
    this._stopHeartbeat();
    this._stopRefresh();
    if (code === 1008 || !opened) this._tokenStale = true;
    this._urlIndex = (this._urlIndex + 1) % this.urls.length;
    if (socket) {
      socket.onopen = socket.onmessage = socket.onclose = socket.onerror = null;
      if (socket.readyState < 2) { try { socket.close(); } catch { /* already closing */ } }
    }
    this._failPending('disconnected', (p) => `the connection closed (code ${code}${reason ? `, ${reason}` : ''}) before the reply to ${p.kind} ${p.ref}${p.address ? ` on ${p.address}` : ''}`);
    for (const entry of this._reactors.values()) entry.resyncing = false;
    if (this._closed) {
      this._setStatus('closed', { code, reason });
    } else if (code === 1008 && typeof this.options.token !== 'function') {
      this._endRefused(code, reason);
    } else if (this.options.reconnect) {
      this._scheduleReconnect({ code, reason });
    } else {
      this._closed = true;
      this._setStatus('closed', { code, reason });
      this._failActions('closed', (r) => `the connection closed and reconnect is off before action ${r.id} on ${r.address} was answered`);
      this._failJoins('closed', 'the connection closed and reconnect is off');
    }
  }

  // The server ended the session for want of a valid token (1008) and no token function can give
  // another: closed for good, with the reason, instead of a reconnect loop.
  _endRefused(code, reason) {
    const error = new ReactorHubError('unauthenticated', `the server closed the connection (${code}${reason ? ` ${reason}` : ''}) and there is no token function to get another token from`, { closeCode: code, closeReason: reason });
    this._closed = true;
    this._clearTimersAndPage();
    this._failActions('unauthenticated', () => error.message);
    this._failJoins('unauthenticated', error.message);
    this._emit('error', error);
    this._setStatus('closed', { code, reason, error });
  }

  /** The delay before reconnect attempt `attempt` (0-based): exponential, capped, minus jitter. */
  backoffDelay(attempt) {
    const { initialDelayMs, maxDelayMs, backoffFactor, jitter } = this.options;
    const base = Math.min(maxDelayMs, initialDelayMs * backoffFactor ** attempt);
    return Math.round(base * (1 - jitter * this._random()));
  }

  _scheduleReconnect(detail) {
    const delayMs = this.backoffDelay(this.attempt);
    this.attempt += 1;
    this._setStatus('reconnecting', { ...detail, attempt: this.attempt, delayMs });
    this._reconnectTimer = this._setTimeout(() => this._openSocket(), delayMs);
  }

  /** Skips the remaining backoff delay and reconnects at once (e.g. when the browser comes back online). */
  reconnectNow() {
    if (this._closed || this._reconnectTimer === null) return;
    this._clearTimeout(this._reconnectTimer);
    this._openSocket();
  }

  // A page that goes into the back/forward cache keeps its sockets open (Chromium does), and so
  // its connection and its presence would stay in every reactor it had joined: the connection is
  // closed (1001) as if it dropped, and the pageshow of a restored page reconnects at once.
  _pageHidden() {
    const socket = this._socket;
    if (!socket || this._closed) return;
    try { socket.close(1001, 'page hidden'); } catch { /* not open yet */ }
    this._lost(1001, 'page hidden');
  }

  _clearTimersAndPage() {
    this._page?.removeEventListener('pagehide', this._onPageHide);
    this._page?.removeEventListener('pageshow', this._onPageShow);
    if (this._reconnectTimer !== null) this._clearTimeout(this._reconnectTimer);
    this._reconnectTimer = null;
    this._stopHeartbeat();
    this._stopRefresh();
  }

  /**
   * Closes the connection for good: no reconnect; pending requests and joins are rejected with
   * `closed`. Sends the close frame (`code`, 1000 by default) and returns a promise that resolves
   * once the server answered it and the socket is closed, or after `closeTimeoutMs` (1 s): a
   * program that exits after `await client.close()` leaves the server a normal close, not 1006.
   */
  close(code = 1000, reason = '') {
    if (this._closed) return this._closing ?? Promise.resolve();
    this._closed = true;
    this._clearTimersAndPage();
    const socket = this._socket;
    this._socket = null;
    this._closing = Promise.resolve();
    if (socket) {
      socket.onopen = socket.onmessage = socket.onerror = null;
      const wasOpen = socket.readyState === OPEN;
      this._closing = wasOpen ? new Promise((resolve) => {
        const timer = this._setTimeout(resolve, this.options.closeTimeoutMs);
        socket.onclose = () => { this._clearTimeout(timer); resolve(); };
      }) : Promise.resolve();
      if (!wasOpen) socket.onclose = null;
      try { socket.close(code, reason); } catch { /* not open yet */ }
    }
    this._failPending('closed', (p) => `the client was closed before the reply to ${p.kind} ${p.ref}`);
    this._failActions('closed', (r) => `the client was closed before action ${r.id} on ${r.address} was answered`);
    this._failJoins('closed', 'the client was closed');
    this._setStatus('closed', { code, reason });
    return this._closing;
  }

  _startHeartbeat() {
    if (!this.options.heartbeatMs) return;
    this._heartbeatTimer = this._setTimeout(() => {
      const socket = this._socket;
      const timeout = this._setTimeout(() => {
        if (socket === this._socket) this._lost(4000, 'heartbeat timeout');
      }, this.options.heartbeatTimeoutMs);
      this.ping().then(() => {
        this._clearTimeout(timeout);
        if (socket === this._socket) this._startHeartbeat();
      }, () => this._clearTimeout(timeout));
    }, this.options.heartbeatMs);
  }

  _stopHeartbeat() {
    if (this._heartbeatTimer !== null) this._clearTimeout(this._heartbeatTimer);
    this._heartbeatTimer = null;
  }

  // -- tokens ----------------------------------------------------------------------------------

  /**
   * Fetches a fresh token from the token function and sends it in an `auth` message. Resolves
   * with the `authed` reply; rejects with a ReactorHubError (`unauthenticated`, `forbidden` for
   * a token of another user, `not_connected`, `token_unavailable`). The client calls it by itself
   * `tokenRefreshLeadMs` before the token's `exp`.
   */
  refreshToken() {
    if (typeof this.options.token !== 'function') {
      return Promise.reject(new ReactorHubError('token_unavailable', 'refreshToken needs the token option to be a function'));
    }
    let fetched;
    try {
      fetched = Promise.resolve(this._fetchToken());
    } catch (error) {
      return Promise.reject(error);
    }
    return fetched.then((token) => this._request('auth', { type: 'auth', token }));
  }

  // Arms the refresh of the token of this connection: `tokenRefreshLeadMs` before `exp` (at half
  // the time left when that is shorter), when a token function can give a fresh one.
  _scheduleRefresh(exp) {
    this._stopRefresh();
    if (typeof this.options.token !== 'function' || typeof exp !== 'number') return;
    const remaining = exp * 1000 - this._wallNow();
    const lead = Math.min(this.options.tokenRefreshLeadMs, Math.max(0, remaining) / 2);
    this._refreshTimer = this._setTimeout(() => {
      this._refreshTimer = null;
      this.refreshToken().catch((error) => {
        // The server closes the connection at exp (1008); the reconnect then fetches a token.
        if (error.code !== 'not_connected' && error.code !== 'disconnected' && error.code !== 'closed') this._emit('error', error);
      });
    }, Math.max(0, remaining - lead));
  }

  _stopRefresh() {
    if (this._refreshTimer !== null) this._clearTimeout(this._refreshTimer);
    this._refreshTimer = null;
  }

  // -- sending ---------------------------------------------------------------------------------

  _send(message) {
    const socket = this._socket;
    if (!socket || socket.readyState !== OPEN) return false;
    const data = JSON.stringify(message);
    socket.send(data);
    this._emit('frame', { direction: 'out', data, message, time: this._now() });
    return true;
  }

  _request(kind, message, address) {
    if (!this.isOpen) {
      return Promise.reject(new ReactorHubError('not_connected', `cannot send ${kind}${address ? ` to ${address}` : ''}: the connection is ${this.status}`));
    }
    const ref = this._nextRef++;
    return new Promise((resolve, reject) => {
      this._pending.set(ref, { kind, ref, address, resolve, reject, sentAt: this._now() });
      this._send({ ...message, ref });
    });
  }

  // The replies still awaited are lost (the connection dropped, or the client closed). An action
  // sent and not answered goes back to its reactor's queue, to be sent again with its id once the
  // reactor is joined again (resendActions); otherwise it is dropped (a rollback) and rejects.
  _failPending(code, describe) {
    const pending = [...this._pending.values()];
    this._pending.clear();
    const keep = code === 'disconnected' && this.options.resendActions && this.options.reconnect && !this._closed;
    const changed = new Set();
    for (const p of pending) {
      if (p.kind === 'join') continue; // re-sent on reconnect; its promise is the entry's
      if (p.kind === 'action') {
        const entry = this._reactors.get(p.address);
        if (keep && entry?.actions.includes(p.record)) {
          p.record.status = 'queued';
          continue;
        }
        if (entry && this._removeAction(entry, p.record)) changed.add(entry);
        p.record.reject(new ReactorHubError(code, describe(p), { ref: p.ref, reactor: p.address }));
        continue;
      }
      p.reject(new ReactorHubError(code, describe(p), { ref: p.ref, reactor: p.address }));
    }
    for (const entry of changed) this._localChange(entry, 'rollback');
  }

  // Every action of every reactor is given up (the client is closed): each rejects with `code`.
  _failActions(code, describe) {
    for (const entry of this._reactors.values()) this._dropActions(entry, code, describe);
    this._announcePending();
  }

  // Drops the actions of `entry` (left, refused, closed): those not answered reject with `code`.
  _dropActions(entry, code, describe, keepSent = false) {
    const records = entry.actions.splice(0);
    for (const record of records) {
      if (record.status === 'acked' || (keepSent && record.status === 'sent')) continue;
      record.reject(new ReactorHubError(code, describe(record), { ref: record.ref, reactor: entry.address }));
    }
    entry.state = entry.confirmed;
  }

  // The reactor was answered on this connection: its queued actions go, in their order (those
  // sent on an earlier connection again with their id; the server answers a repeat with the
  // first reply and never applies it twice).
  _sendQueued(entry) {
    for (const record of entry.actions) {
      if (record.status === 'queued') this._sendAction(record);
    }
  }

  _sendAction(record) {
    const ref = this._nextRef++;
    record.ref = ref;
    if (record.sends > 0) record.resent = record.sends;
    record.sends += 1;
    record.status = 'sent';
    this._pending.set(ref, { kind: 'action', ref, address: record.address, record, sentAt: this._now() });
    this._send({ ...record.message, ref });
  }

  _failJoins(code, message) {
    for (const entry of this._reactors.values()) {
      if (!entry.settled) this._settle(entry, new ReactorHubError(code, `${message} before ${entry.address} was joined`, { reactor: entry.address }));
      this._failPresence(entry, new ReactorHubError(code, `${message} before the presence in ${entry.address} was set`, { reactor: entry.address }));
    }
  }

  // -- reactors --------------------------------------------------------------------------------

  /**
   * Joins a reactor instance. `handlers`: onState(state, info), onPulse(name, value, info),
   * onPresence(others, info), onError(error). Resolves with the reactor's ReactorHandle
   * ({address, state, epoch, version, others, presenceCount, setPresence}) at its first snapshot;
   * rejects when the server refuses the join. Joining an address again adds the handlers (and
   * calls onState and onPresence with what is held) and resolves with the same handle.
   */
  join(address, handlers = {}) {
    if (!isValidAddress(address)) {
      return Promise.reject(new ReactorHubError('invalid_reactor', `'${address}' is not a reactor address KIND/ID`));
    }
    if (this._closed) return Promise.reject(new ReactorHubError('closed', 'the client is closed'));
    let entry = this._reactors.get(address);
    if (entry) {
      entry.handlers.add(handlers);
      if (entry.state !== undefined) {
        queueMicrotask(() => {
          if (this._reactors.get(address) !== entry || !entry.handlers.has(handlers)) return;
          safely(handlers.onState, entry.state, this._stateInfo(entry, 'snapshot'));
          safely(handlers.onPresence, this._others(entry), { address, cause: 'snapshot', presenceCount: entry.presenceCount });
        });
      }
      return entry.ready;
    }
    entry = {
      address, state: undefined, epoch: null, version: null, handlers: new Set([handlers]), resyncing: false, settled: false,
      confirmed: undefined, // the server's state at `version`; `state` is what is shown (predictions on top)
      actions: [],          // this client's pending actions here, in sending order
      presence: new Map(), // session -> {session, user, state}, everyone's (ours too)
      presenceCount: null, // the server's count instead of the entries, past presence.maxListed
      live: null,          // the socket on which the reactor was last answered (snapshot or resumed)
      ownPresence: undefined, // the presence last given to setPresence (undefined: never; null: cleared)
      presenceSocket: null,   // the socket on which ownPresence was sent
      presenceWaiters: [],    // setPresence calls waiting for the reactor to be answered on this connection
    };
    entry.handle = new ReactorHandle(this, entry);
    entry.ready = new Promise((resolve, reject) => { entry.resolve = resolve; entry.reject = reject; });
    this._reactors.set(address, entry);
    if (this.isOpen) this._sendJoin(entry, false);
    return entry.ready;
  }

  _settle(entry, error) {
    if (entry.settled) return;
    entry.settled = true;
    if (error) entry.reject(error);
    else entry.resolve(entry.handle);
  }

  // Sends a join; with `resume`, asks for the missed patches since the held version.
  _sendJoin(entry, resume) {
    const ref = this._nextRef++;
    const message = { type: 'join', reactor: entry.address, ref };
    if (resume && entry.state !== undefined && entry.epoch !== null) {
      message.since = { epoch: entry.epoch, version: entry.version };
    }
    this._pending.set(ref, { kind: 'join', ref, address: entry.address });
    entry.joinRef = ref;
    this._send(message);
  }

  // A patch did not fit: join again (the server answers with a fresh snapshot, or after a
  // reconnect with the missed patches).
  _resync(entry, resume) {
    if (entry.resyncing) return;
    entry.resyncing = true;
    if (this.isOpen) this._sendJoin(entry, resume);
  }

  /** Leaves a reactor: its handlers are dropped at once; resolves at the server's `left`. */
  leave(address) {
    const entry = this._reactors.get(address);
    if (!entry) return Promise.resolve();
    this._reactors.delete(address);
    this._settle(entry, new ReactorHubError('left', `${address} was left before its first snapshot`, { reactor: address }));
    // Actions in flight on this connection are still answered; the queued ones are given up.
    this._dropActions(entry, 'left', (r) => `${address} was left before action ${r.id} was sent again or answered`, true);
    this._announcePending();
    this._failPresence(entry, new ReactorHubError('left', `${address} was left before the presence was set`, { reactor: address }));
    if (!this.isOpen) return Promise.resolve();
    return this._request('leave', { type: 'leave', reactor: address }, address).then(() => undefined);
  }

  /**
   * Dispatches an action (an object with `type`, or a bare string) to a joined reactor. Its
   * predictor (the `predictors` option; `doc` has the client's own) changes the shown state at
   * once. It is sent now when the reactor's join was answered on the open connection, else
   * queued with its id and sent once it is (at most `maxQueuedActions` waiting: past that it
   * rejects with `queue_full`). Resolves with the ack {reactor, ref, version, applied, id,
   * duplicate}; on a refusal the prediction is dropped (the shown state goes back in one
   * change) and the promise rejects with the server's error.
   */
  dispatch(address, action) {
    if (this._closed) return Promise.reject(new ReactorHubError('closed', 'the client is closed', { reactor: address }));
    const entry = this._reactors.get(address);
    if (!entry) {
      return Promise.reject(new ReactorHubError('not_joined', `cannot send an action to ${address}: join it first`, { reactor: address }));
    }
    const live = this.isOpen && entry.live === this._socket;
    if (!live && this._queuedCount() >= this.options.maxQueuedActions) {
      return Promise.reject(new ReactorHubError('queue_full', `cannot queue an action for ${address}: ${this.options.maxQueuedActions} actions are waiting to be sent (maxQueuedActions)`, { reactor: address }));
    }
    const normalized = typeof action === 'string' ? { type: action } : action;
    const id = this._actionId();
    const record = {
      id, address, action: normalized, message: { type: 'action', reactor: address, action, id },
      predictor: this._predictor(address, normalized), status: 'queued', sends: 0, ref: undefined, applied: undefined, epoch: null,
    };
    const promise = new Promise((resolve, reject) => { record.resolve = resolve; record.reject = reject; });
    entry.actions.push(record);
    this._localChange(entry, 'predicted');
    if (live) this._sendAction(record);
    return promise;
  }

  // The predictor of an action: the app's (predictors[KIND][TYPE]), else the client's own for
  // `doc` unless `predictors: {doc: false}`; undefined when there is none.
  _predictor(address, action) {
    const kind = address.slice(0, address.indexOf('/'));
    const type = isObject(action) && typeof action.type === 'string' ? action.type : undefined;
    if (type === undefined) return undefined;
    const own = this.options.predictors?.[kind];
    if (own === false) return undefined;
    if (isObject(own) && hasOwn(own, type) && typeof own[type] === 'function') return own[type];
    const builtIn = builtInPredictors[kind];
    return builtIn && hasOwn(builtIn, type) ? builtIn[type] : undefined;
  }

  // Actions dispatched and never sent, across reactors.
  _queuedCount() {
    let count = 0;
    for (const entry of this._reactors.values()) {
      for (const record of entry.actions) if (record.sends === 0) count += 1;
    }
    return count;
  }

  /** This client's unconfirmed actions across reactors (queued, sent, or acknowledged with their
   *  `applied` version not reached yet): a page can warn before unload while it is not 0. */
  get pending() {
    let count = 0;
    for (const entry of this._reactors.values()) count += entry.actions.length;
    return count;
  }

  // Emits 'pending' (the client's count) when it changed since it was last announced.
  _announcePending() {
    const count = this.pending;
    if (count === this._pendingActions) return;
    this._pendingActions = count;
    this._emit('pending', count);
  }

  _removeAction(entry, record) {
    const index = entry.actions.indexOf(record);
    if (index < 0) return false;
    entry.actions.splice(index, 1);
    return true;
  }

  // Whether an acknowledged action is in the confirmed state now: its `applied` version is
  // reached, or the reactor's history started afresh (another epoch) since its ack.
  _confirmed(entry, record) {
    return record.status === 'acked' && (record.epoch !== entry.epoch || entry.version >= record.applied);
  }

  _dropConfirmed(entry) {
    const before = entry.actions.length;
    if (before === 0) return false;
    entry.actions = entry.actions.filter((record) => !this._confirmed(entry, record));
    return entry.actions.length !== before;
  }

  // Recomputes the shown state from the confirmed one and what is pending.
  _rebase(entry) {
    entry.state = entry.confirmed === undefined || entry.actions.length === 0
      ? entry.confirmed
      : predictedState(entry.confirmed, entry.actions);
  }

  // A change of ours (a prediction, a confirmation without a patch, a rollback): one state
  // change for the handlers, once the reactor has a state.
  _localChange(entry, cause) {
    this._rebase(entry);
    if (entry.confirmed !== undefined && this._reactors.get(entry.address) === entry) this._notify(entry, cause);
    this._announcePending();
  }

  _acked(record, ack) {
    const entry = this._reactors.get(record.address);
    record.status = 'acked';
    record.applied = typeof ack.applied === 'number' ? ack.applied : ack.version;
    record.epoch = entry?.epoch ?? null;
    if (entry && entry.actions.includes(record) && this._confirmed(entry, record)) {
      this._removeAction(entry, record);
      this._localChange(entry, 'confirmed');
    }
    record.resolve({ reactor: ack.reactor, ref: ack.ref, version: ack.version, applied: record.applied, id: record.id, duplicate: ack.duplicate === true });
  }

  // Refused: the prediction goes at once (one state change), then the promise rejects.
  _refused(record, error) {
    const entry = this._reactors.get(record.address);
    if (entry && this._removeAction(entry, record)) this._localChange(entry, 'rollback');
    record.reject(error);
  }

  // A fresh action id: a random UUID where the platform has one.
  _actionId() {
    const uuid = globalThis.crypto?.randomUUID?.();
    if (uuid) return uuid;
    const hex = () => Math.floor(this._random() * 0x100000000).toString(16).padStart(8, '0');
    return `${hex()}-${hex()}-${hex()}-${hex()}`;
  }

  /** Round trip to the server; resolves with the time it took in milliseconds. */
  ping() {
    const sentAt = this._now();
    return this._request('ping', { type: 'ping' }).then(() => this._now() - sentAt);
  }

  // -- presence --------------------------------------------------------------------------------

  _others(entry) {
    const own = this.hello?.session;
    return [...entry.presence.values()].filter((p) => p.session !== own);
  }

  _setPresence(entry, state) {
    const address = entry.address;
    if (state !== null && !isObject(state)) {
      return Promise.reject(new ReactorHubError('invalid_presence', `a presence state is a JSON object, or null to clear it; got ${Array.isArray(state) ? 'an array' : typeof state}`, { reactor: address }));
    }
    if (this._closed) return Promise.reject(new ReactorHubError('closed', 'the client is closed', { reactor: address }));
    if (this._reactors.get(address) !== entry) {
      return Promise.reject(new ReactorHubError('left', `${address} was left: join it again to set a presence`, { reactor: address }));
    }
    entry.ownPresence = state;
    if (this.isOpen && entry.live === this._socket) return this._sendPresence(entry);
    return new Promise((resolve, reject) => entry.presenceWaiters.push({ resolve, reject }));
  }

  _sendPresence(entry) {
    entry.presenceSocket = this._socket;
    return this._request('presence', { type: 'presence', reactor: entry.address, state: entry.ownPresence }, entry.address).then(() => undefined);
  }

  // The reactor was answered (snapshot or resumed) on the current connection: a presence not
  // set on it yet is sent now (a new connection has none, so a cleared one needs nothing).
  _presenceLive(entry) {
    entry.live = this._socket;
    const waiters = entry.presenceWaiters.splice(0);
    let sent = Promise.resolve();
    if (entry.presenceSocket !== this._socket && isObject(entry.ownPresence)) {
      sent = this._sendPresence(entry);
      if (waiters.length === 0) {
        sent.catch((error) => { if (error.code !== 'disconnected' && error.code !== 'closed') this._emit('error', error); });
      }
    }
    for (const waiter of waiters) sent.then(waiter.resolve, waiter.reject);
  }

  _failPresence(entry, error) {
    for (const waiter of entry.presenceWaiters.splice(0)) waiter.reject(error);
  }

  _notifyPresence(entry, cause, extra = {}) {
    const others = this._others(entry);
    const info = { address: entry.address, cause, presenceCount: entry.presenceCount, ...extra };
    for (const handlers of [...entry.handlers]) safely(handlers.onPresence, others, info);
    this._emit('presence', entry.address, others, info);
  }

  _rebuildPresence(entry, message, cause) {
    const { entries, count } = presenceOf(message);
    entry.presence = entries;
    entry.presenceCount = count;
    this._notifyPresence(entry, cause);
  }

  // `{"type":"presence",…}`: joins set (a changed state keeps its place), leaves remove; or a
  // count. Back to entries after a count, only the changes came: join again for the whole map.
  _onPresence(message) {
    const entry = this._reactors.get(message.reactor);
    if (!entry || entry.state === undefined) return;
    if (typeof message.presenceCount === 'number') {
      entry.presence = new Map();
      entry.presenceCount = message.presenceCount;
      this._notifyPresence(entry, 'presence', { joins: [], leaves: [] });
      return;
    }
    const joins = isObject(message.joins) ? Object.entries(message.joins) : [];
    const leaves = Array.isArray(message.leaves) ? message.leaves.filter((s) => typeof s === 'string') : [];
    for (const [session, value] of joins) entry.presence.set(session, presenceEntry(session, value));
    for (const session of leaves) entry.presence.delete(session);
    if (entry.presenceCount !== null) {
      entry.presenceCount = null;
      this._resync(entry, false);
    }
    this._notifyPresence(entry, 'presence', { joins: joins.map(([session]) => session), leaves });
  }

  /** The handle of a joined (or being joined) address (state, confirmedState, epoch, version,
   *  pending, presence), or undefined. */
  reactor(address) {
    return this._reactors.get(address)?.handle;
  }

  /** The addresses currently joined (or being joined). */
  get addresses() {
    return [...this._reactors.keys()];
  }

  // -- receiving -------------------------------------------------------------------------------

  _receive(data) {
    let message;
    try {
      message = JSON.parse(typeof data === 'string' ? data : String(data));
    } catch {
      this._emit('frame', { direction: 'in', data, message: undefined, time: this._now() });
      this._emit('error', new ReactorHubError('bad_frame', 'the server sent a frame that is not JSON'));
      return;
    }
    this._emit('frame', { direction: 'in', data, message, time: this._now() });
    if (message === null || typeof message !== 'object') return;
    const pending = message.ref !== undefined ? this._pending.get(message.ref) : undefined;
    if (pending && message.type !== 'patch' && message.type !== 'pulse') this._pending.delete(message.ref);
    switch (message.type) {
      case 'hello':
        this.hello = message;
        this.attempt = 0;
        this.user = message.user ?? null;
        this.tokenExpires = this._sentToken ? tokenExpiry(this._sentToken) ?? null : null;
        this._scheduleRefresh(this.tokenExpires);
        this._emit('hello', message);
        break;
      case 'authed':
        this.user = message.user ?? null;
        this.tokenExpires = message.expires ?? null;
        this._scheduleRefresh(this.tokenExpires);
        pending?.resolve(message);
        break;
      case 'left':
        if (pending) pending.resolve(message);
        else if (message.reason) this._leftByServer(message.reactor, message.reason);
        break;
      case 'snapshot':
        this._onSnapshot(message, pending);
        break;
      case 'resumed':
        this._onResumed(message, pending);
        break;
      case 'patch':
        this._onPatch(message);
        break;
      case 'pulse':
        this._onPulse(message);
        break;
      case 'presence':
        this._onPresence(message);
        break;
      case 'error':
        this._onError(message, pending);
        break;
      case 'ack':
        if (pending?.kind === 'action') this._acked(pending.record, message);
        else pending?.resolve(message);
        break;
      case 'pong':
        pending?.resolve(message);
        break;
      default:
        break; // a newer server may send more; ignore
    }
  }

  _stateInfo(entry, cause, extra = {}) {
    const pending = entry.actions.length;
    return { address: entry.address, epoch: entry.epoch, version: entry.version, cause, predicted: pending > 0, pending, ...extra };
  }

  _notify(entry, cause, extra = {}) {
    const info = this._stateInfo(entry, cause, extra);
    for (const handlers of [...entry.handlers]) safely(handlers.onState, entry.state, info);
    this._emit('state', entry.address, entry.state, info);
  }

  // A reply to a join of ours that is no longer the entry's latest (the reactor was left and
  // joined again meanwhile): the reply to the latest join follows.
  _superseded(entry, pending) {
    return pending !== undefined && pending.kind === 'join' && entry.joinRef !== pending.ref;
  }

  _onSnapshot(message, pending) {
    const entry = this._reactors.get(message.reactor);
    if (!entry || this._superseded(entry, pending)) return;
    // A fresh history (another epoch) keeps what was not answered yet: it is predicted on top
    // of the new state and sent again; what was acknowledged in the old history is dropped.
    entry.confirmed = message.state;
    entry.epoch = message.epoch;
    entry.version = message.version;
    entry.resyncing = false;
    this._dropConfirmed(entry);
    this._rebase(entry);
    this._notify(entry, 'snapshot');
    this._rebuildPresence(entry, message, 'snapshot');
    this._presenceLive(entry);
    this._settle(entry);
    this._sendQueued(entry);
    this._announcePending();
  }

  _onResumed(message, pending) {
    const entry = this._reactors.get(message.reactor);
    if (!entry || this._superseded(entry, pending)) return;
    // `version` is the server's current version; the missed patches follow and bring the held
    // state there. Another epoch, or a version behind ours, means the history is not ours.
    if (entry.state === undefined || message.epoch !== entry.epoch || message.version < entry.version) {
      entry.resyncing = false;
      this._resync(entry, false);
      return;
    }
    entry.resyncing = false;
    this._notify(entry, 'resumed', { target: message.version });
    this._rebuildPresence(entry, message, 'resumed');
    this._presenceLive(entry);
    this._settle(entry);
    this._sendQueued(entry);
  }

  _onPatch(message) {
    const entry = this._reactors.get(message.reactor);
    if (!entry || entry.state === undefined) return;
    const base = message.base ?? message.version - 1;
    if (base !== entry.version) {
      if (message.version > entry.version) this._resync(entry, true); // a gap: we missed something
      return; // otherwise already applied
    }
    let state;
    try {
      state = applyPatch(entry.confirmed, message.patch);
    } catch (error) {
      this._emit('error', new ReactorHubError('bad_patch', `patch ${message.version} for ${entry.address} does not apply: ${error.message}`, { reactor: entry.address }));
      this._resync(entry, false);
      return;
    }
    // Every patch rebases: the shown state is the new confirmed one with what is still pending.
    entry.confirmed = state;
    entry.version = message.version;
    this._dropConfirmed(entry);
    this._rebase(entry);
    this._notify(entry, 'patch', { patch: message.patch });
    this._announcePending();
  }

  _onPulse(message) {
    const entry = this._reactors.get(message.reactor);
    if (!entry) return;
    const info = { address: entry.address, version: message.version };
    for (const handlers of [...entry.handlers]) safely(handlers.onPulse, message.name, message.value, info);
    this._emit('pulse', entry.address, message.name, message.value, info);
  }

  _onError(message, pending) {
    const error = new ReactorHubError(message.code ?? 'internal', message.message ?? 'the server refused the message', { ref: message.ref, reactor: pending?.address });
    if (!pending) {
      this._emit('error', error);
      return;
    }
    if (pending.kind === 'action') {
      this._refused(pending.record, error);
      return;
    }
    if (pending.kind !== 'join') {
      pending.reject(error);
      return;
    }
    const entry = this._reactors.get(pending.address);
    if (!entry || entry.joinRef !== pending.ref) return;
    entry.resyncing = false;
    for (const handlers of [...entry.handlers]) safely(handlers.onError, error);
    if (entry.state === undefined) {
      this._reactors.delete(entry.address);
      this._settle(entry, error);
      this._failPresence(entry, error);
      this._refuseActions(entry, error);
    } else if (error.code === 'forbidden' || error.code === 'unauthenticated') {
      // A re-join (after a reconnect) that the rights no longer allow: the reactor is given up.
      this._reactors.delete(entry.address);
      this._failPresence(entry, error);
      this._refuseActions(entry, error);
      this._emit('left', entry.address, error.code);
    }
  }

  // The server left a reactor for us (`{"type":"left","reactor":…,"reason":"forbidden"}` after a
  // refresh with narrower rights): its handlers hear of it through onError, and it is forgotten.
  _leftByServer(address, reason) {
    const entry = this._reactors.get(address);
    if (!entry) return;
    this._reactors.delete(address);
    const error = new ReactorHubError(reason, `the server left ${address} (${reason})`, { reactor: address });
    for (const handlers of [...entry.handlers]) safely(handlers.onError, error);
    this._settle(entry, error);
    this._failPresence(entry, error);
    this._refuseActions(entry, error);
    this._emit('left', address, reason);
  }

  // The reactor was given up (its join refused, or left by the server): its actions reject with
  // the reason.
  _refuseActions(entry, error) {
    this._dropActions(entry, error.code, (r) => `action ${r.id} on ${entry.address} was not sent: ${error.message}`);
    this._announcePending();
  }
}

// ---------------------------------------------------------------------------------------------
// The HTTP fallback: the same protocol over Server-Sent Events and POST (docs/api-http.md)

/**
 * A stand-in for a WebSocket that speaks protocol v1 over the daemon's HTTP API, for pages behind
 * proxies that break WebSocket: one `EventSource` per joined reactor brings its snapshot, patches,
 * pulses and presence (resuming by itself with `Last-Event-ID` after a drop), and actions go as
 * `POST /api/v1/reactors/KIND/ID/actions`, answered as an `ack` or an `error`. Its `hello` comes
 * from `GET /api/v1/kinds`. Presence cannot be set over HTTP: `presence` is answered `bad_request`.
 * Pass it (or `withEventStreamFallback()`) as the client's `WebSocket` option.
 */
export class EventStreamSocket {
  static CONNECTING = 0;
  static OPEN = 1;
  static CLOSING = 2;
  static CLOSED = 3;

  constructor(url, _protocols, options = {}) {
    const parsed = new URL(url);
    this.url = url;
    this.protocol = 'reactorhub.v1+sse';
    this.readyState = EventStreamSocket.CONNECTING;
    this.onopen = this.onmessage = this.onclose = this.onerror = null;
    this._listeners = { open: [], close: [], error: [] };
    this._base = `${parsed.protocol === 'wss:' ? 'https:' : 'http:'}//${parsed.host}`;
    this._token = parsed.searchParams.get('token');
    this._EventSource = options.EventSource ?? globalThis.EventSource;
    this._fetch = options.fetch ?? ((...args) => globalThis.fetch(...args));
    this._streams = new Map(); // reactor → {source, joinRef}
    this._start();
  }

  async _start() {
    let kinds;
    try {
      const response = await this._fetch(`${this._base}/api/v1/kinds`, { headers: this._headers(), cache: 'no-store' });
      if (!response.ok) throw new Error(`GET /api/v1/kinds answered ${response.status}`);
      kinds = (await response.json()).kinds;
    } catch {
      return this._end(1006, 'the HTTP API did not answer', true);
    }
    if (this.readyState !== EventStreamSocket.CONNECTING) return;
    this.readyState = EventStreamSocket.OPEN;
    this._fire('open', {});
    const hello = { type: 'hello', protocol: 1, server: 'reactorhub over HTTP (Server-Sent Events)', session: 'http', transport: 'http', reactors: kinds };
    const subject = tokenPayload(this._token)?.sub;
    if (typeof subject === 'string') hello.user = subject;
    this._deliver(hello);
  }

  /** `open`, `close` and `error` listeners, as a WebSocket takes them. */
  addEventListener(type, listener) {
    this._listeners[type]?.push(listener);
  }

  _fire(type, event) {
    this[`on${type}`]?.(event);
    for (const listener of this._listeners[type] ?? []) listener(event);
  }

  _headers(json = false) {
    const headers = json ? { 'Content-Type': 'application/json' } : {};
    if (this._token) headers.Authorization = `Bearer ${this._token}`;
    return headers;
  }

  _deliver(message) {
    if (this.readyState === EventStreamSocket.OPEN) this.onmessage?.({ data: JSON.stringify(message) });
  }

  send(text) {
    if (this.readyState !== EventStreamSocket.OPEN) throw new Error('the connection is not open');
    const message = JSON.parse(text);
    const ref = message.ref;
    switch (message.type) {
      case 'join': return this._join(message.reactor, ref);
      case 'leave':
        this._streams.get(message.reactor)?.source.close();
        this._streams.delete(message.reactor);
        return this._deliver({ type: 'left', reactor: message.reactor, ref });
      case 'action': return this._act(message);
      case 'ping': return this._deliver({ type: 'pong', ref });
      case 'auth': {
        this._token = message.token;
        const claims = tokenPayload(message.token) ?? {};
        return this._deliver({ type: 'authed', ref, user: claims.sub ?? null, expires: claims.exp ?? null });
      }
      default:
        return this._deliver({ type: 'error', ref, code: 'bad_request', message: `'${message.type}' needs a WebSocket connection (this page follows its reactors over Server-Sent Events)` });
    }
  }

  // One EventSource per reactor: its first snapshot answers the join (with its ref); later ones
  // (after a lag, or a reconnect that could not resume) come unsolicited, as over a WebSocket.
  _join(reactor, ref) {
    this._streams.get(reactor)?.source.close();
    const query = this._token ? `?token=${encodeURIComponent(this._token)}` : '';
    const source = new this._EventSource(`${this._base}/api/v1/reactors/${reactor}/events${query}`);
    const stream = { source, joinRef: ref };
    this._streams.set(reactor, stream);
    const forward = (event) => {
      if (this._streams.get(reactor) !== stream) return;
      const message = JSON.parse(event.data);
      if (message.type === 'snapshot' && stream.joinRef !== undefined) {
        message.ref = stream.joinRef;
        stream.joinRef = undefined;
      }
      this._deliver(message);
    };
    for (const name of ['snapshot', 'patch', 'pulse', 'presence']) source.addEventListener(name, forward);
    source.addEventListener('error', (event) => {
      if (this._streams.get(reactor) !== stream) return;
      if (typeof event.data === 'string') {
        // The server refused the join (an `error` event): answered as over a WebSocket.
        source.close();
        this._streams.delete(reactor);
        this._deliver({ ...JSON.parse(event.data), ref: stream.joinRef });
      } else if (source.readyState === 2) {
        source.close();
        this._streams.delete(reactor);
        if (stream.joinRef !== undefined) return this._refused(reactor, stream.joinRef);
        // A stream that had opened, refused when it came back (an expired token): the connection
        // is over, and the client reconnects (with a fresh token).
        this._end(1006, `the event stream of ${reactor} was refused`);
      }
      // Otherwise the browser reconnects by itself and resumes with Last-Event-ID.
    });
  }

  // The stream of a join was refused before its snapshot: an EventSource does not say why, so
  // the reactor's state is asked for, which answers the same refusal (unknown_reactor, forbidden,
  // …) in its body; that is the join's error, as over a WebSocket. When the state is served, the
  // stream was refused for the connection (too many): it is over, and the client reconnects.
  async _refused(reactor, ref) {
    let response;
    let reply;
    try {
      response = await this._fetch(`${this._base}/api/v1/reactors/${reactor}`, { headers: this._headers(), cache: 'no-store' });
      reply = await response.json();
    } catch {
      return this._end(1006, `the event stream of ${reactor} was refused`);
    }
    if (response.ok || !reply?.error) return this._end(1006, `the event stream of ${reactor} was refused`);
    this._deliver({ type: 'error', ref, code: reply.error.code, message: reply.error.message });
  }

  async _act(message) {
    const body = { action: message.action };
    if (message.id !== undefined) body.id = message.id;
    let response;
    let reply;
    try {
      response = await this._fetch(`${this._base}/api/v1/reactors/${message.reactor}/actions`, {
        method: 'POST', headers: this._headers(true), body: JSON.stringify(body), cache: 'no-store',
      });
      reply = await response.json();
    } catch {
      // Not answered: the client resends it (with its id) once it has reconnected.
      return this._end(1006, 'an action could not be sent');
    }
    if (response.ok) {
      this._deliver({ type: 'ack', reactor: reply.reactor, ref: message.ref, version: reply.version, applied: reply.applied, ...(reply.duplicate ? { duplicate: true } : {}) });
    } else {
      this._deliver({ type: 'error', ref: message.ref, code: reply.error?.code ?? 'internal', message: reply.error?.message ?? `HTTP ${response.status}`, ...(reply.duplicate ? { duplicate: true } : {}) });
    }
  }

  close(code = 1000, reason = '') {
    this._end(code, reason);
  }

  _end(code, reason, failedToOpen = false) {
    if (this.readyState === EventStreamSocket.CLOSED) return;
    const wasOpen = this.readyState === EventStreamSocket.OPEN;
    this.readyState = EventStreamSocket.CLOSED;
    for (const { source } of this._streams.values()) source.close();
    this._streams.clear();
    if (failedToOpen || !wasOpen) this._fire('error', {});
    setTimeout(() => this._fire('close', { code, reason }), 0);
  }
}

/**
 * A WebSocket constructor for the client's `WebSocket` option that falls back to
 * `EventStreamSocket` when a WebSocket cannot open (a proxy that breaks it), and tries a WebSocket
 * again when the fallback cannot open either (the server is down, not the WebSocket).
 */
export function withEventStreamFallback(WebSocketImpl = globalThis.WebSocket, options = {}) {
  let useFallback = false;
  return function FallbackSocket(url, protocols) {
    const viaFallback = useFallback;
    const socket = viaFallback ? new EventStreamSocket(url, protocols, options) : new WebSocketImpl(url, protocols);
    let opened = false;
    socket.addEventListener('open', () => { opened = true; });
    const failed = () => { if (!opened) useFallback = !viaFallback; };
    socket.addEventListener('error', failed);
    socket.addEventListener('close', failed);
    return socket;
  };
}

/** Creates a client and opens its connection; `url` is one URL or an array of them (tried in turn). */
export function connect(url, options = {}) {
  return new ReactorHubClient(url, options).open();
}

/** The WebSocket URL of the daemon that served a page: ws(s)://host/ws. */
export function defaultUrl(location = globalThis.location) {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${location.host}/ws`;
}

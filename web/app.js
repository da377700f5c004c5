// The demo page: a counter, a weather search and a todo list shared by everyone in a room,
// wired to reactorhub.js, and who is in the room (the todo reactor's presence: an avatar per
// connection, and which item each one is editing). Every element the tests touch has a
// data-testid (docs/web-client.md).
import { connect, defaultUrl, withEventStreamFallback } from './reactorhub.js';

const DEFAULT_ROOM = 'lobby';
const ROOM_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
const TOAST_MS = 3000;
const ERROR_MS = 6000;
const LOG_LIMIT = 200;
const LOG_TEXT_LIMIT = 600;

const byTestId = (id, root = document) => root.querySelector(`[data-testid="${id}"]`);
const show = (element, visible) => { if (element.hidden === visible) element.hidden = !visible; };
const setText = (element, text) => { if (element.textContent !== text) element.textContent = text; };

// ---------------------------------------------------------------------------------------------
// Connection

const statusElements = {
  root: byTestId('connection-status'),
  text: byTestId('connection-status-text'),
  retry: byTestId('reconnect-now'),
  server: byTestId('server-info'),
};

const STATUS_TEXT = {
  idle: 'Not connected',
  connecting: 'Connecting…',
  open: 'Connected',
  reconnecting: 'Reconnecting…',
  closed: 'Disconnected',
  refused: 'Refused',
};

// The connection's status as last reported (read by the views to enable their controls).
let connectionStatus = 'idle';

function renderStatus(status, detail = {}) {
  if (signIn.refusal && status !== 'refused') return; // the refusal stays until the next sign-in
  connectionStatus = status;
  statusElements.root.dataset.status = status;
  let text = STATUS_TEXT[status] ?? status;
  if (status === 'reconnecting' && detail.attempt > 1) {
    text = `Reconnecting (${detail.attempt})…`;
  }
  if (status === 'refused') text = detail.text;
  setText(statusElements.text, text);
  show(statusElements.retry, status === 'reconnecting');
  document.body.classList.toggle('is-offline', status !== 'open');
  for (const view of Object.values(views)) view.updateControls();
}

function renderHello(hello) {
  setText(statusElements.server, `${hello.server} · session ${hello.session}`);
  presence.render();
  for (const [kind, view] of Object.entries(views)) {
    if (hello.reactors && !(kind in hello.reactors)) {
      view.showError(`This server has no '${kind}' reactor (it has: ${Object.keys(hello.reactors).join(', ')}).`);
    }
  }
}

statusElements.retry.addEventListener('click', () => client.reconnectNow());

// ---------------------------------------------------------------------------------------------
// Sign-in: a daemon with `auth` (config/secure.json, docs/security.md) wants a token. The page
// takes it from `?token=` in its address, else from the sign-in form (kept in sessionStorage, for
// this tab only). A refusal is named on the page and the connection stopped: no "Connected" while
// every join is refused, no silent reconnect loop.

const TOKEN_KEY = 'reactorhub.token';
// A token given and a connection that never opened after this many attempts: the browser does not
// show a refused upgrade (401) apart from a network failure, so the form is offered.
const UNOPENED_ATTEMPTS = 3;

const signIn = {
  form: byTestId('sign-in'),
  reason: byTestId('sign-in-reason'),
  input: byTestId('sign-in-token'),
  refusal: null,   // the refusal shown, until the next sign-in
  opened: false,   // a connection opened since the last sign-in
  refused: new Set(), // the kinds whose join this connection refused (forbidden, unauthenticated)

  token() {
    const fromAddress = new URLSearchParams(location.search).get('token');
    if (fromAddress) return fromAddress;
    try { return sessionStorage.getItem(TOKEN_KEY); } catch { return null; }
  },

  // Names the refusal on the page, stops the client (it would only be refused again) and offers the form.
  refuse(text, reason) {
    this.refusal = text;
    renderStatus('refused', { text });
    setText(this.reason, reason);
    show(this.form, true);
    client.close();
    if (document.activeElement === document.body || !document.activeElement) this.input.focus();
  },

  // The hello of a connection: a server that waits for a token, and none was given.
  hello(hello) {
    this.opened = true;
    if (hello.auth === 'required' && !hello.user) {
      this.refuse('Sign-in needed', 'This server needs a token (unauthenticated): every join would be refused. Sign in with a token.');
    }
  },

  status(status, detail) {
    if (status === 'closed' && detail.error?.code === 'unauthenticated') {
      const why = detail.reason ? `: ${detail.reason}` : '';
      this.refuse('Refused', `The server ended the session (${detail.code}${why}). Sign in again with a valid token.`);
    } else if (status === 'reconnecting' && !this.opened && client.options.token && detail.attempt === UNOPENED_ATTEMPTS) {
      this.checkRefusal(client, detail.attempt);
    }
  },

  // WebSocket upgrades with a token keep failing: when the daemon answers /healthz, it is up and
  // it is the token it refuses (expired, revoked, not valid here); when it does not, it is down,
  // and the client goes on reconnecting.
  async checkRefusal(checked, attempts) {
    let up = false;
    try { up = (await fetch('/healthz', { cache: 'no-store' })).ok; } catch { /* down */ }
    if (!up || checked !== client || this.opened || this.refusal) return;
    this.refuse('Refused', `The server did not accept the connection ${attempts} times while it is up: the token may be expired, revoked or not valid here. Sign in with another token.`);
  },

  // A join refused for want of rights or a token; once every card's is, the page says so.
  joinRefused(kind, error) {
    if (error.code !== 'forbidden' && error.code !== 'unauthenticated') return;
    this.refused.add(kind);
    if (this.refused.size === Object.keys(views).length) {
      this.refuse('Refused', `Every reactor of this room was refused (${error.code}): ${error.message}`);
    }
  },

  submit(event) {
    event.preventDefault();
    const token = this.input.value.trim();
    if (!token) {
      setText(this.reason, 'Paste a token first.');
      return;
    }
    try { sessionStorage.setItem(TOKEN_KEY, token); } catch { /* storage off: this page load only */ }
    this.input.value = '';
    show(this.form, false);
    startClient(token);
  },
};

signIn.form.addEventListener('submit', (event) => signIn.submit(event));
window.addEventListener('online', () => client.reconnectNow());

// Shows an error for a while in an inline error element.
const errorTimers = new WeakMap();
function flash(element, text, error) {
  if (!element) return;
  const message = text ?? (error?.code === 'not_connected' ? 'Not connected: try again once the connection is back.' : error?.message ?? String(error));
  element.textContent = message;
  show(element, true);
  clearTimeout(errorTimers.get(element));
  errorTimers.set(element, setTimeout(() => show(element, false), ERROR_MS));
}

// ---------------------------------------------------------------------------------------------
// Room

const roomForm = byTestId('room-form');
const roomInput = byTestId('room-name');
const roomHelp = byTestId('room-help');
const ROOM_HELP = roomHelp.textContent;
let room = null;

function roomFromHash() {
  const value = new URLSearchParams(location.hash.slice(1)).get('room');
  return value && ROOM_PATTERN.test(value) ? value : null;
}

function setRoom(next) {
  if (next === room) return;
  const previous = room;
  room = next;
  roomInput.value = next;
  document.title = `${next} · ReactorHub demo`;
  for (const [kind, view] of Object.entries(views)) {
    if (previous) client.leave(`${kind}/${previous}`).catch(() => {});
    view.reset();
    const address = `${kind}/${next}`;
    view.address = address;
    joinView(kind, view, address);
  }
  presence.reset();
}

function joinView(kind, view, address) {
  client.join(address, {
    onState: (state, info) => { if (view.address === address) view.render(state, info); },
    onPulse: (name, value) => { if (view.address === address) view.pulse(name, value); },
    onPresence: (others, info) => { if (view === todo && view.address === address) presence.update(others, info); },
    onError: (error) => { if (view.address === address) view.showError(error.message); },
  }).then((handle) => {
    if (view === todo && view.address === address) presence.attach(handle);
    markSynced();
  }, (error) => {
    // `left` and `closed`: the page left the room, or closed this client itself (a sign-in, a refusal).
    if (error.code === 'left' || error.code === 'closed' || view.address !== address) return;
    view.showError(error.message);
    signIn.joinRefused(kind, error);
  });
}

roomForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const value = roomInput.value.trim();
  if (!ROOM_PATTERN.test(value)) {
    roomInput.setAttribute('aria-invalid', 'true');
    roomHelp.textContent = 'A room name has 1 to 64 letters, digits, dots, dashes or underscores.';
    roomHelp.classList.add('hint-error');
    return;
  }
  roomInput.removeAttribute('aria-invalid');
  roomHelp.textContent = ROOM_HELP;
  roomHelp.classList.remove('hint-error');
  location.hash = `room=${value}`;
  setRoom(value); // also when the hash did not change
});

window.addEventListener('hashchange', () => setRoom(roomFromHash() ?? DEFAULT_ROOM));

let synced = false;
function markSynced() {
  if (synced || !Object.values(views).every((view) => view.hasState)) return;
  synced = true;
  performance.mark('reactorhub:synced');
}

function dispatch(view, action) {
  return client.dispatch(view.address, action).catch((error) => {
    view.showError(error);
    throw error;
  });
}

// ---------------------------------------------------------------------------------------------
// Counter

const counter = {
  address: null,
  hasState: false,
  loading: false,
  el: {
    card: byTestId('counter-card'),
    value: byTestId('counter-value'),
    plus: byTestId('counter-plus'),
    minus: byTestId('counter-minus'),
    spinner: byTestId('counter-spinner'),
    toast: byTestId('counter-toast'),
    error: byTestId('counter-error'),
    version: byTestId('version-counter'),
  },
  toastTimer: null,

  reset() {
    this.hasState = false;
    setText(this.el.value, '–');
    show(this.el.spinner, false);
    show(this.el.toast, false);
    renderVersion(this.el.version, null);
    this.updateControls();
  },

  render(state, info) {
    this.hasState = true;
    setText(this.el.value, String(state.value));
    this.loading = state.isLoading;
    show(this.el.spinner, state.isLoading);
    this.el.card.setAttribute('aria-busy', String(state.isLoading));
    renderVersion(this.el.version, info);
    this.updateControls();
  },

  pulse(name, value) {
    if (name !== 'alertMessage' || value == null) return;
    const toast = this.el.toast;
    toast.textContent = String(value);
    show(toast, true);
    toast.classList.remove('toast-in');
    void toast.offsetWidth; // restart the animation for a repeated message
    toast.classList.add('toast-in');
    clearTimeout(this.toastTimer);
    this.toastTimer = setTimeout(() => show(toast, false), TOAST_MS);
  },

  showError(error) {
    flash(this.el.error, typeof error === 'string' ? error : null, error);
  },

  updateControls() {
    const enabled = this.hasState && connectionStatus === 'open';
    this.el.plus.disabled = !enabled;
    this.el.minus.disabled = !enabled;
    this.el.card.classList.toggle('is-stale', this.hasState && connectionStatus !== 'open');
  },
};

counter.el.plus.addEventListener('click', () => dispatch(counter, 'increase').catch(() => {}));
counter.el.minus.addEventListener('click', () => dispatch(counter, 'decrease').catch(() => {}));

function renderVersion(element, info) {
  if (!info) {
    setText(element, '–');
    element.removeAttribute('data-version');
    element.title = 'state version';
    return;
  }
  setText(element, `v${info.version}`);
  element.dataset.version = String(info.version);
  element.title = `state version ${info.version} · epoch ${info.epoch}`;
}

// ---------------------------------------------------------------------------------------------
// Weather

const CONDITION_ICONS = [
  [/thunder|storm/i, 'i-storm'],
  [/snow|sleet|ice/i, 'i-snow'],
  [/rain|drizzle|shower/i, 'i-rain'],
  [/fog|haze|mist|smoke/i, 'i-fog'],
  [/wind/i, 'i-wind'],
  [/cloud|overcast/i, 'i-cloud'],
];

const weather = {
  address: null,
  hasState: false,
  loading: false,
  el: {
    card: byTestId('weather-panel'),
    form: byTestId('weather-form'),
    city: byTestId('weather-city'),
    search: byTestId('weather-search'),
    loading: byTestId('weather-loading'),
    error: byTestId('weather-error'),
    empty: byTestId('weather-empty'),
    result: byTestId('weather-card'),
    icon: byTestId('weather-icon'),
    resultCity: byTestId('weather-card-city'),
    temperature: byTestId('weather-card-temperature'),
    condition: byTestId('weather-card-condition'),
    humidity: byTestId('weather-card-humidity'),
    version: byTestId('version-weather'),
  },

  reset() {
    this.hasState = false;
    this.loading = false;
    show(this.el.loading, false);
    show(this.el.error, false);
    show(this.el.result, false);
    show(this.el.empty, false);
    renderVersion(this.el.version, null);
    this.updateControls();
  },

  render(state, info) {
    this.hasState = true;
    if (state.isLoading && !this.loading) show(this.el.error, false); // a new search started
    this.loading = state.isLoading;
    show(this.el.loading, state.isLoading);
    this.el.card.setAttribute('aria-busy', String(state.isLoading));
    const data = state.weather;
    show(this.el.result, Boolean(data));
    show(this.el.empty, !data && !state.isLoading);
    if (data) {
      setText(this.el.resultCity, data.city);
      setText(this.el.condition, data.condition);
      setText(this.el.temperature, `${Number(data.temperature).toFixed(1)}°C`);
      setText(this.el.humidity, `${data.humidity}%`);
      const icon = CONDITION_ICONS.find(([pattern]) => pattern.test(data.condition))?.[1] ?? 'i-sun';
      const use = this.el.icon.querySelector('use');
      if (use.getAttribute('href') !== `#${icon}`) use.setAttribute('href', `#${icon}`);
      this.el.icon.dataset.icon = icon;
    }
    renderVersion(this.el.version, info);
    this.updateControls();
  },

  pulse(name, value) {
    if (name === 'errorMessage' && value != null) flash(this.el.error, String(value));
  },

  showError(error) {
    flash(this.el.error, typeof error === 'string' ? error : null, error);
  },

  updateControls() {
    this.el.search.disabled = !(this.hasState && connectionStatus === 'open') || this.loading;
    this.el.card.classList.toggle('is-stale', this.hasState && connectionStatus !== 'open');
  },
};

weather.el.form.addEventListener('submit', (event) => {
  event.preventDefault();
  const city = weather.el.city.value.trim();
  if (!city) {
    weather.showError('Type the name of a city first.');
    weather.el.city.focus();
    return;
  }
  show(weather.el.error, false);
  dispatch(weather, { type: 'searchCityWeather', city }).catch(() => {});
});

// ---------------------------------------------------------------------------------------------
// Todo

// What the todo kind does with each action, predicted here so that the list changes at once
// (CLIENTS.md "Prediction"); the server's answer replaces it. An added item has no id until the
// server gives it one: it shows with a local id (`PENDING_ID` + position) until then.
const PENDING_ID = 'pending-';
const withItems = (state, items) => ({ ...state, items });
const todoPredictors = {
  add: (state, { title }) => withItems(state, [...state.items, { id: `${PENDING_ID}${state.items.length}`, title, done: false }]),
  toggle: (state, { id }) => withItems(state, state.items.map((item) => (item.id === id ? { ...item, done: !item.done } : item))),
  rename: (state, { id, title }) => withItems(state, state.items.map((item) => (item.id === id ? { ...item, title } : item))),
  remove: (state, { id }) => withItems(state, state.items.filter((item) => item.id !== id)),
  clearCompleted: (state) => withItems(state, state.items.filter((item) => !item.done)),
};

// Whether an item as shown differs from the server's (a prediction of ours not confirmed yet).
function isPendingItem(item, confirmedItems) {
  const confirmed = confirmedItems.find((each) => each.id === item.id);
  return !confirmed || confirmed.done !== item.done || confirmed.title !== item.title;
}

const todo = {
  address: null,
  hasState: false,
  items: [],
  nodes: new Map(),
  editing: null, // {id, input}
  el: {
    card: byTestId('todo-panel'),
    form: byTestId('todo-form'),
    input: byTestId('todo-new'),
    add: byTestId('todo-add'),
    error: byTestId('todo-error'),
    empty: byTestId('todo-empty'),
    list: byTestId('todo-list'),
    count: byTestId('todo-count'),
    clear: byTestId('todo-clear'),
    version: byTestId('version-todo'),
    template: document.getElementById('todo-item-template'),
  },

  reset() {
    this.hasState = false;
    this.items = [];
    this.editing = null;
    this.nodes.clear();
    this.el.list.replaceChildren();
    show(this.el.empty, false);
    setText(this.el.count, '');
    renderVersion(this.el.version, null);
    this.updateControls();
  },

  createNode(id) {
    const li = this.el.template.content.firstElementChild.cloneNode(true);
    li.dataset.id = id;
    const node = {
      li,
      check: byTestId('todo-toggle', li),
      title: byTestId('todo-title', li),
      rename: byTestId('todo-rename', li),
      up: byTestId('todo-up', li),
      down: byTestId('todo-down', li),
      remove: byTestId('todo-remove', li),
      editors: byTestId('todo-editing', li),
      pending: byTestId('todo-pending', li),
    };
    node.check.id = `todo-check-${id}`;
    this.nodes.set(id, node);
    return node;
  },

  render(state, info) {
    this.hasState = true;
    const items = Array.isArray(state.items) ? state.items : [];
    this.items = items;
    const confirmed = client.reactor(this.address)?.confirmedState;
    const confirmedItems = info.predicted && Array.isArray(confirmed?.items) ? confirmed.items : items;
    const list = this.el.list;
    const focused = list.contains(document.activeElement) ? document.activeElement : null;
    const seen = new Set();
    items.forEach((item, index) => {
      seen.add(item.id);
      const node = this.nodes.get(item.id) ?? this.createNode(item.id);
      const { li } = node;
      if (!(this.editing && this.editing.id === item.id)) setText(node.title, item.title);
      node.check.checked = Boolean(item.done);
      li.classList.toggle('is-done', Boolean(item.done));
      // Shown before the server confirmed it: marked, and an added item cannot be acted on yet.
      const pending = Boolean(info.predicted) && isPendingItem(item, confirmedItems);
      li.classList.toggle('is-pending', pending);
      node.pending.hidden = !pending;
      const unconfirmed = item.id.startsWith(PENDING_ID);
      for (const control of [node.check, node.rename, node.up, node.down, node.remove]) control.disabled = unconfirmed;
      node.check.setAttribute('aria-label', `Done: ${item.title}`);
      node.rename.setAttribute('aria-label', `Rename ${item.title}`);
      node.up.setAttribute('aria-label', `Move ${item.title} up`);
      node.down.setAttribute('aria-label', `Move ${item.title} down`);
      node.remove.setAttribute('aria-label', `Remove ${item.title}`);
      node.up.disabled ||= index === 0;
      node.down.disabled ||= index === items.length - 1;
      const at = list.children[index];
      if (at !== li) list.insertBefore(li, at ?? null);
    });
    for (const [id, node] of this.nodes) {
      if (seen.has(id)) continue;
      node.li.remove();
      this.nodes.delete(id);
      if (this.editing?.id === id) {
        this.editing = null;
        presence.setEditing(null);
      }
    }
    if (focused && focused.isConnected && document.activeElement !== focused && !focused.disabled) focused.focus();
    const left = items.filter((item) => !item.done).length;
    setText(this.el.count, items.length ? `${left} ${left === 1 ? 'item' : 'items'} left` : '');
    show(this.el.empty, items.length === 0);
    this.el.clear.hidden = !items.some((item) => item.done);
    renderVersion(this.el.version, info);
    this.updateControls();
    presence.renderEditing();
  },

  pulse() {},

  showError(error) {
    // A refused action of ours was shown at once: say that it was undone, and why.
    const undone = typeof error !== 'string' && error?.message && error.code !== 'not_connected' && error.code !== 'disconnected';
    flash(this.el.error, typeof error === 'string' ? error : undone ? `Undone: ${error.message}` : null, error);
  },

  updateControls() {
    const enabled = this.hasState && connectionStatus === 'open';
    this.el.add.disabled = !enabled;
    this.el.clear.disabled = !enabled || !this.items.some((item) => item.done);
    this.el.card.classList.toggle('is-stale', this.hasState && connectionStatus !== 'open');
    this.el.list.classList.toggle('is-readonly', !enabled);
  },

  indexOf(id) {
    return this.items.findIndex((item) => item.id === id);
  },

  startRename(id) {
    const node = this.nodes.get(id);
    const index = this.indexOf(id);
    if (!node || index < 0 || this.editing) return;
    const input = document.createElement('input');
    input.className = 'todo-edit';
    input.dataset.testid = 'todo-rename-input';
    input.maxLength = 200;
    input.value = this.items[index].title;
    input.setAttribute('aria-label', `New title for ${this.items[index].title}`);
    this.editing = { id, input };
    node.title.replaceWith(input);
    node.li.classList.add('is-editing');
    input.focus();
    input.select();
    presence.setEditing(id); // the others see who edits this item while the field has the focus
    const finish = (commit, refocus) => {
      if (this.editing?.input !== input) return;
      this.editing = null;
      presence.setEditing(null);
      const title = input.value.trim();
      const current = this.items[this.indexOf(id)];
      input.replaceWith(node.title);
      node.li.classList.remove('is-editing');
      if (current) setText(node.title, current.title);
      if (refocus) node.rename.focus(); // after Enter or Escape; a blur leaves the focus where it went
      if (commit && current && title && title !== current.title) {
        dispatch(this, { type: 'rename', id, title }).catch(() => {});
      }
    };
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') { event.preventDefault(); finish(true, true); }
      if (event.key === 'Escape') { event.preventDefault(); finish(false, true); }
    });
    input.addEventListener('blur', () => finish(true, false));
  },
};

todo.el.form.addEventListener('submit', (event) => {
  event.preventDefault();
  const title = todo.el.input.value.trim();
  if (!title) {
    todo.showError('Type what needs to be done first.');
    todo.el.input.focus();
    return;
  }
  // Shown at once (predicted): the field is emptied now, and given its text back if refused.
  todo.el.input.value = '';
  dispatch(todo, { type: 'add', title }).catch(() => {
    if (!todo.el.input.value) todo.el.input.value = title;
  });
});

todo.el.list.addEventListener('change', (event) => {
  const li = event.target.closest('[data-testid="todo-item"]');
  if (!li || event.target.dataset.testid !== 'todo-toggle') return;
  const id = li.dataset.id;
  dispatch(todo, { type: 'toggle', id }).catch(() => {
    const item = todo.items[todo.indexOf(id)];
    event.target.checked = Boolean(item?.done); // refused: show the state as it is
  });
});

todo.el.list.addEventListener('click', (event) => {
  const button = event.target.closest('button');
  const li = event.target.closest('[data-testid="todo-item"]');
  if (!button || !li || button.disabled) return;
  const id = li.dataset.id;
  const index = todo.indexOf(id);
  if (index < 0) return;
  switch (button.dataset.testid) {
    case 'todo-rename': todo.startRename(id); break;
    case 'todo-up': dispatch(todo, { type: 'move', from: index, to: index - 1 }).catch(() => {}); break;
    case 'todo-down': dispatch(todo, { type: 'move', from: index, to: index + 1 }).catch(() => {}); break;
    case 'todo-remove': dispatch(todo, { type: 'remove', id }).catch(() => {}); break;
    default: break;
  }
});

todo.el.list.addEventListener('dblclick', (event) => {
  const title = event.target.closest('[data-testid="todo-title"]');
  const li = event.target.closest('[data-testid="todo-item"]');
  if (title && li && connectionStatus === 'open') todo.startRename(li.dataset.id);
});

todo.el.clear.addEventListener('click', () => dispatch(todo, 'clearCompleted').catch(() => {}));

// ---------------------------------------------------------------------------------------------
// Presence: who is in the room (everyone on the page sets a presence in todo/<room> once joined)
// and which todo item each one is editing ({"editing": id} while an item's title field has the
// focus). Avatars show the user's initials, else the session's number, in a colour of the name.

const AVATARS_SHOWN = 6;
const AVATAR_HUES = 8;

const presence = {
  handle: null,
  others: [],
  count: null, // the server's count, when it lists no entries
  editing: null, // the id of the item this page edits
  el: {
    root: byTestId('presence'),
    avatars: byTestId('presence-avatars'),
    count: byTestId('presence-count'),
  },

  reset() {
    this.handle = null;
    this.others = [];
    this.count = null;
    this.editing = null;
    this.render();
  },

  attach(handle) {
    this.handle = handle;
    this.publish();
  },

  setEditing(id) {
    if (this.editing === id) return;
    this.editing = id;
    this.publish();
  },

  // Sends this page's presence; the client sets it again by itself after a reconnect.
  publish() {
    if (client?.hello?.transport === 'http') return; // a presence needs a WebSocket
    this.handle?.setPresence(this.editing ? { editing: this.editing } : {}).catch((error) => {
      if (!['disconnected', 'not_connected', 'left', 'closed'].includes(error.code)) {
        console.warn(`reactorhub: presence: ${error.code}: ${error.message}`);
      }
    });
  },

  update(others, info) {
    this.others = others;
    this.count = info.presenceCount;
    this.render();
  },

  render() {
    const session = client.hello?.session;
    const people = session && this.handle ? [{ session, user: client.user, self: true }, ...this.others] : [...this.others];
    const total = this.count ?? people.length;
    const shown = people.slice(0, this.count === null ? AVATARS_SHOWN : 1);
    const items = shown.map((person) => avatar(person, 'presence-avatar'));
    const hidden = total - shown.length;
    if (hidden > 0) {
      const more = document.createElement('li');
      more.className = 'avatar avatar-more';
      more.dataset.testid = 'presence-more';
      more.setAttribute('aria-label', `${hidden} more`);
      more.textContent = `+${hidden}`;
      items.push(more);
    }
    this.el.avatars.replaceChildren(...items);
    setText(this.el.count, total ? `${total} here` : '');
    this.el.count.title = total === 1 ? 'Only you are in this room' : `${total} people in this room`;
    this.renderEditing();
  },

  // The marker next to each item that someone else is editing.
  renderEditing() {
    const editors = new Map();
    for (const person of this.others) {
      const id = person.state?.editing;
      if (typeof id === 'string') editors.set(id, [...(editors.get(id) ?? []), person]);
    }
    for (const [id, node] of todo.nodes) {
      const people = editors.get(id) ?? [];
      const key = people.map((p) => `${p.session}:${p.user}`).join(' ');
      node.li.classList.toggle('is-edited-elsewhere', people.length > 0);
      show(node.editors, people.length > 0);
      if (node.editors.dataset.sessions === key) continue;
      node.editors.dataset.sessions = key;
      // Shown: the avatars and "editing"; read out and in the tooltip: who.
      const who = document.createElement('span');
      who.className = 'sr-only';
      who.textContent = `${people.map(displayName).join(', ')} ${people.length === 1 ? 'is' : 'are'} `;
      const text = document.createElement('span');
      text.className = 'todo-editing-text';
      text.append(who, 'editing');
      node.editors.replaceChildren(...people.map((p) => avatar(p, null, true)), text);
      node.editors.title = text.textContent;
    }
  },
};

function displayName(person) {
  return person.user ?? `guest ${person.session}`;
}

function initials(person) {
  if (person.user) {
    const words = person.user.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
    return (words.length > 1 ? words[0][0] + words[1][0] : (words[0] ?? person.user).slice(0, 2)).toUpperCase();
  }
  const digits = person.session.replace(/\D+/g, '');
  return digits ? digits.slice(-2) : person.session.slice(0, 2).toUpperCase();
}

function hue(text) {
  let hash = 7;
  for (const char of text) hash = (hash * 31 + char.codePointAt(0)) >>> 0;
  return hash % AVATAR_HUES;
}

// A round avatar: the initials (hidden from screen readers) and the name as text for them.
function avatar(person, testid, mini = false) {
  const element = document.createElement(mini ? 'span' : 'li');
  element.className = `avatar avatar-hue-${hue(person.user ?? person.session)}${mini ? ' avatar-mini' : ''}${person.self ? ' avatar-self' : ''}`;
  if (testid) element.dataset.testid = testid;
  element.dataset.session = person.session;
  if (person.self) element.dataset.self = 'true';
  const name = person.self ? `You (${displayName(person)})` : displayName(person);
  const editing = !person.self && typeof person.state?.editing === 'string' ? todo.items.find((item) => item.id === person.state.editing) : undefined;
  element.title = editing ? `${name}, editing “${editing.title}”` : name;
  const letters = document.createElement('span');
  letters.setAttribute('aria-hidden', 'true');
  letters.textContent = initials(person);
  element.append(letters);
  if (!mini) {
    const label = document.createElement('span');
    label.className = 'sr-only';
    label.textContent = element.title;
    element.append(label);
  }
  return element;
}

// ---------------------------------------------------------------------------------------------
// Live frame log

const frameLog = {
  count: 0,
  el: null,

  elements() {
    this.el ??= {
      root: byTestId('frame-log'),
      list: byTestId('frame-log-list'),
      count: byTestId('frame-log-count'),
      pause: byTestId('frame-log-pause'),
      clear: byTestId('frame-log-clear'),
    };
    return this.el;
  },

  add(frame) {
    const el = this.elements();
    if (!el.list || el.pause.checked) return;
    this.count += 1;
    setText(el.count, String(this.count));
    const item = document.createElement('li');
    item.className = `log-entry log-${frame.direction}`;
    item.dataset.testid = 'frame-log-entry';
    item.dataset.direction = frame.direction;
    const type = frame.message?.type ?? 'invalid';
    item.dataset.type = type;
    const arrow = document.createElement('span');
    arrow.className = 'log-dir';
    arrow.textContent = frame.direction === 'in' ? '↓' : '↑';
    arrow.setAttribute('aria-label', frame.direction === 'in' ? 'received' : 'sent');
    const time = document.createElement('time');
    time.textContent = new Date().toISOString().slice(11, 23);
    const kind = document.createElement('span');
    kind.className = `log-type log-type-${type}`;
    kind.textContent = type;
    const text = document.createElement('code');
    const data = String(frame.data);
    text.textContent = data.length > LOG_TEXT_LIMIT ? `${data.slice(0, LOG_TEXT_LIMIT)}… (${data.length} bytes)` : data;
    item.append(arrow, time, kind, text);
    el.list.prepend(item);
    while (el.list.childElementCount > LOG_LIMIT) el.list.lastElementChild.remove();
  },

  clear() {
    const el = this.elements();
    el.list.replaceChildren();
    this.count = 0;
    setText(el.count, '0');
  },
};

frameLog.elements().clear.addEventListener('click', () => frameLog.clear());

// ---------------------------------------------------------------------------------------------
// Start

const views = { counter, weather, todo };
let client = null;

// Behind a proxy that breaks WebSocket, the page follows its reactors over Server-Sent Events and
// sends its actions as POSTs (docs/api-http.md); it tries a WebSocket again when that fails too.
const FallbackWebSocket = withEventStreamFallback();

// Connects with `token` (or none) and joins the room's reactors; a client before it is closed.
function startClient(token) {
  client?.close();
  signIn.refusal = null;
  signIn.opened = false;
  signIn.refused.clear();
  client = connect(defaultUrl(), {
    WebSocket: FallbackWebSocket,
    heartbeatMs: 25000,
    token: token || null,
    // `#predict=off` in the address shows only what the server confirmed (for comparisons).
    predictors: new URLSearchParams(location.hash.slice(1)).get('predict') === 'off' ? {} : { todo: todoPredictors },
    on: {
      status: (status, detail) => { renderStatus(status, detail); signIn.status(status, detail); },
      frame: (frame) => frameLog.add(frame),
      hello: (hello) => { renderHello(hello); signIn.hello(hello); },
    },
  });
  // Errors that answer no request of ours (or a patch that did not apply, after which the client
  // re-joins by itself): nothing on the page to attach them to.
  client.on('error', (error) => console.warn(`reactorhub: ${error.code}: ${error.message}`));
  if (room) {
    for (const [kind, view] of Object.entries(views)) {
      view.reset();
      view.address = `${kind}/${room}`;
      joinView(kind, view, view.address);
    }
    presence.reset();
  }
}

startClient(signIn.token());
setRoom(roomFromHash() ?? DEFAULT_ROOM);

// For debugging in the console and for the browser tests' measurements.
window.reactorhubDemo = {
  get client() { return client; },
  get room() { return room; },
  setRoom: (next) => { location.hash = `room=${next}`; },
};

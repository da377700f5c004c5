// Declarations of reactorhub.js (web/reactorhub.js): the ReactorHub client. docs/web-client.md.

/** A JSON value, as states, patches and action members carry them. */
export type JSONValue = null | boolean | number | string | JSONValue[] | { [member: string]: JSONValue };

/** An action of a kind not typed by `reactorhub types`: an object with `type`, or a bare string. */
export type Action = string | { type: string; [member: string]: unknown };

/**
 * The kinds this program knows, filled in by the declarations `reactorhub types --url …`
 * prints (`declare module 'reactorhub' { interface ReactorKinds { todo: {actions; pulses; state} } }`).
 * Empty here: every address is untyped until then.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface ReactorKinds {}

/** The kind of an address literal `'KIND/ID'` when `ReactorKinds` lists it, else `never`. */
export type KindOf<Address extends string> = Address extends `${infer Kind}/${string}`
  ? (Kind extends keyof ReactorKinds ? Kind : never)
  : never;

/** The actions an address takes: its kind's `<Kind>Action` for a listed kind, else `Action`. */
export type ActionOf<Address extends string> = [KindOf<Address>] extends [never]
  ? Action
  : ReactorKinds[KindOf<Address>] extends { actions: infer A } ? A : Action;

/** The state of an address: its kind's state type where it describes one, else `unknown`. */
export type StateOf<Address extends string> = [KindOf<Address>] extends [never]
  ? unknown
  : ReactorKinds[KindOf<Address>] extends { state: infer S } ? S : unknown;

/** The pulses of an address: `{name, value}` of its kind, else any name. */
export type PulseOf<Address extends string> = [KindOf<Address>] extends [never]
  ? { name: string; value: unknown }
  : ReactorKinds[KindOf<Address>] extends { pulses: infer P extends { name: string; value: unknown } } ? P : { name: string; value: unknown };

/**
 * A dispatch of the actions `A`: one signature for the object actions and one for the bare
 * strings, so that the compiler names the wrong or missing member of an object action (one
 * union of both would only say that its `type` is not the last case's).
 */
export interface Dispatch<A> {
  (action: Extract<A, object>): Promise<Ack>;
  (action: Extract<A, string>): Promise<Ack>;
}

export declare const PROTOCOL: 'reactorhub.v1';

/** What the server refused (`code` is the protocol's error code) or the client raised
 *  (`disconnected`, `not_connected`, `closed`, `left`, `not_joined`, `queue_full`, …). */
export declare class ReactorHubError extends Error {
  constructor(code: string, message: string, details?: Record<string, unknown>);
  readonly name: 'ReactorHubError';
  code: string;
  ref?: string | number;
  reactor?: string;
  closeCode?: number;
  closeReason?: string;
}

/** Thrown by `applyPatch` when an operation does not apply; `index` is its position. */
export declare class PatchError extends Error {
  constructor(message: string, index?: number, operation?: unknown);
  readonly name: 'PatchError';
  index: number | undefined;
  operation: unknown;
}

/** One RFC 6902 operation. */
export type PatchOperation =
  | { op: 'add' | 'replace' | 'test'; path: string; value: JSONValue }
  | { op: 'remove'; path: string }
  | { op: 'move' | 'copy'; from: string; path: string };

export declare function isValidAddress(address: unknown): address is `${string}/${string}`;
export declare function cloneJSON<T extends JSONValue>(value: T): T;
export declare function jsonEqual(a: unknown, b: unknown): boolean;
export declare function parsePointer(pointer: string): string[];
/** Applies an RFC 6902 patch and returns the new document (the input is never mutated). */
export declare function applyPatch<T = JSONValue>(document: T, patch: readonly PatchOperation[] | readonly JSONValue[]): T;
/** The `exp` of a JWT's payload (not verified), or undefined. */
export declare function tokenExpiry(token: unknown): number | undefined;
/** ws(s)://host/ws of the page that the daemon served. */
export declare function defaultUrl(location?: { protocol: string; host: string }): string;

/** A pure function from a state and an action to the state it predicts; `undefined` (or a
 *  throw) predicts nothing. It must not change its input. */
export type Predictor<State = any, A = any> = (state: State, action: A) => State | undefined;

/** Predictors by kind and action type; `doc: false` turns the client's own `doc` ones off. */
export type Predictors = { [kind: string]: false | { [actionType: string]: Predictor } };

/** The client's own predictors: the `doc` kind's `set`, `remove` and `patch`. */
export declare const builtInPredictors: { readonly doc: { readonly [actionType: string]: Predictor } };

/** The connection's status as the hooks report it. */
export type ConnectionStatus = 'connecting' | 'open' | 'reconnecting' | 'closed';

/** The client's status: `idle` only for a client made with `new` and not opened yet. */
export type Status = 'idle' | ConnectionStatus;

/** What `dispatch` resolves with: the server's ack. */
export interface Ack {
  reactor: string;
  ref: string | number;
  /** The state version when the action was accepted. */
  version: number;
  /** The version once its immediate mutations are applied. */
  applied: number;
  /** The action's id (resending it is safe). */
  id: string;
  /** True when the server answered a repeat of the id. */
  duplicate: boolean;
}

export type StateCause = 'snapshot' | 'patch' | 'resumed' | 'predicted' | 'confirmed' | 'rollback';

export interface StateInfo {
  address: string;
  epoch: string | null;
  version: number | null;
  cause: StateCause;
  /** True while this client has an action pending on this reactor. */
  predicted: boolean;
  /** This client's pending actions on this reactor. */
  pending: number;
  /** The RFC 6902 patch just applied (cause `patch`). */
  patch?: PatchOperation[];
  /** The server's version after `resumed`. */
  target?: number;
}

export interface PresenceEntry {
  readonly session: string;
  readonly user: string | null;
  readonly state: JSONValue;
}

export interface PresenceInfo {
  address: string;
  cause: 'snapshot' | 'resumed' | 'presence';
  presenceCount: number | null;
  joins?: string[];
  leaves?: string[];
}

export interface PulseInfo {
  address: string;
  version: number;
}

export interface JoinHandlers<State = unknown, Pulse extends { name: string; value: unknown } = { name: string; value: unknown }> {
  onState?: (state: State, info: StateInfo) => void;
  onPulse?: (name: Pulse['name'], value: Pulse['value'], info: PulseInfo) => void;
  onPresence?: (others: PresenceEntry[], info: PresenceInfo) => void;
  onError?: (error: ReactorHubError) => void;
}

/** A joined reactor: what the client holds for it, read live, and its presence. */
export declare class ReactorHandle<State = unknown, A = Action> {
  private constructor();
  readonly address: string;
  /** The shown state: confirmed + this client's pending actions predicted on top. */
  readonly state: State | undefined;
  /** The server's state at `version`. */
  readonly confirmedState: State | undefined;
  readonly epoch: string | null;
  /** The version of the confirmed state. */
  readonly version: number | null;
  /** This client's actions here that are queued, sent, or acknowledged and not yet applied. */
  readonly pending: number;
  readonly others: PresenceEntry[];
  readonly presenceCount: number | null;
  readonly presenceTotal: number;
  /** `client.dispatch(address, action)`. */
  readonly dispatch: Dispatch<A>;
  setPresence(state: { [member: string]: JSONValue } | null): Promise<void>;
}

export interface StatusDetail {
  code?: number;
  reason?: string;
  attempt?: number;
  delayMs?: number;
  protocol?: string;
  error?: ReactorHubError;
}

export interface Frame {
  direction: 'in' | 'out';
  data: string;
  message: any;
  time: number;
}

export interface Hello {
  type: 'hello';
  protocol: number;
  server: string;
  session: string;
  user?: string | null;
  auth?: string;
  reactors: { [kind: string]: { actions: { [type: string]: { [member: string]: string } }; pulses: string[] } };
}

export interface ClientEvents {
  status: (status: Status, detail: StatusDetail) => void;
  frame: (frame: Frame) => void;
  hello: (hello: Hello) => void;
  state: (address: string, state: unknown, info: StateInfo) => void;
  pulse: (address: string, name: string, value: unknown, info: PulseInfo) => void;
  presence: (address: string, others: PresenceEntry[], info: PresenceInfo) => void;
  pending: (count: number) => void;
  left: (address: string, reason: string) => void;
  error: (error: ReactorHubError) => void;
}

export interface ConnectOptions {
  WebSocket?: new (url: string, protocols?: string | string[]) => WebSocket;
  protocols?: string[];
  on?: Partial<ClientEvents>;
  reconnect?: boolean;
  resendActions?: boolean;
  initialDelayMs?: number;
  backoffFactor?: number;
  maxDelayMs?: number;
  jitter?: number;
  heartbeatMs?: number;
  heartbeatTimeoutMs?: number;
  token?: string | null | (() => string | Promise<string>);
  tokenRefreshLeadMs?: number;
  closeTimeoutMs?: number;
  /** Actions waiting to be sent before `dispatch` rejects with `queue_full` (1000). */
  maxQueuedActions?: number;
  predictors?: Predictors;
  page?: EventTarget | null;
  setTimeout?: (callback: () => void, ms: number) => unknown;
  clearTimeout?: (id: unknown) => void;
  random?: () => number;
  now?: () => number;
  wallNow?: () => number;
}

export declare class ReactorHubClient {
  constructor(url: string | string[], options?: ConnectOptions);
  readonly urls: string[];
  readonly url: string;
  readonly status: Status;
  readonly isOpen: boolean;
  readonly hello: Hello | null;
  readonly user: string | null;
  readonly tokenExpires: number | null;
  readonly attempt: number;
  readonly addresses: string[];
  /** This client's unconfirmed actions across reactors. */
  readonly pending: number;
  open(): this;
  on<E extends keyof ClientEvents>(event: E, listener: ClientEvents[E]): () => void;
  off<E extends keyof ClientEvents>(event: E, listener: ClientEvents[E]): void;
  join<Address extends string>(address: Address, handlers?: JoinHandlers<StateOf<Address>, PulseOf<Address>>): Promise<ReactorHandle<StateOf<Address>, ActionOf<Address>>>;
  leave(address: string): Promise<void>;
  /** Sends an action (queued while offline), predicted at once; resolves with the ack, rejects
   *  (after the rollback) with the server's error. Typed for addresses of listed kinds. */
  dispatch<Address extends string>(address: Address, action: Extract<ActionOf<Address>, object>): Promise<Ack>;
  dispatch<Address extends string>(address: Address, action: Extract<ActionOf<Address>, string>): Promise<Ack>;
  reactor<Address extends string>(address: Address): ReactorHandle<StateOf<Address>, ActionOf<Address>> | undefined;
  ping(): Promise<number>;
  refreshToken(): Promise<{ type: 'authed'; user: string | null; expires: number }>;
  reconnectNow(): void;
  close(code?: number, reason?: string): Promise<void>;
  backoffDelay(attempt: number): number;
}

/** Creates a client and opens its connection; several URLs are tried in turn. */
export declare function connect(url: string | string[], options?: ConnectOptions): ReactorHubClient;

/** What `EventStreamSocket` uses of the page (tests pass their own). */
export interface EventStreamSocketOptions {
  EventSource?: typeof EventSource;
  fetch?: typeof fetch;
}

/** Protocol v1 over the HTTP API (Server-Sent Events and POST), where a WebSocket cannot open: pass
 *  it, or `withEventStreamFallback()`, as the `WebSocket` option. Presence cannot be set over it. */
export declare class EventStreamSocket {
  static readonly CONNECTING: 0;
  static readonly OPEN: 1;
  static readonly CLOSING: 2;
  static readonly CLOSED: 3;
  constructor(url: string, protocols?: string | string[], options?: EventStreamSocketOptions);
  readonly url: string;
  readonly protocol: string;
  readonly readyState: number;
  onopen: ((event: object) => void) | null;
  onmessage: ((event: { data: string }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: object) => void) | null;
  addEventListener(type: 'open' | 'close' | 'error', listener: (event: any) => void): void;
  send(text: string): void;
  close(code?: number, reason?: string): void;
}

/** A `WebSocket` option that falls back to `EventStreamSocket` when a WebSocket cannot open, and
 *  tries a WebSocket again when the fallback cannot open either. */
export declare function withEventStreamFallback(
  WebSocketImpl?: new (url: string, protocols?: string | string[]) => WebSocket,
  options?: EventStreamSocketOptions,
): new (url: string, protocols?: string | string[]) => WebSocket;

// Declarations of reactorhub/react (react.js): React 18 hooks over a ReactorHubClient.
import type { ActionOf, ConnectionStatus, Dispatch, JSONValue, PresenceEntry, ReactorHubClient, ReactorHubError, StateOf } from './reactorhub.js';

export interface ReactorView<State, A> {
  /** The shown state (confirmed + this client's pending actions predicted); undefined until joined. */
  state: State | undefined;
  /** The server's state at `version`. */
  confirmedState: State | undefined;
  /** The confirmed version; null until joined. */
  version: number | null;
  /** This client's actions on the reactor not confirmed yet. */
  pending: number;
  /** The connection's status. */
  status: ConnectionStatus;
  /** `client.dispatch(address, action)`. */
  dispatch: Dispatch<A>;
  /** The error that refused the join, else null. */
  error: ReactorHubError | null;
}

export interface PresenceView {
  /** The other connections' presence, this one's own left out. */
  others: PresenceEntry[];
  /** The connections with a presence, this one included once set (the server's count past maxListed). */
  count: number;
  /** Sets this connection's presence (null clears it); resolves at the server's ack. */
  set: (state: { [member: string]: JSONValue } | null) => Promise<void>;
}

export interface SyncStatus {
  status: ConnectionStatus;
  /** This client's unconfirmed actions across reactors. */
  pending: number;
}

/** Joins `address` while mounted (one join per address across components); re-renders on its state changes only. */
export declare function useReactor<Address extends string>(client: ReactorHubClient, address: Address): ReactorView<StateOf<Address>, ActionOf<Address>>;
/** Who else is in the reactor at `address`; holds the address like useReactor. */
export declare function usePresence(client: ReactorHubClient, address: string): PresenceView;
/** The connection's status and the client's unconfirmed actions. */
export declare function useSyncStatus(client: ReactorHubClient): SyncStatus;

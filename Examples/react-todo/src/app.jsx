// A todo list in React on reactorhub/react: the shared todo/<room> reactor of a ReactorHub
// daemon, predicted at once, marked while unconfirmed, with who is here and the sync status.
import { StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { connect, defaultUrl } from 'reactorhub';
import { usePresence, useReactor, useSyncStatus } from 'reactorhub/react';

const withItems = (state, items) => ({ ...state, items });
const client = connect(defaultUrl(), {
  predictors: {
    todo: {
      add: (state, { title }) => withItems(state, [...state.items, { id: `pending-${state.items.length}`, title, done: false }]),
      toggle: (state, { id }) => withItems(state, state.items.map((item) => (item.id === id ? { ...item, done: !item.done } : item))),
    },
  },
});
const room = new URLSearchParams(location.hash.slice(1)).get('room') ?? 'lobby';
const address = `todo/${room}`;

function Status() {
  const { status, pending } = useSyncStatus(client);
  const { count } = usePresence(client, address);
  return (
    <p className="muted" data-testid="sync">
      <span data-testid="sync-status">{status}</span> · <span data-testid="sync-pending">{pending}</span> unsent ·{' '}
      <span data-testid="here">{count}</span> here
    </p>
  );
}

function Todo() {
  const { state, confirmedState, version, dispatch, error } = useReactor(client, address);
  const { set } = usePresence(client, address);
  const [title, setTitle] = useState('');
  const [refusal, setRefusal] = useState(null);
  if (error) return <p className="error" data-testid="join-error">{error.message}</p>;
  if (!state) return <p className="muted">Joining {address}…</p>;
  const confirmed = new Map((confirmedState?.items ?? []).map((item) => [item.id, item]));
  const act = (action) => dispatch(action).then(() => setRefusal(null), (refused) => setRefusal(refused.message));
  const add = (event) => {
    event.preventDefault();
    if (!title.trim()) return;
    act({ type: 'add', title: title.trim() });
    setTitle('');
  };
  return (
    <section>
      <form onSubmit={add}>
        <input type="text" data-testid="new" value={title} onChange={(e) => setTitle(e.target.value)} onFocus={() => set({})} placeholder="What needs to be done?" aria-label="New todo" />
        <button type="submit" data-testid="add">Add</button>
      </form>
      {refusal && <p className="error" data-testid="refusal">Undone: {refusal}</p>}
      <ul data-testid="list">
        {state.items.map((item) => {
          const pending = confirmed.get(item.id)?.done !== item.done;
          return (
            <li key={item.id} data-testid="item" data-id={item.id} data-pending={String(pending)} className={`${pending ? 'pending' : ''} ${item.done ? 'done' : ''}`}>
              <input type="checkbox" data-testid="toggle" checked={item.done} disabled={item.id.startsWith('pending-')} onChange={() => act({ type: 'toggle', id: item.id })} aria-label={`Done: ${item.title}`} />
              <span data-testid="title">{item.title}</span>
            </li>
          );
        })}
      </ul>
      <p className="muted">version <span data-testid="version">{version}</span></p>
    </section>
  );
}

createRoot(document.getElementById('root')).render(
  <StrictMode>
    <header><h1>Todo</h1><Status /></header>
    <Todo />
  </StrictMode>,
);

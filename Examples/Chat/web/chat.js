// The chat page: one shared `chat/ROOM` reactor through reactorhub.js (a copy of the
// repository's web/reactorhub.js; a test keeps them equal). The token comes from the
// page's address (`?token=JWT`): the server signs every message with its user.
import { connect, defaultUrl } from './reactorhub.js';

const params = new URLSearchParams(location.search);
const token = params.get('token');
const room = params.get('room') || 'lobby';
const address = `chat/${room}`;
const $ = (id) => document.querySelector(`[data-testid="${id}"]`);

function refuse(error) {
  $('refusal').textContent = error.message;
}

function render(state) {
  $('members').textContent = state.members.join(', ');
  $('messages').replaceChildren(...state.messages.map((message) => {
    const item = document.createElement('li');
    item.dataset.testid = `message-${message.id}`;
    const author = document.createElement('span');
    author.className = 'author';
    author.textContent = message.author;
    const text = document.createElement('span');
    text.dataset.testid = 'message-text';
    text.textContent = message.text;
    const edit = document.createElement('button');
    edit.textContent = 'Edit';
    edit.addEventListener('click', () => {
      const next = prompt('New text', message.text);
      if (next !== null) client.dispatch(address, { type: 'edit', id: message.id, text: next }).catch(refuse);
    });
    item.append(author, text, edit);
    return item;
  }));
}

if (!token) $('sign-in').hidden = false;
const client = connect(defaultUrl(), { token: token ?? undefined, on: { status: (status) => { $('status').textContent = status; } } });
client.join(address, { onState: render }).catch(refuse);

$('say-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const input = event.target.elements.text;
  const text = input.value;
  input.value = '';
  $('refusal').textContent = '';
  client.dispatch(address, { type: 'say', text }).catch(refuse);
});

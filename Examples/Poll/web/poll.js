// The poll page: one shared `poll/ROOM` reactor through reactorhub.js (a copy of the
// repository's web/reactorhub.js; a test keeps them equal).
import { connect, defaultUrl } from './reactorhub.js';

const room = new URLSearchParams(location.hash.slice(1)).get('room') || 'lobby';
const address = `poll/${room}`;
const voter = sessionStorage.getItem('voter') || `voter-${Math.random().toString(16).slice(2, 8)}`;
sessionStorage.setItem('voter', voter);
const $ = (id) => document.querySelector(`[data-testid="${id}"]`);

const client = connect(defaultUrl(), { on: { status: (status) => { $('status').textContent = status; } } });

function render(state) {
  $('open-form').hidden = state.isOpen;
  $('poll').hidden = !state.isOpen;
  $('question').textContent = state.question ?? '';
  const list = $('options');
  list.replaceChildren(...state.options.map((option, index) => {
    const item = document.createElement('li');
    const label = document.createElement('span');
    label.textContent = `${option}: ${state.votes[index]}`;
    const button = document.createElement('button');
    button.textContent = 'Vote';
    button.dataset.testid = `vote-${index}`;
    button.disabled = state.voters.includes(voter) || state.isTallying;
    button.addEventListener('click', () => act({ type: 'vote', option: index, voter }));
    item.append(label, button);
    return item;
  }));
  $('close').disabled = state.isTallying;
}

function act(action) {
  client.dispatch(address, action).catch((error) => { $('announcement').textContent = error.message; });
}

$('open-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  const options = String(form.get('options')).split(',').map((option) => option.trim()).filter(Boolean);
  act({ type: 'open', question: String(form.get('question')), options });
});
$('close').addEventListener('click', () => act('close'));

client.join(address, {
  onState: render,
  onPulse: (name, value) => { if (name === 'announcement') $('announcement').textContent = value; },
});

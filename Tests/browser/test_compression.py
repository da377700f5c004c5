"""Chromium, which always offers permessage-deflate, against a real daemon: the answer it
gets and honours (frames from 1024 bytes compressed both ways), and the page's client with
`checksums: true`, which finds a copy changed behind its back, reports it and joins afresh
(PROTOCOL.md "Transport" and "Checksums (opt-in)")."""
import uuid

ANSWER = "permessage-deflate; server_no_context_takeover; client_no_context_takeover; client_max_window_bits=10"

# A raw WebSocket from the page: the extensions Chromium agreed to, and a state of a few
# kilobytes set and read back through it (compressed frames each way).
RAW_SOCKET = """
const [url, address, done] = [arguments[0], arguments[1], arguments[arguments.length - 1]];
const ws = new WebSocket(url, 'reactorhub.v1');
const value = { notes: 'the quick brown fox jumps over the lazy dog '.repeat(60), n: 0.1, 'é': ['ü', 1e21] };
const seen = [];
ws.onmessage = (event) => {
  const message = JSON.parse(event.data);
  seen.push(message.type);
  if (message.type === 'hello') ws.send(JSON.stringify({ type: 'join', reactor: address, ref: 'j' }));
  if (message.type === 'snapshot') ws.send(JSON.stringify({ type: 'action', reactor: address, ref: 'a', action: { type: 'set', path: '/big', value } }));
  if (message.type === 'patch') {
    done({ extensions: ws.extensions, seen, length: event.data.length, same: JSON.stringify(message.patch[0].value) === JSON.stringify(value) });
    ws.close();
  }
};
ws.onerror = () => done({ error: 'socket error', seen });
"""

# The page's own client with checksums: the app mutates its copy in place; the next patch does not
# match its sum; the client reports it and joins afresh, and its state is the server's again.
CHECKED_CLIENT = """
const [url, address, done] = [arguments[0], arguments[1], arguments[arguments.length - 1]];
(async () => {
  const { connect } = await import('/reactorhub.js');
  const checked = connect(url, { checksums: true });
  const writer = connect(url);
  const handle = await checked.join(address);
  await writer.join(address);
  const at = (test) => new Promise((resolve) => {
    const off = checked.on('state', (changed, state, info) => { if (changed === address && test(info)) { off(); resolve(); } });
  });
  const first = at((info) => info.version === 1);
  await writer.dispatch(address, { type: 'set', path: '/list', value: [1, 2, 3] });
  await first;
  handle.confirmedState.list.reverse();   // the app's bug: its copy, changed in place
  const reported = new Promise((resolve) => checked.on('mismatch', resolve));
  const fresh = at((info) => info.cause === 'snapshot');
  await writer.dispatch(address, { type: 'set', path: '/title', value: 'Ünïcode ✓' });
  const mismatch = await reported;
  await fresh;
  done({ mismatch, mismatches: checked.mismatches, state: handle.state, server: writer.reactor(address).state });
  checked.close();
  writer.close();
})().catch((error) => done({ error: String(error) }));
"""


def test_chromium_negotiates_compression_and_reads_and_writes_compressed_frames(daemon, browsers):
    browser, _ = browsers
    browser.driver.get(daemon.url)
    address = f"doc/deflate-{uuid.uuid4().hex[:8]}"
    result = browser.driver.execute_async_script(RAW_SOCKET, f"ws://127.0.0.1:{daemon.port}/ws", address)
    assert result.get("error") is None, result
    assert result["extensions"] == ANSWER
    assert result["seen"] == ["hello", "snapshot", "ack", "patch"]
    assert result["same"] is True and result["length"] > 2000


def test_the_page_client_finds_a_copy_changed_behind_its_back_and_joins_afresh(daemon, browsers):
    browser, _ = browsers
    browser.driver.get(daemon.url)
    address = f"doc/checked-{uuid.uuid4().hex[:8]}"
    result = browser.driver.execute_async_script(CHECKED_CLIENT, f"ws://127.0.0.1:{daemon.port}/ws", address)
    assert result.get("error") is None, result
    assert result["mismatch"]["address"] == address
    assert result["mismatch"]["version"] == 2
    assert result["mismatch"]["expected"] != result["mismatch"]["actual"]
    assert result["mismatches"] == 1
    assert result["state"] == result["server"] == {"list": [1, 2, 3], "title": "Ünïcode ✓"}

"""permessage-deflate on a real daemon (PROTOCOL.md "Transport", RFC 7692): what the
upgrade answers to each offer, frames from 1024 bytes on compressed once (RSV1) and the
same bytes to every subscriber that negotiated it, plain frames to a client that offered
nothing, compressed client messages inflated within limits.maxMessageBytes (1009 past it,
whatever the compressed size), and `server.compression: false`. Frames are read raw
(deflate_support) and inflated with Python's zlib; a real client (websockets, which
compresses its own messages) syncs through it too."""
import json

import pytest
from websockets.sync.client import connect

from conftest import base_config
from deflate_support import WireClient, deflate, frame, inflate

ANSWER = "permessage-deflate; server_no_context_takeover; client_no_context_takeover"


@pytest.mark.parametrize("offer, answer", [
    ("permessage-deflate", ANSWER),
    ("permessage-deflate; client_max_window_bits", ANSWER + "; client_max_window_bits=10"),
    ("permessage-deflate; client_max_window_bits=9", ANSWER + "; client_max_window_bits=9"),
    ("permessage-deflate; client_max_window_bits=\"12\"", ANSWER + "; client_max_window_bits=10"),
    ("permessage-deflate; server_max_window_bits=15; client_max_window_bits=15",
     ANSWER + "; server_max_window_bits=15; client_max_window_bits=10"),
    ("permessage-deflate; server_no_context_takeover; client_no_context_takeover", ANSWER),
    ("permessage-deflate; server_max_window_bits=10", None),
    ("permessage-deflate; server_max_window_bits=10, permessage-deflate; client_max_window_bits", ANSWER + "; client_max_window_bits=10"),
    ("permessage-deflate; client_max_window_bits=16", None),
    ("permessage-deflate; client_max_window_bits=010", None),
    ("permessage-deflate; server_no_context_takeover; server_no_context_takeover", None),
    ("permessage-deflate; server_no_context_takeover=1", None),
    ("permessage-deflate; mystery", None),
    ("x-webkit-deflate-frame", None),
    ("x-webkit-deflate-frame, permessage-deflate", ANSWER),
    # Autobahn's 13.7 offers: 257 bytes, past what libwebsockets itself parses (255).
    ("permessage-deflate; client_no_context_takeover; client_max_window_bits; server_no_context_takeover; server_max_window_bits=9, "
     "permessage-deflate; client_no_context_takeover; client_max_window_bits; server_no_context_takeover, "
     "permessage-deflate; client_no_context_takeover; client_max_window_bits", ANSWER + "; client_max_window_bits=10"),
    (None, None),
])
def test_the_upgrade_answers_each_offer(daemon, offer, answer):
    client = WireClient(daemon.port, offer)
    assert client.extensions == answer
    hello = client.next_message()
    assert not hello.rsv1, "hello is under 1024 bytes here: sent plain"
    assert hello.json()["type"] == "hello"
    client.close()


def big_value(index: int) -> dict:
    return {"title": f"item {index}", "notes": "the quick brown fox jumps over the lazy dog " * 40, "index": index}


def join(client: WireClient, reactor: str, ref: str) -> dict:
    client.next_message()  # hello
    client.send_json({"type": "join", "reactor": reactor, "ref": ref})
    return client.until(lambda message: message.get("ref") == ref).json()


def test_long_frames_go_compressed_once_and_the_same_bytes_reach_every_subscriber(daemon):
    reactor = "doc/compressed"
    first = WireClient(daemon.port, "permessage-deflate; client_max_window_bits")
    second = WireClient(daemon.port, "permessage-deflate")
    plain = WireClient(daemon.port)
    assert plain.extensions is None
    for index, client in enumerate([first, second, plain]):
        assert join(client, reactor, f"j{index}")["type"] == "snapshot"
    actor = WireClient(daemon.port)
    join(actor, reactor, "ja")
    value = big_value(1)
    actor.send_json({"type": "action", "reactor": reactor, "action": {"type": "set", "path": "/a", "value": value}, "ref": "set"})
    frames = [client.until(lambda message: message.get("type") == "patch") for client in (first, second, plain)]
    compressed, other, unpacked = frames
    assert compressed.rsv1 and other.rsv1 and not unpacked.rsv1
    assert compressed.fin and compressed.opcode == 0x1
    # One compression for every subscriber: the same bytes on both sockets.
    assert compressed.payload == other.payload
    assert len(compressed.payload) < len(unpacked.payload) / 3
    # They inflate to exactly the plain frame: the message itself, byte for byte.
    assert inflate(compressed.payload) == unpacked.payload
    patch = unpacked.json()
    assert patch["version"] == 1 and patch["patch"] == [{"op": "add", "path": "/a", "value": value}]
    # A late joiner's long snapshot is compressed too, and reads as the state.
    late = WireClient(daemon.port, "permessage-deflate")
    late.next_message()
    late.send_json({"type": "join", "reactor": reactor, "ref": "late"})
    snapshot = late.until(lambda message: message.get("ref") == "late")
    assert snapshot.rsv1
    assert snapshot.json()["state"] == {"a": value}
    # Short frames go plain on a connection that negotiated the extension.
    first.send_json({"type": "ping", "ref": "p"})
    pong = first.until(lambda message: message.get("ref") == "p")
    assert not pong.rsv1 and pong.payload == b'{"type":"pong","ref":"p"}'
    for client in (first, second, plain, actor, late):
        client.close()


def test_compressed_client_messages_are_inflated_and_answered(daemon):
    client = WireClient(daemon.port, "permessage-deflate; client_max_window_bits")
    client.next_message()
    client.send_json({"type": "join", "reactor": "counter/squeezed", "ref": 1}, compressed=True)
    assert client.until(lambda message: message.get("ref") == 1).json()["state"] == {"value": 0, "isLoading": False}
    # Several messages in a row, each compressed on its own, then one in three fragments.
    for ref in range(2, 6):
        client.send_json({"type": "ping", "ref": ref}, compressed=True)
    assert [client.until(lambda message: message.get("type") == "pong").json()["ref"] for _ in range(4)] == [2, 3, 4, 5]
    packed = deflate(json.dumps({"type": "ping", "ref": "fragmented", "pad": "é" * 300}).encode())
    third = len(packed) // 3
    client.send(frame(packed[:third], fin=False, rsv1=True) + frame(packed[third:2 * third], opcode=0x0, fin=False)
                + frame(packed[2 * third:], opcode=0x0))
    assert client.until(lambda message: message.get("type") == "pong").json()["ref"] == "fragmented"
    client.close()


def test_a_real_client_with_compression_syncs(daemon):
    with connect(daemon.url, compression="deflate", open_timeout=5, max_size=None) as client:
        assert client.response.headers["Sec-WebSocket-Extensions"] == ANSWER + "; client_max_window_bits=10"
        assert json.loads(client.recv(timeout=5))["type"] == "hello"
        client.send(json.dumps({"type": "join", "reactor": "doc/real", "ref": 1}))
        assert json.loads(client.recv(timeout=5))["type"] == "snapshot"
        value = big_value(2)
        client.send(json.dumps({"type": "action", "reactor": "doc/real", "action": {"type": "set", "path": "/big", "value": value}, "ref": 2}))
        messages = [json.loads(client.recv(timeout=5)) for _ in range(2)]
        assert [message["type"] for message in messages] == ["ack", "patch"]
        assert messages[1]["patch"][0]["value"] == value


@pytest.mark.parametrize("name, build, code", [
    # 64 KiB + 1 of spaces inside a string: a few hundred compressed bytes that inflate past the limit.
    ("one small frame that inflates past the limit",
     lambda: frame(deflate(b'{"type":"ping","pad":"' + b" " * 65536 + b'"}'), rsv1=True), 1009),
    ("fragments that together inflate past the limit",
     lambda: b"".join(
         frame(part, opcode=0x1 if index == 0 else 0x0, fin=index == 3, rsv1=index == 0)
         for index, part in enumerate(split4(deflate(b'{"type":"ping","pad":"' + b"x" * 70000 + b'"}'))))
     , 1009),
    ("bytes that are not DEFLATE", lambda: frame(b"\xff\xfe\xfd not deflate", rsv1=True), 1002),
    ("RSV1 on a continuation frame",
     lambda: frame(b'{"type":', fin=False) + frame(deflate(b'"ping"}'), opcode=0x0, rsv1=True), 1002),
    ("a compressed binary message", lambda: frame(deflate(b"\x00\x01\x02"), opcode=0x2, rsv1=True), 1003),
    ("compressed text that is not UTF-8", lambda: frame(deflate(b'{"type":"ping","x":"\xc3\x28"}'), rsv1=True), 1007),
])
def test_compressed_messages_past_the_rules_close_the_connection(daemon, name, build, code):
    client = WireClient(daemon.port, "permessage-deflate")
    client.next_message()
    client.send(build())
    assert client.close_code() == code, name
    client.close()


def split4(data: bytes) -> list[bytes]:
    step = len(data) // 4 + 1
    return [data[index:index + step] for index in range(0, step * 4, step)]


def test_a_compressed_message_at_the_limit_is_taken(daemon):
    client = WireClient(daemon.port, "permessage-deflate")
    client.next_message()
    head, tail = b'{"type":"ping","ref":"edge","pad":"', b'"}'
    message = head + b"y" * (65536 - len(head) - len(tail)) + tail
    assert len(message) == 65536
    client.send(frame(deflate(message), rsv1=True))
    assert client.until(lambda reply: reply.get("ref") == "edge").json() == {"type": "pong", "ref": "edge"}
    client.close()


def test_rsv1_without_the_extension_is_a_protocol_error(daemon):
    client = WireClient(daemon.port)
    client.next_message()
    client.send(frame(deflate(b'{"type":"ping"}'), rsv1=True))
    assert client.close_code() == 1002
    client.close()


def test_compression_off_by_configuration_answers_no_extension(daemon_factory):
    daemon = daemon_factory(base_config(server={"compression": False}))
    client = WireClient(daemon.port, "permessage-deflate; client_max_window_bits")
    assert client.extensions is None
    join(client, "doc/off", "j")
    actor = WireClient(daemon.port)
    join(actor, "doc/off", "ja")
    actor.send_json({"type": "action", "reactor": "doc/off", "action": {"type": "set", "path": "/a", "value": big_value(3)}})
    patch = client.until(lambda message: message.get("type") == "patch")
    assert not patch.rsv1 and len(patch.payload) > 1024
    client.close()
    actor.close()

"""Issue 32 against real daemons: Examples/Chat's `chat-server` with PyJWT-minted tokens.
A reactor knows who acts (the sender's user signs a message, whatever the action says),
hears who joins and leaves, refuses by a rule of its own, validates its settings at start,
and a kind that traps names the action before the daemon ends."""
import json
import os
import pathlib
import socket
import subprocess
import time

import pytest

from auth_support import SECRET, Client, token
from cluster_support import cluster_config, redis_server  # noqa: F401 (fixture)
from conftest import OUTPUT, ROOT, base_config, wait_for

CHAT_BINARY = pathlib.Path(os.environ.get("REACTORHUB_CHAT_BINARY", ROOT / ".build" / "debug" / "chat-server"))
TRAP_BINARY = pathlib.Path(os.environ.get("REACTORHUB_TRAP_BINARY", ROOT / ".build" / "debug" / "trap-server"))


def chat_config(**overrides) -> dict:
    config = base_config(auth={"hs256Secret": SECRET}, reactors={"chat": {"maxMessages": 50, "maxTextLength": 100}})
    config.update(overrides)
    return config


def member(url: str, user: str) -> Client:
    return Client(url, token=token(user, read=["chat/*"], act=["chat/*"]))


def next_state_change(client: Client, timeout: float = 20) -> dict:
    return client.next_unsolicited(lambda frame: frame.get("type") == "patch", timeout=timeout)


def follow(client: Client, snapshot: dict, until, timeout: float = 20) -> dict:
    """Applies patches to `snapshot`'s state until `until(state)`; returns the state."""
    import jsonpatch
    state, version = snapshot["state"], snapshot["version"]
    while not until(state):
        patch = next_state_change(client, timeout)
        assert patch.get("base", patch["version"] - 1) == version
        state = jsonpatch.apply_patch(state, patch["patch"])
        version = patch["version"]
    return state


def test_a_message_is_signed_by_the_token_not_by_what_the_action_claims(daemon_factory):
    daemon = daemon_factory(chat_config(), binary=CHAT_BINARY)
    alice = member(daemon.url, "alice")
    snapshot = alice.join("chat/lobby")
    assert snapshot["type"] == "snapshot"
    # A member the action does not have is refused, naming it; nothing changes.
    claimed = alice.act("chat/lobby", {"type": "say", "text": "I am mallory", "author": "mallory"})
    assert claimed["type"] == "error" and claimed["code"] == "invalid_action", claimed
    assert "author" in claimed["message"]
    said = alice.act("chat/lobby", {"type": "say", "text": "hello"})
    assert said["type"] == "ack" and said["applied"] == said["version"] + 1, said
    state = follow(alice, snapshot, lambda s: s["messages"])
    assert [(m["author"], m["text"]) for m in state["messages"]] == [("alice", "hello")]


def test_only_the_author_may_edit_and_the_refusal_is_the_kinds_sentence(daemon_factory):
    daemon = daemon_factory(chat_config(), binary=CHAT_BINARY)
    alice, bob = member(daemon.url, "alice"), member(daemon.url, "bob")
    alice.join("chat/edits")
    assert alice.act("chat/edits", {"type": "say", "text": "mine"})["type"] == "ack"
    snapshot = bob.join("chat/edits")
    message = snapshot["state"]["messages"][0]
    refused = bob.act("chat/edits", {"type": "edit", "id": message["id"], "text": "now bob's"})
    assert refused["type"] == "error" and refused["code"] == "forbidden", refused
    assert refused["message"] == f"only the author of a message may edit it; '{message['id']}' is alice's"
    # Nothing changed: no patch bob received up to the pong after the refusal touches the
    # messages, and a newcomer sees the same message.
    bob.send({"type": "ping", "ref": "after"})
    while (frame := bob.recv(timeout=20)).get("ref") != "after":
        if frame.get("type") == "patch":
            assert all(not op["path"].startswith("/messages") for op in frame["patch"]), frame
    again = member(daemon.url, "carol").join("chat/edits")
    assert again["state"]["messages"] == [message]
    assert alice.act("chat/edits", {"type": "edit", "id": message["id"], "text": "edited"})["type"] == "ack"


def test_members_follow_joins_leaves_and_a_dropped_connection(daemon_factory):
    daemon = daemon_factory(chat_config(), binary=CHAT_BINARY)
    watcher = member(daemon.url, "watcher")
    watcher.join("chat/room")
    assert wait_for(lambda: members(daemon.url) == ["watcher"], timeout=30), members(daemon.url)
    bob = member(daemon.url, "bob")
    bob.join("chat/room")
    bob_again = member(daemon.url, "bob")  # a second connection of bob: still one member
    bob_again.join("chat/room")
    assert wait_for(lambda: members(daemon.url) == ["watcher", "bob"], timeout=30), members(daemon.url)
    assert bob.request({"type": "leave", "reactor": "chat/room", "ref": "l"})["type"] == "left"
    # bob still has a connection: still a member. Dropping it (no close frame) leaves.
    assert members(daemon.url) == ["watcher", "bob"]
    bob_again.ws.socket.shutdown(socket.SHUT_RDWR)
    bob_again.ws.socket.close()
    assert wait_for(lambda: members(daemon.url) == ["watcher"], timeout=30), members(daemon.url)


def members(url: str) -> list[str]:
    """The room's members as a newcomer sees them, the newcomer left out."""
    reader = member(url, "reader")
    try:
        return [name for name in reader.join("chat/room")["state"]["members"] if name != "reader"]
    finally:
        reader.close()


def test_the_sender_is_the_same_when_the_action_comes_through_another_node(daemon_factory, redis_server):
    prefix = f"chat{os.getpid()}"
    nodes = []
    for index in range(2):
        config = cluster_config(redis_server, f"n{index}", prefix, auth={"hs256Secret": SECRET},
                                reactors={"chat": {"maxMessages": 50, "maxTextLength": 100}})
        nodes.append(daemon_factory(config, name=f"chat-n{index}", binary=CHAT_BINARY))
    owner = member(nodes[0].url, "carol")
    owner.join("chat/across")  # n0 creates the instance and owns it
    alice = member(nodes[1].url, "alice")
    snapshot = alice.join("chat/across")
    said = alice.act("chat/across", {"type": "say", "text": "through n1"})
    assert said["type"] == "ack", said
    state = follow(alice, snapshot, lambda s: s["messages"])
    assert [(m["author"], m["text"]) for m in state["messages"]] == [("alice", "through n1")]
    # The owner heard both joins, from both nodes, with their users.
    assert sorted(state["members"]) == ["alice", "carol"] or sorted(
        follow(alice, snapshot, lambda s: sorted(s["members"]) == ["alice", "carol"])["members"]) == ["alice", "carol"]


@pytest.mark.parametrize("setting, line", [
    ({"maxMessages": 0}, "reactorhub: reactors.chat.maxMessages must be at least 1, got 0"),
    ({"maxTextLength": -5}, "reactorhub: reactors.chat.maxTextLength must be at least 1, got -5"),
])
def test_a_bad_setting_stops_the_start_naming_it(tmp_path, setting, line):
    config = tmp_path / "chat.json"
    config.write_text(json.dumps({"reactors": {"chat": setting}}))
    result = subprocess.run([str(CHAT_BINARY), "--config", str(config), "--port", "0"], capture_output=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.decode().strip().splitlines() == [line]


def test_a_trapping_kind_names_the_instance_and_the_action_before_the_daemon_ends(daemon_factory):
    daemon = daemon_factory(base_config(), binary=TRAP_BINARY, name=f"trap-server-{os.getpid()}-{time.monotonic_ns()}")
    client = Client(daemon.url)
    assert client.join("trap/t1")["type"] == "snapshot"
    assert client.act("trap/t1", {"type": "add", "count": 2})["type"] == "ack"
    client.send({"type": "action", "reactor": "trap/t1", "action": {"type": "add", "count": -1}, "ref": "boom"})
    assert daemon.process.wait(60) != 0
    log = daemon.log_path.read_text(errors="replace")
    lines = [line for line in log.splitlines() if "a trap (" in line]
    assert len(lines) == 1, log[-2000:]
    assert lines[0].startswith("reactorhub: a trap (SIGILL) in the code of reactor trap/t1 while it ran the action 'add';"), lines

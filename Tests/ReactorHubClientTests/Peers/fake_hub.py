"""A scripted stand-in for the daemon, for what the daemon does not do yet: remembering
action ids (`duplicate:true`) and `auth` refreshes (PROTOCOL.md, "Actions that are safe
to resend", "Identity and rights"). It speaks enough of the protocol for one counter:

    python3 fake_hub.py [--drop-first-ack]

Prints `listening PORT`, then one line per event the test checks:

    upgrade AUTHORIZATION        an upgrade, with its Authorization header ("-" when none)
    join REACTOR SINCE           a join ("-" without since, else EPOCH:VERSION)
    action ID REF                an action (with its id)
    auth TOKEN                   an auth message

With --drop-first-ack the first action is applied, then the connection is dropped before
its ack; an action whose id was seen before is answered as the first time, with
"duplicate": true, and not applied again.
"""
import asyncio
import json
import sys

from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed

state = {"value": 0, "isLoading": False}
version = [0]
outcomes = {}
drop_first = ["--drop-first-ack" in sys.argv]
sessions = [0]
subscribers = set()
history = []  # the patch frame of each version, from 1 on


def say(line):
    print(line, flush=True)


async def broadcast(message):
    for websocket in list(subscribers):
        try:
            await websocket.send(json.dumps(message))
        except ConnectionClosed:
            pass


async def handler(websocket):
    sessions[0] += 1
    say(f"upgrade {websocket.request.headers.get('Authorization', '-')}")
    await websocket.send(json.dumps({
        "type": "hello", "protocol": 1, "server": "fake-hub/1", "session": f"c{sessions[0]}",
        "reactors": {"counter": {"actions": {"increase": {}, "decrease": {}}, "pulses": ["alertMessage"]}},
    }))
    try:
        async for text in websocket:
            message = json.loads(text)
            kind, ref = message.get("type"), message.get("ref")
            if kind == "join":
                since = message.get("since")
                say(f"join {message['reactor']} {'-' if since is None else '%s:%s' % (since['epoch'], since['version'])}")
                subscribers.add(websocket)
                if since and since["epoch"] == "fake" and since["version"] <= version[0]:
                    await websocket.send(json.dumps({"type": "resumed", "reactor": message["reactor"], "ref": ref, "epoch": "fake", "version": version[0]}))
                    for frame in history[since["version"]:]:
                        await websocket.send(json.dumps(frame))
                else:
                    await websocket.send(json.dumps({"type": "snapshot", "reactor": message["reactor"], "ref": ref, "epoch": "fake", "version": version[0], "state": state}))
            elif kind == "action":
                action_id = message.get("id")
                say(f"action {action_id} {ref}")
                if action_id in outcomes:
                    await websocket.send(json.dumps({**outcomes[action_id], "ref": ref, "duplicate": True}))
                    continue
                accepted_at = version[0]
                delta = 1 if message["action"] in ("increase", {"type": "increase"}) else -1
                outcomes[action_id] = {"type": "ack", "reactor": message["reactor"], "version": accepted_at}
                state["value"] += delta
                version[0] += 1
                patch = {"type": "patch", "reactor": message["reactor"], "version": version[0],
                         "patch": [{"op": "replace", "path": "/value", "value": state["value"]}]}
                history.append(patch)
                if drop_first[0]:
                    drop_first[0] = False
                    await websocket.close(1011, "dropped before the ack")
                    return
                await websocket.send(json.dumps({**outcomes[action_id], "ref": ref}))
                await broadcast(patch)
            elif kind == "auth":
                say(f"auth {message.get('token')}")
                await websocket.send(json.dumps({"type": "authed", "ref": ref, "user": "alice", "expires": 0}))
            elif kind == "leave":
                subscribers.discard(websocket)
                await websocket.send(json.dumps({"type": "left", "reactor": message["reactor"], "ref": ref}))
            elif kind == "ping":
                await websocket.send(json.dumps({"type": "pong", "ref": ref}))
    except ConnectionClosed:
        pass
    finally:
        subscribers.discard(websocket)


async def main():
    # No time limits of the peer's own (a loaded machine is slow to finish a handshake).
    async with serve(handler, "127.0.0.1", 0, open_timeout=None, ping_interval=None, close_timeout=None) as server:
        say(f"listening {server.sockets[0].getsockname()[1]}")
        await asyncio.Future()


asyncio.run(main())

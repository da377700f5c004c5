"""Races between clients: optimistic concurrency with `doc` patch `test` preconditions
(exactly one of two identical compare-and-swaps wins), and the ordering of a pulse after
the patch of an earlier action from the same sender."""
import asyncio
import random
import time

from conftest import base_config
from sync_harness import RssSampler, SyncClient, canonical, fresh_snapshot, mib, write_report

ROUNDS = 50


def config():
    return base_config(limits={"actionsPerSecond": 100000, "actionBurst": 100000})


async def run_cas(daemon):
    address = "doc/cas"
    rss = RssSampler(daemon).start()
    rng = random.Random(6)
    clients = [SyncClient(daemon.url, name) for name in ("alice", "bob")]
    for client in clients:
        await client.connect()
        await client.join(address)
    setup = await clients[0].act(address, {"type": "set", "path": "/n", "value": 0})
    assert setup["type"] == "ack"
    version = setup["version"] + 1
    wins = {client.name: 0 for client in clients}
    started = time.monotonic()
    for n in range(ROUNDS):
        for client in clients:
            await client.wait_version(address, version)
            assert client.copy(address).state["n"] == n
        ops = [{"op": "test", "path": "/n", "value": n}, {"op": "replace", "path": "/n", "value": n + 1}]
        order = clients[:] if rng.random() < 0.5 else clients[::-1]
        futures = {client.name: client.act(address, {"type": "patch", "ops": ops}) for client in order}
        replies = {name: await future for name, future in futures.items()}
        acks = [name for name, reply in replies.items() if reply["type"] == "ack"]
        errors = [reply for reply in replies.values() if reply["type"] == "error"]
        assert len(acks) == 1 and len(errors) == 1, (n, replies)
        assert errors[0]["code"] == "invalid_action", errors
        assert replies[acks[0]]["version"] == version, "the winner was accepted at the round's version"
        wins[acks[0]] += 1
        version += 1
    for client in clients:
        await client.wait_version(address, version)
    epoch, final, state = await fresh_snapshot(daemon.url, address)
    for client in clients:
        assert client.failures == []
        assert canonical(client.copy(address).state) == canonical(state) == canonical({"n": ROUNDS})
        # the losers changed nothing: one version per round, no more
        assert client.copy(address).versions == ROUNDS + 1
        await client.close()
    assert final == ROUNDS + 1
    await rss.stop()
    return {"rounds": ROUNDS, "wins": wins, "actionsSent": 2 * ROUNDS + 1,
            "durationSeconds": round(time.monotonic() - started, 2), "daemonRssPeakMiB": mib(rss.peak())}


def test_exactly_one_of_two_racing_test_and_replace_patches_wins(daemon_factory):
    daemon = daemon_factory(config())
    figures = asyncio.run(run_cas(daemon))
    write_report("optimistic_concurrency", figures)


async def run_pulse_order(daemon, rounds=200):
    address = "doc/pulses"
    rss = RssSampler(daemon).start()
    sender = SyncClient(daemon.url, "sender", log_events=True)
    noise = SyncClient(daemon.url, "noise")
    observers = [SyncClient(daemon.url, f"observer{i}", log_events=True) for i in range(3)]
    for client in [sender, noise] + observers:
        await client.connect()
        await client.join(address)
    started = time.monotonic()
    noise_futures = []
    sends = []
    for i in range(rounds):
        set_future = sender.act(address, {"type": "set", "path": "/k", "value": i})
        set_ref = sender.last_ref
        emit_future = sender.act(address, {"type": "emit", "name": "after-set", "value": i})
        sends.append((i, set_future, set_ref, emit_future, sender.last_ref))
        # another writer changes other members meanwhile, so versions interleave
        noise_futures.append(noise.act(address, {"type": "set", "path": f"/noise{i % 7}", "value": i}))
        if i % 20 == 19:
            await asyncio.sleep(0)
    await asyncio.gather(*(f for s in sends for f in (s[1], s[3])), *noise_futures)
    # every set changes the document: 2 per round; wait until that is published, then compare
    await sender.wait_version(address, 2 * rounds)
    _, final, state = await fresh_snapshot(daemon.url, address)
    assert final == 2 * rounds
    # a `set` always changes the document, so it made version ack + 1
    set_version = {i: set_future.result()["version"] + 1 for i, set_future, _, _, _ in sends}
    checked = coalesced = 0
    for client in [sender] + observers:
        await client.wait_version(address, final)
        assert client.failures == []
        assert canonical(client.copy(address).state) == canonical(state)
        coalesced += client.copy(address).coalesced
        frame_of_set = {}   # value of /k -> arrival index of the frame that set it
        for index, kind, version, detail in client.copy(address).log:
            if kind == "patch":
                for op in detail:
                    if op["path"] == "/k":
                        frame_of_set[op["value"]] = index
        pulses = client.pulses_of(address)
        assert [p.value["value"] for p in pulses] == list(range(rounds)), (
            f"{client.name}: pulses lost or out of order: {len(pulses)} pulses, {client.report()}")
        for pulse in pulses:
            i = pulse.value["value"]
            assert pulse.index > frame_of_set[i], f"{client.name}: pulse {i} arrived before the patch of its set"
            assert set_version[i] <= pulse.version <= pulse.held, (client.name, pulse, set_version[i])
            checked += 1
    # the sender gets the set's ack, then the emit's ack, then the pulse
    for i, set_future, set_ref, emit_future, emit_ref in sends:
        set_reply, emit_reply = set_future.result(), emit_future.result()
        assert set_reply["type"] == emit_reply["type"] == "ack"
        assert sender.reply_index[set_ref] < sender.reply_index[emit_ref]
        assert emit_reply["version"] >= set_reply["version"] + 1
        pulse = next(p for p in sender.pulses if p.value["value"] == i)
        assert sender.reply_index[emit_ref] < pulse.index and pulse.version == emit_reply["version"]
    for client in [sender, noise] + observers:
        await client.close()
    await rss.stop()
    return {"daemonRssPeakMiB": mib(rss.peak()), "rounds": rounds, "pulsesChecked": checked, "finalVersion": final, "coalescedPatchFrames": coalesced,
            "actionsSent": 3 * rounds, "durationSeconds": round(time.monotonic() - started, 2)}


def test_pulse_of_an_emit_arrives_after_the_patch_of_the_set_before_it(daemon_factory):
    daemon = daemon_factory(config())
    figures = asyncio.run(run_pulse_order(daemon))
    write_report("pulse_ordering", figures)

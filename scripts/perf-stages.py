#!/usr/bin/env python3
"""Groups a perf profile of the daemon by stage of the wire path of an action.

    perf script -i perf.data -F comm,tid,ip,sym | swift demangle --simplified \
        | scripts/perf-stages.py [--micros-per-action US]

Each sample goes to the stage of its innermost frame that names one (the rules below, in
order, tried on each frame from the leaf up); samples whose stack names none go to a
generic stage by the same walk (the lws loop, a Dispatch worker's waits), or to
"unattributed" when the unwinder lost the stack. With --micros-per-action, each share is
also shown as µs of daemon CPU per action.
"""
import re
import sys

SPECIFIC = [
    ("parse: ClientMessageParser (bytes → JSONValue)", r"ClientMessageParser\.parse"),
    ("decode: ActionDecoder (JSONValue → Action)", r"ActionDecoder\.decode"),
    ("hop in: ReactorRuntime.send → serial queue", r"ReactorRuntime\.(send|submit|enqueue)\b|dispatch_async|_dispatch_lane_push|_dispatch_root_queue_poke"),
    ("route: Hub.connection/handle/act/perform, dispatch", r"Hub\.(connection\(_:received:\)|handle|act|forward|perform)|ReactorInstance\.dispatch\(|RateLimit|ActionLoad"),
    ("ack: ReactorInstance.answer (ack message, metrics)", r"ReactorInstance\.answer|closure #3 in ReactorInstance\.dispatch"),
    ("mutate: DocReactor.mutate (edit, size check)", r"DocReactor\.mutate|DocumentEdits|serializedByteCount|SerializedSize"),
    ("reduce: DocReactor.reduce", r"DocReactor\.reduce"),
    ("encode: StateEncoding.encode (State → JSONValue)", r"StateEncoding\.encode"),
    ("diff: JSONPatch.diff", r"JSONPatch\.diff|PatchDiffer"),
    ("patch frame: writePatch, PatchFrame", r"writePatch|PatchFrame\.(init|merge)|ReactorInstance\.combine"),
    ("store: MemoryStateStore.record", r"StateStore\.record|MemoryStateStore"),
    ("hop out: flushBurst, Delivery.send, lws_cancel_service", r"flushBurst|Delivery\.send|Outbox\.|lws_cancel_service|ReactorInstance\.deliver|ReactorInstance\.send\("),
    ("runtime: the rest of ReactorRuntime.drain, publish", r"ReactorRuntime|RuntimeObserver|ReactorInstance\.publish|EffectMachine|Inbox\."),
    ("frame in: lws receive, ServerCore.receive", r"ServerCore\.(receive|tappedReceive)|InboundAssembler|FrameFilter|lws_read|__libc_recv|recvfrom"),
    ("service inbox drain: queue frames per connection", r"drainInbox|ServiceInbox|ServerCore\.enqueue"),
    ("frame out: ServerCore.writable (lws_write, send)", r"ServerCore\.writable|lws_write|Hub\.nextOutput|Delivery\.next|__libc_send|sendto"),
]
GENERIC = [
    ("lws service loop: poll, dispatch of events", r"lws_service|poll"),
    ("Dispatch worker: waits, wake-ups", r"_dispatch_worker_thread|futex|_dispatch|start_wqthread"),
]


def stages(lines):
    samples = []
    frames = []
    for line in lines:
        if not line.strip():
            if frames:
                samples.append(frames)
            frames = []
        elif line[0] in " \t":
            parts = line.strip().split(None, 1)
            frames.append(parts[1] if len(parts) > 1 else "")
        else:
            frames = []
    if frames:
        samples.append(frames)
    specific = [(name, re.compile(rule)) for name, rule in SPECIFIC]
    generic = [(name, re.compile(rule)) for name, rule in GENERIC]
    counts = {}
    for stack in samples:
        stage = None
        for rules in (specific, generic):
            for frame in stack:
                for name, rule in rules:
                    if rule.search(frame):
                        stage = name
                        break
                if stage:
                    break
            if stage:
                break
        stage = stage or "unattributed (stack lost by the unwinder)"
        counts[stage] = counts.get(stage, 0) + 1
    return len(samples), counts


def main():
    micros = None
    if "--micros-per-action" in sys.argv:
        micros = float(sys.argv[sys.argv.index("--micros-per-action") + 1])
    total, counts = stages(sys.stdin)
    order = [name for name, _ in SPECIFIC + GENERIC] + ["unattributed (stack lost by the unwinder)"]
    print(f"| stage | share of daemon CPU |{' µs per action |' if micros else ''}")
    print(f"|---|---|{'---|' if micros else ''}")
    for name in order:
        if name not in counts:
            continue
        share = counts[name] / total
        extra = f" {share * micros:.2f} |" if micros else ""
        print(f"| {name} | {share * 100:.1f} % |{extra}")
    print(f"\n{total} samples")


if __name__ == "__main__":
    main()

#!/usr/bin/env bash
# Idle connections at scale (BENCHMARKS.md, "Idle connections at 18,000"): N connections
# held open against the daemon (each joined to one of R `doc` reactors) and against the
# raw lws mirror (open only, as in `make bench`), in alternating rounds so that both see
# the same machine. For each run: the time to connect (and join) them all, and the server's
# resident memory per connection (RSS after minus RSS of the fresh process, over N).
#
#   scripts/bench-idle.sh [--connections N] [--reactors R] [--rounds K]
#                         [--daemon PATH] [--bench PATH]
#
# Defaults: 18,000 connections (this machine allows 20,000 open files per process),
# 100 reactors, 2 rounds. Each run starts a fresh server.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

connections=18000 reactors=100 rounds=2
daemon=${REACTORHUB_BIN:-} bench=${REACTORHUB_BENCH_BIN:-}
while [ $# -gt 0 ]; do
  case "$1" in
    --connections) connections=$2; shift 2 ;;
    --reactors) reactors=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --daemon) daemon=$2; shift 2 ;;
    --bench) bench=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-idle: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [ -z "$daemon" ] || [ -z "$bench" ]; then
  swift build -c release --product reactorhub >&2
  swift build -c release --product reactorhub-bench >&2
  daemon=${daemon:-.build/release/reactorhub}
  bench=${bench:-.build/release/reactorhub-bench}
fi
command -v libwebsockets-test-server >/dev/null || { echo "bench-idle: libwebsockets-test-server is needed (scripts/ensure-deps.sh bench)" >&2; exit 1; }
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $((connections + 300)) ]; then
  echo "bench-idle: open-file limit $(ulimit -n) is below $((connections + 300))" >&2; exit 1
fi

work=$(mktemp -d /tmp/reactorhub-bench-idle.XXXXXX)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 1 200); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.05; done; return 1; }

# The benchmark's daemon configuration, with room for N connections.
python3 - "$connections" > "$work/daemon.json" <<'EOF'
import json, sys
config = json.load(open("bench/daemon.json"))
config["limits"]["maxConnections"] = int(sys.argv[1]) + 100
print(json.dumps(config))
EOF

# The last run's connections linger in TIME_WAIT for 60 s, holding ephemeral ports: 18,000
# more connections then search the port range for free ones, and the time to connect
# measured the previous run's leftovers (4-12 s for the same server in one sitting). Each
# run waits (up to 75 s) until fewer than 500 remain.
settle() {
  for _ in $(seq 1 75); do
    [ "$(ss -Htan state time-wait 2>/dev/null | wc -l)" -lt 500 ] && return 0
    sleep 1
  done
}

run() { # run NAME: one fresh server, N connections, its RESULT line
  local name=$1 port
  settle
  port=$(free_port)
  case "$name" in
    daemon)
      "$daemon" --config "$work/daemon.json" --port "$port" > "$work/daemon.log" 2>&1 &
      pid=$!; args=(--url "ws://127.0.0.1:$port/ws" --reactors "$reactors") ;;
    mirror)
      libwebsockets-test-server --port="$port" -i lo -n > "$work/mirror.log" 2>&1 &
      pid=$!; args=(--url "ws://127.0.0.1:$port/" --protocol mirror --subprotocol lws-mirror-protocol) ;;
  esac
  wait_port "$port"; sleep 0.5
  "$bench" idle "${args[@]}" --connections "$connections" --hold 2 --server-pid "$pid" --label "$name" --quiet \
    | sed -n 's/^RESULT //p' | tee -a "$work/results.jsonl"
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
}

for round in $(seq 1 "$rounds"); do
  run daemon
  run mirror
done

python3 - "$work/results.jsonl" <<'EOF'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
def med(name, key):
    values = [r[key] for r in rows if r["label"] == name]
    return statistics.median(values) if values else None
for name in ("daemon", "mirror"):
    runs = [r for r in rows if r["label"] == name]
    print(f"{name}: " + "; ".join(f'{r["open"]}/{r["connections"]} open in {r["connectSeconds"]:.2f} s, {r["bytesPerConnection"]:.0f} B each' for r in runs))
    # The client's CPU is most of the time to connect: when it varies for the same work,
    # so does that time (the server's CPU tells the servers apart).
    print(f"{name}: CPU while connecting, client / server / rest of the machine: "
          + "; ".join(f'{r["clientCPUSeconds"]:.2f} / {r["serverCPUSeconds"]:.2f} / {r["otherCPUSeconds"]:.2f} s' for r in runs))
d, m = med("daemon", "connectSeconds"), med("mirror", "connectSeconds")
print(f"median bytes per connection: daemon {med('daemon', 'bytesPerConnection'):.0f} B (joined), mirror {med('mirror', 'bytesPerConnection'):.0f} B (open)")
print(f"median time to connect all: daemon {d:.2f} s (connect + join), mirror {m:.2f} s (connect): ratio {d / m:.2f}")
EOF

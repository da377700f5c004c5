#!/usr/bin/env bash
# Ingest (BENCHMARKS.md, "Ingest: CPU and allocations per action"): one sender puts
# `set`s of a small value into one `doc` (window 256, acks on) with 10 subscribers, and
# the daemon's cost is measured per action, in ways that hold on a shared machine:
#
#   - CPU: the daemon's utime+stime (/proc/PID/stat) over the measured actions;
#   - heap: allocations per action, with bench/malloc-count.so preloaded into the daemon
#     (a separate run: its atomic counters cost a little CPU);
#   - profile: `perf record --call-graph dwarf` of the daemon during a third run.
#
#   scripts/bench-ingest.sh [--rounds N] [--duration S] [--window W | --rate R]
#                           [--subscribers N] [--no-profile] [--daemon PATH]
#                           [--baseline PATH] [--floor] [--bench PATH] [--keep DIR]
#
# Each round starts a fresh daemon (bench/daemon.json). Prints each run, then the
# medians of the CPU runs and the heap run. --rate R sends R actions/s on a timer instead
# of keeping W in flight: CPU per action then compares builds at the same load (bursts
# of the same size), which a saturated run on a shared machine does not. --baseline PATH
# runs that daemon too, in alternate rounds (CPU and heap), so that both see the same
# machine. --floor runs bench/floor-server.c too, in alternate rounds (CPU only): the
# socket work of the same messages on libwebsockets with no engine (one in, one out per
# connection, frames built once and written together), the least any lws server pays.
# --keep DIR keeps the results and perf.data.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

rounds=3 duration=5 window=256 rate= subscribers=10 profile=1 keep= baseline= floor=0
daemon=${REACTORHUB_BIN:-} bench=${REACTORHUB_BENCH_BIN:-}
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --window) window=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --baseline) baseline=$2; shift 2 ;;
    --floor) floor=1; shift ;;
    --subscribers) subscribers=$2; shift 2 ;;
    --no-profile) profile=0; shift ;;
    --daemon) daemon=$2; shift 2 ;;
    --bench) bench=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-ingest: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [ -z "$daemon" ]; then swift build -c release --product reactorhub >&2; daemon=.build/release/reactorhub; fi
if [ -z "$bench" ]; then swift build -c release --product reactorhub-bench >&2; bench=.build/release/reactorhub-bench; fi

work=$(mktemp -d /tmp/reactorhub-bench-ingest.XXXXXX)
cc -O2 -shared -fPIC -o "$work/malloc-count.so" bench/malloc-count.c
if [ "$floor" = 1 ]; then
  scripts/build-floor-server.sh "$work/floor-server"
fi
results=$work/results.jsonl
: > "$results"
server_pid=
stop() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid"; wait "$server_pid" 2>/dev/null || true
  fi
  server_pid=
}
finish() {
  stop
  if [ -n "$keep" ]; then mkdir -p "$keep" && cp "$results" "$work"/*.txt "$keep/" 2>/dev/null || true
    [ -f "$work/perf.data" ] && cp "$work/perf.data" "$keep/"; fi
  rm -rf "$work"
}
trap finish EXIT

# start_daemon BINARY [env assignments…]: a fresh daemon on a free port; sets server_pid, url.
start_daemon() {
  stop
  local binary=$1; shift
  env "$@" "$binary" --config bench/daemon.json --port 0 > "$work/daemon.log" 2>&1 &
  server_pid=$!
  local port=
  for _ in $(seq 1 200); do
    port=$(grep -m1 -o 'listening on [a-z]*://[0-9.]*:[0-9]*' "$work/daemon.log" 2>/dev/null | grep -o '[0-9]*$' || true)
    [ -n "$port" ] && break
    sleep 0.05
  done
  [ -n "$port" ] || { echo "bench-ingest: the daemon did not start:" >&2; cat "$work/daemon.log" >&2; exit 1; }
  url="ws://127.0.0.1:$port/ws"
}

# start_floor: bench/floor-server on a free port; sets server_pid, url.
start_floor() {
  stop
  local port
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "$work/floor-server" "$port" > "$work/floor.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 200); do grep -q '^listening' "$work/floor.log" 2>/dev/null && break; sleep 0.05; done
  grep -q '^listening' "$work/floor.log" || { echo "bench-ingest: the floor server did not start:" >&2; cat "$work/floor.log" >&2; exit 1; }
  url="ws://127.0.0.1:$port/"
}

# run LABEL [bench options…]: one ingest run against the running daemon.
run() {
  local label=$1; shift
  local pace=(--window "$window")
  [ -n "$rate" ] && pace=(--rate "$rate")
  "$bench" fanout --url "$url" --server-pid "$server_pid" --subscribers "$subscribers" --senders 1 \
    "${pace[@]}" --acks --warmup 1 --duration "$duration" --label "$label" --quiet "$@" > "$work/out.txt"
  grep -v '^RESULT ' "$work/out.txt"
  grep '^RESULT ' "$work/out.txt" | sed 's/^RESULT //' >> "$results"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq 1 "$rounds"); do
  start_daemon "$daemon"
  run "cpu-$round"
  if [ -n "$baseline" ]; then start_daemon "$baseline"; run "base-cpu-$round"; fi
  if [ "$floor" = 1 ]; then start_floor; run "floor-cpu-$round" --protocol mirror; fi
done
start_daemon "$daemon" MALLOC_COUNT_FILE="$work/mallocs" LD_PRELOAD="$work/malloc-count.so"
run heap --malloc-count "$work/mallocs"
if [ -n "$baseline" ]; then
  start_daemon "$baseline" MALLOC_COUNT_FILE="$work/mallocs" LD_PRELOAD="$work/malloc-count.so"
  run base-heap --malloc-count "$work/mallocs"
fi
if [ "$profile" = 1 ] && perf stat -e task-clock true >/dev/null 2>&1; then
  start_daemon "$daemon"
  ( sleep 1.5; perf record -F 2000 --call-graph dwarf,16384 -p "$server_pid" -o "$work/perf.data" -- sleep 3 \
      > "$work/perf.log" 2>&1 || true ) &
  perf_pid=$!
  run profile
  wait "$perf_pid" || true
  perf report -i "$work/perf.data" --children --sort sym --stdio -g none --percent-limit 0.3 2>/dev/null \
    | grep -E '^ +[0-9]' | swift demangle --simplified > "$work/profile-children.txt" || true
  perf report -i "$work/perf.data" --no-children --sort dso,sym --stdio -g none --percent-limit 0.3 2>/dev/null \
    | grep -E '^ +[0-9]' | swift demangle --simplified > "$work/profile-self.txt" || true
  echo "== profile, inclusive (children), top 60"; head -60 "$work/profile-children.txt"
  echo "== profile, self, top 40"; head -40 "$work/profile-self.txt"
fi
stop
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$results" <<'PY'
import json, statistics, sys
runs = [json.loads(line) for line in open(sys.argv[1])]
def med(key, rs):
    values = [r[key] for r in rs if key in r]
    return statistics.median(values) if values else float("nan")
for prefix, name in (("", "daemon"), ("base-", "baseline"), ("floor-", "floor")):
    cpu = [r for r in runs if r["label"].startswith(prefix + "cpu-")]
    if not cpu:
        continue
    print(f"{name}: CPU runs ({len(cpu)}): server CPU per action, median {med('serverCPUMicrosPerAction', cpu):.2f} µs "
          f"(each: {', '.join(str(r['serverCPUMicrosPerAction']) for r in cpu)}); "
          f"actions/s median {med('actionsPerSecond', cpu):.0f}; acks/s {med('acksPerSecond', cpu):.0f}; "
          f"load client CPU per action {statistics.median(r['clientCPUSeconds'] / (r['actionsPerSecond'] * r['seconds']) * 1e6 for r in cpu):.2f} µs; "
          f"all ordered: {all(r['ordered'] for r in cpu)}")
    for r in runs:
        if r["label"] == prefix + "heap":
            print(f"{name}: heap run: {r['serverAllocationsPerAction']} allocations, {r['serverReallocationsPerAction']} reallocations, "
                  f"{r['serverFreesPerAction']} frees, {r['serverHeapBytesPerAction']} bytes per action "
                  f"({r['actionsPerSecond']:.0f} actions/s, {r['serverCPUMicrosPerAction']} µs per action with the counter)")
PY

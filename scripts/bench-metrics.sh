#!/usr/bin/env bash
# Metrics on the hot path (BENCHMARKS.md, "Metrics on the hot path"): saturated fan-out
# with metrics on (and /metrics scraped every second, as a 1 s Prometheus would) against
# metrics off (`metrics.enabled: false`, no scrape), in alternating rounds in one sitting.
#
#   scripts/bench-metrics.sh [--rounds N] [--duration S] [--windows W,W] [--subscribers N]
#                            [--scrape-interval S] [--daemon PATH] [--bench PATH] [--keep DIR]
#
# Each run starts a fresh daemon (bench/daemon.json plus the metrics section) and drives
# it with `reactorhub-bench fanout`; rounds go on, off, off, on, on, off, … so that a
# drift of the machine falls on both. Before each run it waits (up to 20 s) for the rest
# of the machine to use less than half a core. Prints every run and the medians by
# window: updates/s, and the daemon's CPU time per 1,000 updates (less sensitive to other
# load than throughput). Then what one scrape costs the daemon: its CPU time per request
# of /healthz, /readyz and /metrics (500 each) with 10 and with 1,000 idle connections
# joined. --keep DIR keeps the raw results there.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

rounds=4 duration=4 windows=8,512 subscribers=100 interval=1 keep=
daemon=${REACTORHUB_BIN:-} bench=${REACTORHUB_BENCH_BIN:-}
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --windows) windows=$2; shift 2 ;;
    --subscribers) subscribers=$2; shift 2 ;;
    --scrape-interval) interval=$2; shift 2 ;;
    --daemon) daemon=$2; shift 2 ;;
    --bench) bench=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-metrics: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [ -z "$daemon" ]; then swift build -c release --product reactorhub >&2; daemon=.build/release/reactorhub; fi
if [ -z "$bench" ]; then swift build -c release --product reactorhub-bench >&2; bench=.build/release/reactorhub-bench; fi

work=$(mktemp -d /tmp/reactorhub-bench-metrics.XXXXXX)
cp "$daemon" "$work/reactorhub"
results=$work/results.jsonl
: > "$results"
server_pid= scraper_pid=
stop() {
  [ -n "$scraper_pid" ] && kill "$scraper_pid" 2>/dev/null && wait "$scraper_pid" 2>/dev/null || true
  scraper_pid=
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid"; wait "$server_pid" 2>/dev/null || true
  fi
  server_pid=
}
finish() {
  stop
  if [ -n "$keep" ]; then mkdir -p "$keep" && cp "$results" "$keep/"; fi
  rm -rf "$work"
}
trap finish EXIT

cpu_sample() { awk '/^cpu /{ busy=$2+$3+$4+$7+$8+$9; total=busy+$5+$6; print busy, total }' /proc/stat; }
wait_quiet() {  # until the machine (nothing of ours runs now) uses less than half a core
  local waited=0 b1 t1 b2 t2 pct
  while [ "$waited" -lt 20 ]; do
    read -r b1 t1 < <(cpu_sample); sleep 1; read -r b2 t2 < <(cpu_sample)
    pct=$(( (b2 - b1) * 100 * $(nproc) / (t2 - t1 > 0 ? t2 - t1 : 1) ))
    [ "$pct" -lt 50 ] && return 0
    waited=$((waited + 1))
  done
  echo "bench-metrics: the machine stayed busy ($pct % of a core); measuring anyway" >&2
}

for mode in on off; do
  enabled=$([ "$mode" = on ] && echo true || echo false)
  python3 - "$repo" "$enabled" > "$work/$mode.json" <<'PYTHON'
import json, sys
repo, enabled = sys.argv[1], sys.argv[2] == "true"
config = json.load(open(f"{repo}/bench/daemon.json"))
config.update(webRoot=f"{repo}/web", metrics={"enabled": enabled},
              reactors={"weather": {"dataFile": f"{repo}/config/weather.json"}})
print(json.dumps(config))
PYTHON
done

run() {  # run MODE WINDOW ROUND
  local mode=$1 window=$2 round=$3 port
  wait_quiet
  "$work/reactorhub" --config "$work/$mode.json" --port 0 > "$work/daemon.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 200); do
    port=$(grep -m1 -o 'listening on http://[0-9.]*:[0-9]*' "$work/daemon.log" 2>/dev/null | grep -o '[0-9]*$' || true)
    [ -n "$port" ] && break; sleep 0.05
  done
  if [ "$mode" = on ]; then
    (while :; do curl -s -o /dev/null "http://127.0.0.1:$port/metrics"; sleep "$interval"; done) &
    scraper_pid=$!
  fi
  local line
  line=$("$bench" fanout --url "ws://127.0.0.1:$port/ws" --server-pid "$server_pid" --subscribers "$subscribers" \
    --window "$window" --warmup 1 --duration "$duration" --quiet 2>/dev/null | grep -m1 '^RESULT ' | cut -c8- || true)
  stop
  printf '{"mode":"%s","window":%s,"round":%s,"result":%s}\n' "$mode" "$window" "$round" "${line:-{\}}" >> "$results"
  echo "round $round window $window metrics $mode: $(grep -o '"updatesPerSecond":[0-9.]*' <<<"$line" | cut -d: -f2) updates/s" >&2
}

IFS=, read -r -a window_list <<<"$windows"
for round in $(seq 1 "$rounds"); do
  if [ $((round % 2)) = 1 ]; then order=(on off); else order=(off on); fi
  for window in "${window_list[@]}"; do
    for mode in "${order[@]}"; do run "$mode" "$window" "$round"; done
  done
done

python3 - "$results" "$interval" <<'PYTHON'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
def good(r):
    return (r.get("updatesPerSecond") or 0) > 0 and r.get("ordered")
def cpu_per_k(r):  # daemon CPU ms per 1,000 updates applied
    return 1e6 * (r.get("serverCPUSeconds") or 0) / ((r.get("updatesPerSecond") or 1) * (r.get("seconds") or 1))
print("| window | metrics | updates/s of each run | median updates/s | daemon CPU per 1,000 updates, median | other CPU, median | runs kept |")
print("|---|---|---|---|---|---|---|")
medians = {}
for window in sorted({r["window"] for r in rows}):
    for mode in ("on", "off"):
        runs = [r["result"] for r in rows if r["window"] == window and r["mode"] == mode]
        kept = [r for r in runs if good(r)]
        ups = statistics.median(r["updatesPerSecond"] for r in kept)
        cpu = statistics.median(cpu_per_k(r) for r in kept)
        other = statistics.median((r.get("otherCPUSeconds") or 0) / (r.get("seconds") or 1) for r in kept)
        medians[(window, mode)] = (ups, cpu)
        label = f"on, /metrics scraped every {sys.argv[2]} s" if mode == "on" else "off (`enabled: false`)"
        each = ", ".join(f"{r.get('updatesPerSecond') or 0:,.0f}" + ("" if good(r) else " (failed)") for r in runs)
        print(f"| {window} | {label} | {each} | **{ups:,.0f}** | **{cpu:.2f} ms** | {other * 100:.0f} % | {len(kept)} of {len(runs)} |")
print()
for window in sorted({r["window"] for r in rows}):
    (on_u, on_c), (off_u, off_c) = medians[(window, "on")], medians[(window, "off")]
    print(f"window {window}: updates/s on/off {on_u / off_u:.3f} ({(on_u / off_u - 1) * 100:+.1f} %), "
          f"CPU per update on/off {on_c / off_c:.3f} ({(on_c / off_c - 1) * 100:+.1f} %)")
PYTHON

# --- what one scrape costs --------------------------------------------------------------
echo
echo "| connections | request | daemon CPU per request | wall p50 |"
echo "|---|---|---|---|"
for connections in 10 1000; do
  wait_quiet
  "$work/reactorhub" --config "$work/on.json" --port 0 > "$work/daemon.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 200); do
    port=$(grep -m1 -o 'listening on http://[0-9.]*:[0-9]*' "$work/daemon.log" 2>/dev/null | grep -o '[0-9]*$' || true)
    [ -n "$port" ] && break; sleep 0.05
  done
  "$bench" idle --url "ws://127.0.0.1:$port/ws" --connections "$connections" --reactors 10 --hold 60 --quiet > "$work/idle.log" 2>&1 &
  idle_pid=$!
  for _ in $(seq 1 400); do
    [ "$(curl -s "http://127.0.0.1:$port/metrics" | grep -m1 '^reactorhub_subscriptions{kind="doc"}' | cut -d' ' -f2)" = "$connections" ] && break
    sleep 0.05
  done
  python3 - "$server_pid" "$port" "$connections" <<'PYTHON'
import os, statistics, sys, time, urllib.request
pid, port, connections = int(sys.argv[1]), sys.argv[2], sys.argv[3]
def cpu():
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
for path in ("/healthz", "/readyz", "/metrics"):
    before, wall = cpu(), []
    for _ in range(500):
        start = time.perf_counter()
        urllib.request.urlopen(f"http://127.0.0.1:{port}{path}").read()
        wall.append(time.perf_counter() - start)
    print(f"| {connections} | `{path}` | {(cpu() - before) / 500 * 1e6:,.0f} µs | {statistics.median(wall) * 1e3:.2f} ms |")
PYTHON
  kill "$idle_pid" 2>/dev/null; wait "$idle_pid" 2>/dev/null || true
  stop
done

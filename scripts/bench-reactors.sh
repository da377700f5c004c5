#!/usr/bin/env bash
# Many reactors (issue 22, "Many reactors"; reactorhub-bench --reactors): the fan-out
# spread over R reactors, against the lws mirror running as many rooms, then the ingest
# summed over 8 reactors.
#
#   (a) Fan-out: R = 1,000 reactors × 10 subscribers (10,000 in all) and 10 senders, each
#       on R/10 = 100 reactors (one connection per reactor, one action to each in turn).
#       The daemon's reactor k is `doc/<fresh name>-k`; the mirror's room k is
#       `?mirror=<fresh name>-k`. Saturation: each sender keeps W actions in flight over
#       its reactors, an action being done once every subscriber of its own reactor holds
#       it; one run per server tries each W of --window and reports the best (in order,
#       most updates/s). Fixed rate: --rate actions/s in all (1,000: one per reactor per
#       second), for the p99 from the send to the last subscriber of the action's reactor.
#       Within each round the daemon and the mirror take turns at each kind of run (the
#       first of them alternating from round to round); every run starts a fresh server.
#   (b) Ingest: 8 reactors, 8 senders (one each), 80 subscribers, acks, window 256, against
#       the daemon: actions/s summed over the reactors and the daemon's CPU per action
#       (utime+stime from /proc/PID/stat over the measured actions, as bench-ingest.sh).
#
# The mirror: libwebsockets-test-server 4.1.6 keeps at most 3 rooms (a fourth room's
# connections are dropped), so with R > 3 the default is the same server with that limit
# raised, built by scripts/build-mirror-rooms.sh into .build/mirror-rooms/ (built here
# when missing). --node adds bench/node-broadcast.js (node-ws; rooms by ?mirror= too).
#
#   scripts/bench-reactors.sh [--rounds K] [--reactors R] [--subscribers N] [--senders S]
#                             [--window W,W…] [--rate A[,A…]] [--duration S]
#                             [--rate-duration S] [--warmup S] [--ingest-reactors R]
#                             [--ingest-subscribers N] [--ingest-senders S]
#                             [--ingest-window W] [--ingest-duration S] [--no-fanout]
#                             [--no-ingest] [--node] [--daemon PATH] [--mirror PATH]
#                             [--bench PATH] [--keep DIR]
#
# Defaults: 2 rounds; (a) 1000 reactors, 10000 subscribers, 10 senders, windows
# 32,128,512,2048 (per reactor that is ~W/100 in flight: the mirror's ring of 32 messages
# is per room), 3 s each, 1000 actions/s for 8 s; (b) 8/80/8, window 256, 4 s; warm-up
# 1 s. --daemon: $REACTORHUB_BIN or .build/release/reactorhub (built when not given), the
# same for --bench ($REACTORHUB_BENCH_BIN). Prints one line per run and the medians;
# asserts nothing. --keep DIR keeps each run's output and the RESULT lines.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

rounds=2 reactors=1000 subscribers=10000 senders=10 windows=32,128,512,2048 rates=1000
duration=3 rate_duration=8 warmup=1
ingest_reactors=8 ingest_subscribers=80 ingest_senders=8 ingest_window=256 ingest_duration=4
fanout=1 ingest=1 node=0 mirror= keep=
daemon=${REACTORHUB_BIN:-} bench=${REACTORHUB_BENCH_BIN:-}
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --reactors) reactors=$2; shift 2 ;;
    --subscribers) subscribers=$2; shift 2 ;;
    --senders) senders=$2; shift 2 ;;
    --window) windows=$2; shift 2 ;;
    --rate) rates=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --rate-duration) rate_duration=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --ingest-reactors) ingest_reactors=$2; shift 2 ;;
    --ingest-subscribers) ingest_subscribers=$2; shift 2 ;;
    --ingest-senders) ingest_senders=$2; shift 2 ;;
    --ingest-window) ingest_window=$2; shift 2 ;;
    --ingest-duration) ingest_duration=$2; shift 2 ;;
    --no-fanout) fanout=0; shift ;;
    --no-ingest) ingest=0; shift ;;
    --node) node=1; shift ;;
    --daemon) daemon=$2; shift 2 ;;
    --mirror) mirror=$2; shift 2 ;;
    --bench) bench=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h|--help) sed -n '2,38p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-reactors: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [ -z "$daemon" ]; then swift build -c release --product reactorhub >&2; daemon=.build/release/reactorhub; fi
if [ -z "$bench" ]; then swift build -c release --product reactorhub-bench >&2; bench=.build/release/reactorhub-bench; fi
servers=(daemon)
if [ "$fanout" = 1 ]; then
  if [ -z "$mirror" ]; then
    if [ "$reactors" -le 3 ]; then
      mirror=$(command -v libwebsockets-test-server || true)
      [ -n "$mirror" ] || { echo "bench-reactors: libwebsockets-test-server is needed (scripts/ensure-deps.sh bench)" >&2; exit 1; }
    else
      mirror=.build/mirror-rooms/libwebsockets-test-server
      [ -x "$mirror" ] || scripts/build-mirror-rooms.sh >&2
    fi
  fi
  servers+=(mirror)
  [ "$node" = 1 ] && servers+=(node)
fi
# Subscribers and one connection per (sender, reactor) pair, in the client and in the server.
connections=$((subscribers + (reactors > senders ? reactors : senders)))
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
if [ "$fanout" = 1 ] && [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $((connections + 300)) ]; then
  echo "bench-reactors: open-file limit $(ulimit -n) is below $((connections + 300))" >&2; exit 1
fi

work=$(mktemp -d /tmp/reactorhub-bench-reactors.XXXXXX)
results=$work/results.jsonl
: > "$results"
pid=
stop() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
  fi
  pid=
}
finish() {
  stop
  if [ -n "$keep" ]; then mkdir -p "$keep" && cp "$results" "$work"/*.txt "$keep/" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap finish EXIT

# The benchmark's daemon configuration, with room for every connection.
python3 - "$connections" > "$work/daemon.json" <<'EOF'
import json, sys
config = json.load(open("bench/daemon.json"))
config["limits"]["maxConnections"] = max(config["limits"]["maxConnections"], int(sys.argv[1]) + 100)
print(json.dumps(config))
EOF

# Waits for "listening on …:PORT" in LOG; prints PORT.
wait_listening() {
  local log=$1 port=
  for _ in $(seq 1 200); do
    port=$(grep -m1 -o 'listening on [a-z]*://[0-9.]*:[0-9]*' "$log" 2>/dev/null | grep -o '[0-9]*$' || true)
    [ -n "$port" ] && { echo "$port"; return 0; }
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  echo "bench-reactors: the server did not start:" >&2; cat "$log" >&2; exit 1
}
. "$repo/scripts/free-port.sh"

# start SERVER: a fresh server; sets pid, url and mode (the bench's mode and protocol).
start() {
  stop
  local port
  case "$1" in
    daemon)
      "$daemon" --config "$work/daemon.json" --port 0 > "$work/daemon.log" 2>&1 &
      pid=$!
      port=$(wait_listening "$work/daemon.log")
      url="ws://127.0.0.1:$port/ws"; mode=(fanout) ;;
    mirror)
      # -i lo: the loopback interface only; -n: no dumb-increment spam.
      port=$(free_port)
      "$mirror" --port="$port" -i lo -n > "$work/mirror.log" 2>&1 &
      pid=$!
      for _ in $(seq 1 200); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.05; done
      url="ws://127.0.0.1:$port/"; mode=(raw --protocol mirror --subprotocol lws-mirror-protocol) ;;
    node)
      node bench/node-broadcast.js 0 > "$work/node.log" 2>&1 &
      pid=$!
      port=$(wait_listening "$work/node.log")
      url="ws://127.0.0.1:$port/"; mode=(raw --protocol mirror --subprotocol '') ;;
  esac
}

# run KIND SERVER ROUND [bench options…]: one run on a fresh server; prints its line.
run() {
  local kind=$1 server=$2 round=$3; shift 3
  start "$server"
  local out=$work/$kind-$server-$round.txt
  "$bench" "${mode[@]}" --url "$url" --server-pid "$pid" --label "$kind/$server/$round" --quiet "$@" > "$out" 2>&1 || true
  stop
  local line
  line=$(grep -m1 '^RESULT ' "$out" | cut -c8- || true)
  [ -n "$line" ] || { line="{\"label\":\"$kind/$server/$round\",\"aborted\":\"no result\"}"; tail -5 "$out" >&2; }
  printf '%s\n' "$line" >> "$results"
  python3 - "$line" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
s = r.get("seconds") or 0
def pct(key):
    return f"{r[key] / s * 100:.0f} %" if s and r.get(key) is not None else "–"
last = r.get("last") or {}
pace = f"window {r['window']}" if "window" in r else f"rate {r.get('rate', '?')}/s"
text = (f"{r['label']}: {r.get('reactors', '?')} reactors, {r.get('subscribers', '?')} subscribers, {pace}: "
        f"{r.get('updatesPerSecond', 0):,.0f} updates/s, {r.get('actionsPerSecond', 0):,.0f} actions/s, "
        f"last p50/p99 {(last.get('p50') or 0) / 1000:.2f}/{(last.get('p99') or 0) / 1000:.2f} ms, "
        f"server {pct('serverCPUSeconds')}, client {pct('clientCPUSeconds')}, other {pct('otherCPUSeconds')}, "
        f"connect {r.get('connectSeconds', 0):.2f} s")
if "acksPerSecond" in r and "serverCPUMicrosPerAction" in r:
    text += f", {r['serverCPUMicrosPerAction']:.2f} µs server CPU per action, {r['acksPerSecond']:,.0f} acks/s"
problem = r.get("aborted") or r.get("firstServerError") or r.get("firstClose") or "see --keep"
print(text + (", in order" if r.get("ordered") else f", PROBLEMS: {problem}"))
PY
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); mirror: ${mirror:-–}"
for round in $(seq 1 "$rounds"); do
  order=("${servers[@]}")
  if [ $((round % 2)) = 0 ] && [ ${#servers[@]} -gt 1 ]; then order=("${servers[@]:1}" "${servers[0]}"); fi
  if [ "$fanout" = 1 ]; then
    common=(--reactors "$reactors" --subscribers "$subscribers" --senders "$senders" --warmup "$warmup")
    for server in "${order[@]}"; do
      run sat "$server" "$round" "${common[@]}" --window "$windows" --duration "$duration"
    done
    for rate in ${rates//,/ }; do
      for server in "${order[@]}"; do
        run "rate$rate" "$server" "$round" "${common[@]}" --rate "$rate" --duration "$rate_duration"
      done
    done
  fi
  if [ "$ingest" = 1 ]; then
    run ingest daemon "$round" --reactors "$ingest_reactors" --subscribers "$ingest_subscribers" --senders "$ingest_senders" \
      --acks --window "$ingest_window" --warmup "$warmup" --duration "$ingest_duration"
  fi
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$results" <<'PY'
import json, statistics, sys
runs = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
groups = {}
for r in runs:
    kind, server, _ = r["label"].split("/")
    groups.setdefault((kind, server), []).append(r)
def med(rs, get):
    values = [v for v in (get(r) for r in rs) if v is not None]
    return statistics.median(values) if values else None
def each(rs, get, scale=1, digits=0):
    return ", ".join("–" if get(r) is None else f"{get(r) / scale:,.{digits}f}" for r in rs)
ups = lambda r: r.get("updatesPerSecond")
p99 = lambda r: (r.get("last") or {}).get("p99")
kinds = sorted({kind for kind, _ in groups}, key=lambda k: (k != "sat", k == "ingest", k))
for kind in kinds:
    medians = {}
    for (k, server), rs in groups.items():
        if k != kind:
            continue
        ordered = all(r.get("ordered") for r in rs)
        if kind == "ingest":
            aps = med(rs, lambda r: r.get("actionsPerSecond"))
            cpu = med(rs, lambda r: r.get("serverCPUMicrosPerAction"))
            print(f"ingest/{server}: {rs[0].get('reactors')} reactors, {rs[0].get('senders')} senders, {rs[0].get('subscribers')} subscribers: "
                  f"actions/s median {aps or 0:,.0f} (each: {each(rs, lambda r: r.get('actionsPerSecond'))}; the target: 400,000), "
                  f"daemon CPU per action median {cpu or 0:.2f} µs (each: {each(rs, lambda r: r.get('serverCPUMicrosPerAction'), digits=2)}), "
                  f"acks/s median {med(rs, lambda r: r.get('acksPerSecond')) or 0:,.0f}; all in order: {ordered}")
        elif kind == "sat":
            medians[server] = med(rs, ups)
            print(f"sat/{server}: updates/s median {medians[server] or 0:,.0f} (each: {each(rs, ups)}; windows {', '.join(str(r.get('window', '–')) for r in rs)}); all in order: {ordered}")
        else:
            medians[server] = med(rs, p99)
            print(f"{kind}/{server}: last-subscriber p99 median {(medians[server] or 0) / 1000:.2f} ms (each: {each(rs, p99, 1000, 2)} ms), "
                  f"updates/s median {med(rs, ups) or 0:,.0f}; all in order: {ordered}")
    for other in ("mirror", "node"):
        d, o = medians.get("daemon"), medians.get(other)
        if d and o:
            what = "updates/s" if kind == "sat" else "p99"
            print(f"{kind}: daemon / {other} {what}, medians: {d / o:.2f}×")
PY

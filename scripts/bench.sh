#!/usr/bin/env bash
# The ReactorHub benchmark (`make bench`): runs the daemon and the two baselines one after
# the other on this machine with the same load generator (reactorhub-bench), prints the
# numbers and writes the table, the method and the machine into BENCHMARKS.md (between the
# "bench:begin" and "bench:end" markers; the rest of the file is left as it is).
#
#   scripts/bench.sh [--daemon PATH] [--bench PATH] [--quick] [--profile] [--output FILE]
#                    [--no-write] [--keep-logs] [--from DIR]
#
#   --daemon PATH   the reactorhub binary under test (default .build/release/reactorhub,
#                   built here with `swift build -c release --product reactorhub`);
#                   also $REACTORHUB_BIN
#   --bench PATH    the reactorhub-bench binary (default .build/release/reactorhub-bench,
#                   built here); also $REACTORHUB_BENCH_BIN
#   --quick         short runs (a smoke test of the script, figures not comparable)
#   --profile       also profile the daemon with perf during a saturated fan-out and put
#                   the top symbols in the output
#   --output FILE   where to write (default BENCHMARKS.md)
#   --no-write      print only
#   --keep-logs     keep the servers' logs and the raw results (printed path)
#   --from DIR      measure nothing: write the table again from the results a run with
#                   --keep-logs left in DIR
#
# Baselines: libwebsockets-test-server's lws-mirror-protocol (Debian's
# libwebsockets-test-server) and bench/node-broadcast.js on Debian's node-ws. Both
# broadcast every message to every client; the daemon does the same through a `doc`
# reactor (one `set` per action, one patch per version).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

daemon=${REACTORHUB_BIN:-}
bench=${REACTORHUB_BENCH_BIN:-}
quick=0
profile=0
output=BENCHMARKS.md
write=1
keep=0
from=
while [ $# -gt 0 ]; do
  case "$1" in
    --daemon) daemon=$2; shift 2 ;;
    --bench) bench=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --profile) profile=1; shift ;;
    --output) output=$2; shift 2 ;;
    --no-write) write=0; shift ;;
    --keep-logs) keep=1; shift ;;
    --from) from=$2; shift 2 ;;
    -h|--help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

if [ -z "$from" ]; then

if [ -z "$daemon" ]; then
  echo "bench: building the daemon (release)" >&2
  swift build -c release --product reactorhub >&2
  daemon=.build/release/reactorhub
fi
if [ -z "$bench" ]; then
  echo "bench: building reactorhub-bench (release)" >&2
  swift build -c release --product reactorhub-bench >&2
  bench=.build/release/reactorhub-bench
fi
daemon=$(readlink -f "$daemon")
bench=$(readlink -f "$bench")
for binary in "$daemon" "$bench"; do
  [ -x "$binary" ] || { echo "bench: $binary is not an executable" >&2; exit 1; }
done
command -v libwebsockets-test-server >/dev/null || { echo "bench: libwebsockets-test-server is missing (scripts/ensure-deps.sh bench)" >&2; exit 1; }
command -v node >/dev/null || { echo "bench: node is missing (scripts/ensure-deps.sh bench)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "bench: python3 is needed to write the table" >&2; exit 1; }

# 10,000 idle connections need as many descriptors here and in each server.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt 10300 ]; then
  echo "bench: open-file limit $(ulimit -n) is below 10300; the idle runs will fail" >&2
fi

work=$(mktemp -d /tmp/reactorhub-bench.XXXXXX)
results=$work/results.jsonl
# Measure a copy: a rebuild of the daemon during the run must not mix two versions.
daemon_source=$daemon
cp "$daemon" "$work/reactorhub"
daemon=$work/reactorhub
daemon_sum=$(sha256sum "$daemon" | cut -c1-12)
daemon_date=$(date -r "$daemon_source" '+%Y-%m-%d %H:%M')
: > "$results"
server_pid=
cleanup() {
  stop_server
  if [ "$keep" = 1 ]; then echo "bench: logs and results in $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ "$quick" = 1 ]; then
  sat_seconds=1; lat_seconds=2; idle_connections=2000; warmup=0.5; rounds=1
  win_daemon=16,128; win_mirror=8,16; win_node=16,128; win1k_daemon=2,32; win1k_mirror=2,8; win1k_node=2,32
else
  sat_seconds=3; lat_seconds=8; idle_connections=10000; warmup=1; rounds=2
  # The mirror's ring holds 32 messages: deeper windows make it drop. The daemon may
  # coalesce queued patches (`base`), which only shows with deep per-connection queues.
  win_daemon=8,32,128,512; win_mirror=4,8,16,24; win_node=8,32,128,512
  win1k_daemon=2,8,32,128; win1k_mirror=2,4,8; win1k_node=2,8,32,128
fi

# --- the machine -----------------------------------------------------------------------

cpu_sample() { awk '/^cpu /{ busy=$2+$3+$4+$7+$8+$9; total=busy+$5+$6; print busy, total }' /proc/stat; }
cores=$(nproc)
# Waits (at most 30 s) until the rest of the machine uses less than 25 % of one core, so
# that a build or a test run elsewhere does not end up in the figures; reports it if not.
busy_note=
wait_quiet() {
  local waited=0 pct
  while :; do
    read -r b1 t1 < <(cpu_sample); sleep 1; read -r b2 t2 < <(cpu_sample)
    pct=$(( (b2 - b1) * 100 * cores / (t2 - t1 > 0 ? t2 - t1 : 1) ))
    if [ "$pct" -lt 25 ]; then return 0; fi
    if [ "$waited" -ge 30 ]; then
      echo "bench: the machine is still busy ($pct % of a core used by other processes); measuring anyway" >&2
      busy_note="some runs were taken while other processes used up to ${pct} % of a core (see \"other CPU\")"
      return 0
    fi
    [ "$waited" = 0 ] && echo "bench: waiting for the machine to be quiet ($pct % of a core busy elsewhere)" >&2
    waited=$((waited + 1))
  done
}

# --- the servers -----------------------------------------------------------------------

stop_server() {
  if [ -n "${server_pid:-}" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.05; done
    kill -KILL "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  server_pid=
}

# Waits for "listening on ...:PORT" in $1; prints PORT.
wait_listening() {
  local log=$1 port=
  for _ in $(seq 1 200); do
    port=$(grep -m1 -o 'listening on [a-z]*://[0-9.]*:[0-9]*' "$log" 2>/dev/null | grep -o '[0-9]*$' || true)
    [ -n "$port" ] && { echo "$port"; return 0; }
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.05
  done
  echo "bench: the server did not start; its output:" >&2
  cat "$log" >&2
  return 1
}

start_daemon() {
  stop_server
  "$daemon" --config bench/daemon.json --port 0 > "$work/daemon.log" 2>&1 &
  server_pid=$!
  port=$(wait_listening "$work/daemon.log")
  url="ws://127.0.0.1:$port/ws"
  proto=(--protocol reactorhub)
}

. "$repo/scripts/free-port.sh"

start_mirror() {
  stop_server
  port=$(free_port)
  # -i lo: bind to the loopback interface only; -n: no dumb-increment spam.
  libwebsockets-test-server --port="$port" -i lo -n > "$work/mirror.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 200); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.05
  done
  url="ws://127.0.0.1:$port/"
  proto=(--protocol mirror --subprotocol lws-mirror-protocol)
}

start_node() {
  stop_server
  node bench/node-broadcast.js 0 > "$work/node.log" 2>&1 &
  server_pid=$!
  port=$(wait_listening "$work/node.log")
  url="ws://127.0.0.1:$port/"
  proto=(--protocol mirror --subprotocol '')
}

# run KEY SERVER MODE ARGS...: one invocation of the load generator; its RESULT line goes
# to the results with the key and the server's name. A run during which the rest of the
# machine used more than 30 % of a core is taken again once (while the retry budget
# lasts); the table prefers undisturbed runs.
retry_budget=${BENCH_RETRY_BUDGET:-8}
run() {
  local key=$1 server=$2 mode=$3; shift 3
  local attempt
  for attempt in 1 2; do
    wait_quiet
    if [ "$attempt" = 1 ]; then echo "== $key ($server)" >&2; else echo "== $key ($server), again: the rest of the machine was busy" >&2; fi
    local out=$work/$key-$server-$attempt.txt
    if ! "$bench" "$mode" --url "$url" "${proto[@]}" --server-pid "$server_pid" --label "$key/$server" --quiet "$@" > "$out" 2>&1; then
      echo "bench: $key on $server reported a problem:" >&2
    fi
    grep -v '^RESULT ' "$out" >&2 || true
    local line
    line=$(grep -m1 '^RESULT ' "$out" | cut -c8- || true)
    if [ -z "$line" ]; then line='{"aborted":"no result"}'; fi
    printf '{"key":"%s","server":"%s","result":%s}\n' "$key" "$server" "$line" >> "$results"
    if ! kill -0 "$server_pid" 2>/dev/null; then
      echo "bench: the $server server died during $key; its log:" >&2
      tail -20 "$work/$server.log" >&2 || true
      start_"$server"
      return 0
    fi
    local other seconds
    other=$(grep -o '"otherCPUSeconds":[0-9.]*' <<<"$line" | cut -d: -f2 || true)
    seconds=$(grep -o '"seconds":[0-9.]*' <<<"$line" | head -1 | cut -d: -f2 || true)
    if [ -z "$other" ] || [ -z "$seconds" ] || [ "$retry_budget" -le 0 ] \
       || ! awk -v o="$other" -v s="$seconds" 'BEGIN { exit !(s > 0 && o / s > 0.3) }'; then
      return 0
    fi
    retry_budget=$((retry_budget - 1))
  done
}

started=$(date +%s)

# --- fan-out at saturation, then latency at a fixed rate ---------------------------------
# Two rounds, the servers taking turns, so that a disturbance on the machine does not fall
# on one server only; the table keeps the best run of each (most updates/s; lowest p99),
# disturbed runs included: load elsewhere only makes a figure worse.
for round in $(seq 1 "$rounds"); do
  for server in daemon mirror node; do
    start_"$server"
    mode=$( [ $server = daemon ] && echo fanout || echo raw )
    case $server in
      daemon) windows=$win_daemon; windows1k=$win1k_daemon ;;
      mirror) windows=$win_mirror; windows1k=$win1k_mirror ;;
      node) windows=$win_node; windows1k=$win1k_node ;;
    esac
    run sat100 "$server" "$mode" --subscribers 100 --window "$windows" --warmup "$warmup" --duration "$sat_seconds"
    run sat1000 "$server" "$mode" --subscribers 1000 --window "$windows1k" --warmup "$warmup" --duration "$sat_seconds"
    start_"$server"
    run lat100 "$server" "$mode" --subscribers 100 --rate 500 --warmup "$warmup" --duration "$lat_seconds"
    run lat1000 "$server" "$mode" --subscribers 1000 --rate 100 --warmup "$warmup" --duration "$lat_seconds"
  done
done

# --- idle connections --------------------------------------------------------------------
for server in daemon mirror node; do
  start_"$server"   # a fresh process: its RSS before is the baseline
  sleep 0.5
  run idle "$server" idle --connections "$idle_connections" --reactors 100 --hold 2
done
stop_server

# --- profile -------------------------------------------------------------------------------
profile_file=
if [ "$profile" = 1 ]; then
  if perf stat -e instructions true >/dev/null 2>&1; then
    start_daemon
    profile_file=$work/profile.txt
    wait_quiet
    echo "== profile: perf record of the daemon during a saturated fan-out (100 subscribers)" >&2
    "$bench" fanout --url "$url" --server-pid "$server_pid" --subscribers 100 --window "${BENCH_PROFILE_WINDOW:-8}" --warmup 1 --duration 6 --quiet > "$work/profile-run.txt" 2>&1 &
    load=$!
    sleep 1.5
    perf record -F 2000 --call-graph dwarf,16384 -p "$server_pid" -o "$work/perf.data" -- sleep 4 > /dev/null 2>&1 || true
    wait "$load" || true
    demangle() { if command -v swift >/dev/null; then swift demangle --simplified; else cat; fi; }
    perf report -i "$work/perf.data" --no-children --sort dso,sym --stdio -g none --percent-limit 0.5 2>/dev/null \
      | grep -E '^ +[0-9]' | head -30 | demangle > "$profile_file" || true
    perf report -i "$work/perf.data" --no-children --sort dso --stdio -g none 2>/dev/null | grep -E '^ +[0-9]' | head -8 > "$work/profile-dso.txt" || true
    perf report -i "$work/perf.data" --children --sort sym --stdio -g none 2>/dev/null | grep -E '^ +[0-9]' | demangle > "$work/profile-children.txt" || true
    echo "top of the profile:" >&2
    cat "$work/profile-dso.txt" "$profile_file" >&2
    stop_server
  else
    echo "bench: perf cannot count here; skipping the profile" >&2
  fi
fi

elapsed=$(( $(date +%s) - started ))
for name in elapsed busy_note daemon_source daemon_date daemon_sum quick profile_file; do
  printf '%s=%q\n' "$name" "${!name}"
done > "$work/meta.env"

else
  # --from: the table again, from a kept run.
  work=$(readlink -f "$from")
  [ -f "$work/results.jsonl" ] && [ -f "$work/meta.env" ] || { echo "bench: $from has no results.jsonl and meta.env" >&2; exit 1; }
  # shellcheck disable=SC1091
  . "$work/meta.env"
  results=$work/results.jsonl
  daemon=$work/reactorhub
fi

# --- the table -------------------------------------------------------------------------------
export BENCH_RESULTS=$results BENCH_OUTPUT=$output BENCH_WRITE=$write BENCH_ELAPSED=$elapsed
export BENCH_DAEMON=$daemon BENCH_DAEMON_SOURCE=$daemon_source BENCH_DAEMON_SUM=$daemon_sum BENCH_DAEMON_DATE=$daemon_date BENCH_QUICK=$quick BENCH_BUSY_NOTE=$busy_note BENCH_PROFILE=${profile_file}
export BENCH_PROFILE_DSO=$( [ -n "$profile_file" ] && echo "$work/profile-dso.txt" || echo "" )
export BENCH_PROFILE_CHILDREN=$( [ -n "$profile_file" ] && echo "$work/profile-children.txt" || echo "" )
python3 - <<'PYTHON'
import json, os, platform, re, subprocess, datetime

rows = {}
rounds = {}
def score(key, result):
    # Runs in order first, then most updates/s (saturation) or lowest last-subscriber p99
    # (latency). Load elsewhere on the machine can only make a figure worse, so the best
    # round is the one least disturbed.
    ordered = 1 if result.get("ordered") else 0
    if key.startswith("sat"):
        return (ordered, result.get("updatesPerSecond") or 0)
    if key.startswith("lat"):
        return (ordered, -((result.get("last") or {}).get("p99") or 1e12))
    return (ordered, 0)
for line in open(os.environ["BENCH_RESULTS"]):
    item = json.loads(line)
    slot = (item["key"], item["server"])
    rounds.setdefault(slot, []).append(item["result"])
    if slot not in rows or score(item["key"], item["result"]) > score(item["key"], rows[slot]):
        rows[slot] = item["result"]

def get(key, server, field, default=None):
    value = rows.get((key, server), {})
    for part in field.split("."):
        value = value.get(part, {}) if isinstance(value, dict) else {}
    return value if value not in ({}, None) else default

def num(value, digits=0):
    if value is None: return "–"
    if digits == 0: return f"{value:,.0f}"
    return f"{value:,.{digits}f}"

def ms(micros):
    return "–" if micros is None else f"{micros / 1000:.2f}"

def ratio(a, b):
    return None if not a or not b else a / b

cpu_model = "unknown"
for line in open("/proc/cpuinfo"):
    if line.startswith("model name"):
        cpu_model = line.split(":", 1)[1].strip(); break
mem_kib = 0
for line in open("/proc/meminfo"):
    if line.startswith("MemTotal"):
        mem_kib = int(line.split()[1]); break
def version(command):
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=10).stdout.strip().splitlines()[0]
    except Exception:
        return "?"
lws = version(["dpkg-query", "-W", "-f=${Version}", "libwebsockets-test-server"])
nodews = version(["dpkg-query", "-W", "-f=${Version}", "node-ws"])
node = version(["node", "--version"])
daemon_version = version([os.environ["BENCH_DAEMON"], "--version"])
commit = version(["git", "rev-parse", "--short", "HEAD"])
congestion = open("/proc/sys/net/ipv4/tcp_congestion_control").read().strip()

servers = [("daemon", "ReactorHub (`doc`)"), ("mirror", "lws mirror (raw)"), ("node", "node-ws broadcast")]
out = []
w = out.append
w("<!-- bench:begin (written by scripts/bench.sh; edit outside these markers) -->")
w("## Latest run")
w("")
w(f"- Date: {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')}, `make bench` took {os.environ['BENCH_ELAPSED']} s"
  + (" (**--quick: short runs, not comparable**)" if os.environ["BENCH_QUICK"] == "1" else "") + ".")
w(f"- Machine: {os.cpu_count()} CPUs (`nproc`), {cpu_model}, {mem_kib / 1048576:.0f} GiB, "
  f"Linux {platform.release()}, TCP congestion control `{congestion}`, everything over 127.0.0.1.")
w(f"- Servers: {daemon_version} (repository at {commit}; `{os.path.relpath(os.environ['BENCH_DAEMON_SOURCE'])}` built {os.environ['BENCH_DAEMON_DATE']}, "
  f"sha256 {os.environ['BENCH_DAEMON_SUM']}…, config `bench/daemon.json`); "
  f"libwebsockets-test-server {lws} (`lws-mirror-protocol`); node {node} with node-ws {nodews} (`bench/node-broadcast.js`).")
if os.environ.get("BENCH_BUSY_NOTE"):
    w(f"- **Caution**: {os.environ['BENCH_BUSY_NOTE']}.")
w("")

w("### Fan-out at saturation (1 sender, best window of in-flight actions)")
w("")
w("| subscribers | server | window | actions/s | updates applied/s | frames/s | updates/frame | last-subscriber p50 / p99 ms | server CPU | client CPU | other CPU | in order | updates/s of each round |")
w("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for key, n in (("sat100", 100), ("sat1000", 1000)):
    for server, name in servers:
        r = rows.get((key, server))
        if not r: continue
        s = r.get("seconds") or 0
        def pct(field):
            v = r.get(field)
            return "–" if v is None or not s else f"{v / s * 100:.0f} %"
        upf = (r.get("updatesPerSecond") or 0) / (r.get("framesPerSecond") or 1)
        w(f"| {n} | {name} | {r.get('window', '–')} | {num(r.get('actionsPerSecond'))} | **{num(r.get('updatesPerSecond'))}** | "
          f"{num(r.get('framesPerSecond'))} | {upf:.2f} | {ms(get(key, server, 'last.p50'))} / {ms(get(key, server, 'last.p99'))} | "
          f"{pct('serverCPUSeconds')} | {pct('clientCPUSeconds')} | {pct('otherCPUSeconds')} | "
          f"{'yes' if r.get('ordered') else 'NO: ' + str(r.get('aborted') or r.get('firstServerError') or 'see log')} | "
          f"{', '.join(num(x.get('updatesPerSecond')) for x in rounds.get((key, server), []))} |")
w("")
w("CPU is in % of one core over the measured seconds; \"other\" is what the rest of the machine used meanwhile.")
w("")

w("### Latency at a fixed rate (send → subscriber, ms)")
w("")
w("| load | server | updates/s | each subscriber p50 / p90 / p99 / max | last subscriber p50 / p90 / p99 / max | server CPU | other CPU | in order | last p99 of each round |")
w("|---|---|---|---|---|---|---|---|---|")
for key, label in (("lat100", "500 actions/s × 100"), ("lat1000", "100 actions/s × 1,000")):
    for server, name in servers:
        r = rows.get((key, server))
        if not r: continue
        d = r.get("delivery", {}); l = r.get("last", {}); s = r.get("seconds") or 0
        cpu = "–" if r.get("serverCPUSeconds") is None or not s else f"{r['serverCPUSeconds'] / s * 100:.0f} %"
        other = "–" if r.get("otherCPUSeconds") is None or not s else f"{r['otherCPUSeconds'] / s * 100:.0f} %"
        each = ", ".join(ms((x.get("last") or {}).get("p99")) for x in rounds.get((key, server), []))
        w(f"| {label} | {name} | {num(r.get('updatesPerSecond'))} | {ms(d.get('p50'))} / {ms(d.get('p90'))} / {ms(d.get('p99'))} / {ms(d.get('max'))} | "
          f"{ms(l.get('p50'))} / {ms(l.get('p90'))} / **{ms(l.get('p99'))}** / {ms(l.get('max'))} | {cpu} | {other} | {'yes' if r.get('ordered') else 'NO'} | {each} |")
w("")

w("### Idle connections")
w("")
w("| server | connections | reactors | time to connect all | RSS before → after | per connection |")
w("|---|---|---|---|---|---|")
for server, name in servers:
    r = rows.get(("idle", server))
    if not r: continue
    reactors = r.get("reactors") if server == "daemon" else "– (open only)"
    w(f"| {name} | {num(r.get('joined'))} / {num(r.get('connections'))} | {reactors} | {r.get('connectSeconds', 0):.2f} s | "
      f"{(r.get('rssBeforeKiB') or 0) / 1024:.1f} → {(r.get('rssAfterKiB') or 0) / 1024:.1f} MiB | **{num(r.get('bytesPerConnection'))} B** |")
w("")

w("### Targets (issue 8)")
w("")
w("| target | figure | met |")
w("|---|---|---|")
def target(text, value, ok):
    w(f"| {text} | {value} | {'yes' if ok else ('**no**' if ok is not None else '–')} |")
for key, n in (("sat100", "100"), ("sat1000", "1,000")):
    d = get(key, "daemon", "updatesPerSecond"); m = get(key, "mirror", "framesPerSecond"); o = get(key, "node", "framesPerSecond")
    rm, ro = ratio(d, m), ratio(d, o)
    target(f"fan-out {n}: daemon updates/s ≥ 1× lws mirror deliveries/s", f"{num(d)} vs {num(m)}: **{rm:.2f}×**" if rm else "–", None if rm is None else rm >= 1.0)
    target(f"fan-out {n}: daemon updates/s ≥ 1.5× node-ws deliveries/s", f"{num(d)} vs {num(o)}: **{ro:.2f}×**" if ro else "–", None if ro is None else ro >= 1.5)
dp, mp = get("lat100", "daemon", "last.p99"), get("lat100", "mirror", "last.p99")
target("500 actions/s × 100: p99 send → last subscriber ≤ 2 ms", f"{ms(dp)} ms", None if dp is None else dp <= 2000)
rl = ratio(dp, mp)
target("… and ≤ 1.5× the lws mirror's p99", f"{ms(dp)} vs {ms(mp)} ms: **{rl:.2f}×**" if rl else "–", None if rl is None else rl <= 1.5)
target("100 actions/s × 1,000: p99 reported", f"daemon {ms(get('lat1000', 'daemon', 'last.p99'))} ms, mirror {ms(get('lat1000', 'mirror', 'last.p99'))} ms, node {ms(get('lat1000', 'node', 'last.p99'))} ms", True)
bpc = get("idle", "daemon", "bytesPerConnection")
joined = get("idle", "daemon", "joined")
target(f"idle: {num(joined)} connections on 100 reactors, ≤ 10 KB daemon RSS each", f"{num(bpc)} B", None if bpc is None else (bpc <= 10240 and joined == get('idle', 'daemon', 'connections')))
w("")

profile = os.environ.get("BENCH_PROFILE")
if profile and os.path.exists(profile):
    w(f"### Profile of this run (perf, daemon, saturated fan-out to 100 subscribers, window {os.environ.get('BENCH_PROFILE_WINDOW', '8')})")
    w("")
    children = os.environ.get("BENCH_PROFILE_CHILDREN")
    if children and os.path.exists(children):
        inclusive = {}
        for line in open(children):
            m = re.match(r"\s*([0-9.]+)%\s+([0-9.]+)%\s+\[[k.]\]\s+(.*)", line)
            if m:
                # perf lists a symbol once per distinct (unwound) call path: add them up.
                name = m.group(3).strip()
                inclusive[name] = min(100.0, inclusive.get(name, 0.0) + float(m.group(1)))
        def share(*patterns):
            best = 0.0
            for name, value in inclusive.items():
                if any(re.search(p, name) for p in patterns):
                    best = max(best, value)
            return best
        categories = [
            ("send() system calls: kernel TCP, loopback delivery to the client included", share(r"^__x64_sys_sendto$")),
            ("poll() system calls (lws service loop)", share(r"^__x64_sys_poll$", r"^__x64_sys_ppoll$")),
            ("futex: locks and thread wake-ups", share(r"^__x64_sys_futex$")),
            ("lws service thread, all of it", share(r"^lws_service$")),
            ("… of which ServerCore.writable (writes until the socket would block)", share(r"ServerCore\.writable")),
            ("… of which the inbox drain (broadcast into per-connection queues)", share(r"ServerCore\.drainInbox")),
            ("… of which Hub.connection(_:received:) (parse and route an action)", share(r"Hub\.connection\(_:received:\)")),
            ("reactor side: ReactorRuntime.drain (Dispatch worker)", share(r"ReactorRuntime\.drain")),
            ("… of which ReactorInstance.publish (encode, diff, patch frame, history)", share(r"ReactorInstance\.publish\(")),
            ("… of which StateEncoding.encode", share(r"StateEncoding\.encode")),
            ("… of which JSONPatch diff", share(r"PatchDiffer\.", r"JSONPatch\.diff")),
            ("swift_retain + swift_release (self)", share(r"^swift_retain$") + share(r"^swift_release$")),
            ("malloc + free (self)", share(r"^malloc$") + share(r"^(cfree|free)(@.*)?$") + share(r"^_int_free")),
        ]
        w("Inclusive shares of the daemon's CPU (all threads):")
        w("")
        w("| where | share |")
        w("|---|---|")
        for label, value in categories:
            w(f"| {label} | {value:.1f} % |")
        w("")
    w("Self time by library and top symbols:")
    w("")
    w("```")
    dso = os.environ.get("BENCH_PROFILE_DSO")
    if dso and os.path.exists(dso):
        w(open(dso).read().rstrip())
        w("")
    for line in open(profile).read().rstrip().splitlines():
        w(line[:160])
    w("```")
    w("")
w("<!-- bench:end -->")
block = "\n".join(out) + "\n"
print(block)

if os.environ["BENCH_WRITE"] == "1":
    path = os.environ["BENCH_OUTPUT"]
    text = open(path).read() if os.path.exists(path) else "# Benchmarks\n\n"
    begin = text.find("<!-- bench:begin")
    end = text.find("<!-- bench:end -->")
    if begin >= 0 and end >= 0:
        text = text[:begin] + block + text[end + len("<!-- bench:end -->\n"):]
    else:
        text = text.rstrip() + "\n\n" + block
    open(path, "w").write(text)
    print(f"bench: wrote {path}", flush=True)
PYTHON

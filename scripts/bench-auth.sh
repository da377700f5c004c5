#!/usr/bin/env bash
# The "Authentication and TLS" figures of BENCHMARKS.md: what a token and TLS cost, measured
# with reactorhub-bench against the release daemon.
#
#   connect  N connections opened 256 at a time, each joining one of 20 `doc` reactors:
#            no auth section and no token, versus auth (HS256) with one token for all in
#            ?token=, the same in an Authorization header, and N distinct tokens per pass
#            (one per connection, each verified: a pass never reuses another's tokens).
#            A fifth variant sends the same ?token= to the daemon without auth, which
#            ignores it: what carrying the token's bytes costs, apart from verifying it.
#            A sixth sends the one token after the upgrade, in an `auth` message, and
#            joins on `authed`.
#            One daemon per variant, all six started together and kept; one unmeasured
#            warm-up pass, then P passes, each running every variant once in an order
#            that rotates from pass to pass (so the machine's drift falls on all of them).
#            Reported: the median rate and the median server CPU per connection of each
#            variant, and the median of the per-pass ratios to the no-auth run.
#   fanout   100 subscribers on one `doc`, saturation (windows 16, 64, 256): ws:// versus
#            wss:// (the bench client's TLS is libssl, in the same process and thread)
#   rate     500 actions/s to 100 subscribers for 8 s: ws:// versus wss://
#            (fanout and rate: baseline and variant alternating within each round, a
#            fresh daemon per run)
#
#   scripts/bench-auth.sh [--part connect|tls|all] [--passes P] [--rounds N]
#                         [--connections N] [--daemon PATH] [--bench PATH] [--keep DIR]
#
# Defaults: --part all, --passes 7, --rounds 2, --connections 4000. Prints one line per run
# and a summary; numbers only, nothing is asserted. The daemons use bench/daemon.json (rate
# limits lifted, memory persistence) plus the section under test; the certificate is a
# self-signed one made here by `openssl req`.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
daemon=${REACTORHUB_BIN:-.build/release/reactorhub}
bench=${REACTORHUB_BENCH_BIN:-.build/release/reactorhub-bench}
part=all
passes=7
rounds=2
connections=4000
keep=
while [ $# -gt 0 ]; do
  case "$1" in
    --part) part=$2; shift 2 ;;
    --passes) passes=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --connections) connections=$2; shift 2 ;;
    --daemon) daemon=$2; shift 2 ;;
    --bench) bench=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h|--help) sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-auth: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
case "$part" in connect|tls|all) ;; *) echo "bench-auth: --part is connect, tls or all, not $part" >&2; exit 2 ;; esac
for number in "$passes" "$rounds" "$connections"; do
  [[ "$number" =~ ^[1-9][0-9]*$ ]] || { echo "bench-auth: --passes, --rounds and --connections take a whole number of 1 or more, not $number" >&2; exit 2; }
done
for binary in "$daemon" "$bench"; do
  [ -x "$binary" ] || { echo "bench-auth: $binary is missing (swift build -c release --product reactorhub / reactorhub-bench)" >&2; exit 1; }
done
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

work=${keep:-$(mktemp -d -t rh-bench-auth-XXXXXX)}
mkdir -p "$work"
pids=()
cleanup() {
  for running in "${pids[@]}"; do kill "$running" 2>/dev/null || true; done
  for running in "${pids[@]}"; do wait "$running" 2>/dev/null || true; done
  [ -n "$keep" ] || rm -rf "$work"
}
trap cleanup EXIT

openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
  -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
secret=$(openssl rand -hex 32)
python3 - "$work" "$secret" <<'PYTHON'
import json, os, sys
work, secret = sys.argv[1], sys.argv[2]
base = json.load(open("bench/daemon.json"))
# The configs live in a temporary folder: name what bench/daemon.json finds beside it.
base["webRoot"] = os.path.abspath("web")
base.setdefault("reactors", {})["weather"] = {"dataFile": os.path.abspath("config/weather.json")}
variants = {
    "plain": {},
    "auth": {"auth": {"hs256Secret": secret}},
    "tls": {"tls": {"certFile": f"{work}/cert.pem", "keyFile": f"{work}/key.pem"}},
}
for name, extra in variants.items():
    json.dump({**base, **extra}, open(f"{work}/{name}.json", "w"))
PYTHON
token=$("$daemon" token --config "$work/auth.json" --sub bench --read 'doc/*' --act 'doc/*' --ttl 2h)
# Distinct tokens for every pass (subjects bench-PASS-I), HS256 with the same secret,
# minted by Python's stdlib: tokens-0.txt (the warm-up) … tokens-P.txt.
python3 - "$secret" "$connections" "$passes" "$work" <<'PYTHON'
import base64, hashlib, hmac, json, sys, time
secret, count, passes, work = sys.argv[1].encode(), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
encode = lambda data: base64.urlsafe_b64encode(data).rstrip(b"=").decode()
header = encode(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
now = int(time.time())
for number in range(passes + 1):
    with open(f"{work}/tokens-{number}.txt", "w") as tokens:
        for index in range(count):
            claims = {"sub": f"bench-{number}-{index}", "iat": now, "exp": now + 7200, "rh": {"read": ["doc/*"], "act": ["doc/*"]}}
            body = encode(json.dumps(claims, separators=(",", ":")).encode())
            signature = encode(hmac.new(secret, f"{header}.{body}".encode(), hashlib.sha256).digest())
            print(f"{header}.{body}.{signature}", file=tokens)
PYTHON
results="$work/results.jsonl"
: > "$results"

# start CONFIG: starts a daemon with CONFIG; sets pid and url (ws:// or wss:// from its start line).
start() {
  local fifo="$work/line"
  rm -f "$fifo"; mkfifo "$fifo"
  "$daemon" --config "$work/$1.json" --port 0 > "$fifo" 2>> "$work/daemon.log" &
  pid=$!
  pids+=("$pid")
  local line
  read -r line < "$fifo"
  case "$line" in
    "listening on https://"*) url="wss://${line#listening on https://}/ws" ;;
    "listening on http://"*) url="ws://${line#listening on http://}/ws" ;;
    *) echo "bench-auth: the daemon did not start: $line" >&2; exit 1 ;;
  esac
}

# stop PID: stops one daemon.
stop() {
  kill "$1"; wait "$1" 2>/dev/null || true
  local kept=()
  for running in "${pids[@]}"; do [ "$running" = "$1" ] || kept+=("$running"); done
  pids=("${kept[@]}")
}

# settle PID DESCRIPTORS: waits (up to 30 s) until the daemon holds no more open files than
# it did before a run, so the closes of one run are not counted in the next.
settle() {
  local waited=0
  while [ "$(ls "/proc/$1/fd" | wc -l)" -gt "$2" ] && [ "$waited" -lt 300 ]; do
    sleep 0.1; waited=$((waited + 1))
  done
}

# measure ROUND NAME PID URL BENCH-ARGS…: one reactorhub-bench run, its RESULT kept.
measure() {
  local round=$1 name=$2 server=$3 address=$4; shift 4
  local descriptors
  descriptors=$(ls "/proc/$server/fd" | wc -l)
  local output
  output=$("$bench" "$@" --url "$address" --server-pid "$server" --label "$name" --quiet)
  settle "$server" "$descriptors"
  local result=${output##*RESULT }
  printf '{"round":%s,"name":"%s","result":%s}\n' "$round" "$name" "$result" >> "$results"
  printf 'round %s  %-24s %s\n' "$round" "$name" "$(echo "$output" | grep -v '^RESULT' | head -1)"
}

# run ROUND NAME CONFIG BENCH-ARGS…: one measurement on a fresh daemon.
run() {
  local round=$1 name=$2 config=$3; shift 3
  start "$config"
  local server=$pid
  measure "$round" "$name" "$server" "$url" "$@"
  stop "$server"
}

connect=(idle --connections "$connections" --reactors 20 --hold 0)
if [ "$part" != tls ]; then
  names=(connect-no-auth connect-no-auth-same-query connect-token-query connect-token-header connect-distinct-tokens connect-token-message)
  configs=(plain plain auth auth auth auth)
  servers=(); urls=()
  for index in "${!names[@]}"; do
    start "${configs[$index]}"; servers+=("$pid"); urls+=("$url")
  done
  # Pass 0 warms every daemon up and is not counted; pass K starts with variant K mod 6.
  for number in $(seq 0 "$passes"); do
    for step in "${!names[@]}"; do
      index=$(((number + step) % ${#names[@]}))
      case "${names[$index]}" in
        connect-no-auth) extra=() ;;
        connect-no-auth-same-query) extra=(--token "$token") ;;
        connect-token-query) extra=(--token "$token") ;;
        connect-token-header) extra=(--token "$token" --token-header) ;;
        connect-distinct-tokens) extra=(--token-file "$work/tokens-$number.txt") ;;
        connect-token-message) extra=(--token "$token" --token-message) ;;
      esac
      measure "$number" "${names[$index]}" "${servers[$index]}" "${urls[$index]}" "${connect[@]}" "${extra[@]}"
    done
  done
  for server in "${servers[@]}"; do stop "$server"; done
fi

fanout=(fanout --subscribers 100 --window 16,64,256 --warmup 1 --duration 5)
rate=(fanout --subscribers 100 --rate 500 --warmup 1 --duration 8)
if [ "$part" != connect ]; then
  for round in $(seq 1 "$rounds"); do
    # Odd rounds run the baseline first, even rounds the variant first.
    if [ $((round % 2)) -eq 1 ]; then order=(base variant); else order=(variant base); fi
    for which in "${order[@]}"; do
      if [ "$which" = base ]; then run "$round" fanout-ws plain "${fanout[@]}"; else run "$round" fanout-wss tls "${fanout[@]}"; fi
    done
    for which in "${order[@]}"; do
      if [ "$which" = base ]; then run "$round" rate500-ws plain "${rate[@]}"; else run "$round" rate500-wss tls "${rate[@]}"; fi
    done
  done
fi

python3 - "$results" <<'PYTHON'
import json, statistics, sys
runs = [json.loads(line) for line in open(sys.argv[1])]
by = {}
for run in runs:
    by.setdefault(run["round"], {})[run["name"]] = run["result"]
print("\nsummary (numbers, not assertions):")
connects = ("connect-no-auth", "connect-no-auth-same-query", "connect-token-query", "connect-token-header", "connect-distinct-tokens", "connect-token-message")
passes = sorted(number for number, named in by.items() if number > 0 and "connect-no-auth" in named)
if passes:
    def rate(r): return r["joined"] / r["connectSeconds"]
    def cpu(r): return r.get("serverCPUSeconds", 0) * 1e6 / max(r["joined"], 1)
    base_rate = statistics.median(rate(by[n]["connect-no-auth"]) for n in passes)
    base_cpu = statistics.median(cpu(by[n]["connect-no-auth"]) for n in passes)
    print(f"connect: {len(passes)} passes after a warm-up, medians (min–max)")
    for name in connects:
        rates = [rate(by[n][name]) for n in passes]
        cpus = [cpu(by[n][name]) for n in passes]
        ratios = sorted(rate(by[n][name]) / rate(by[n]["connect-no-auth"]) for n in passes)
        failed = sum(by[n][name]["failed"] for n in passes)
        print(f"  {name:24} {statistics.median(rates):7.0f} connections/s ({min(rates):.0f}–{max(rates):.0f});"
              f" {statistics.median(rates) / base_rate:.2f}x of the medians, per-pass ratio median {statistics.median(ratios):.2f}x"
              f" ({ratios[0]:.2f}–{ratios[-1]:.2f}); server CPU {statistics.median(cpus):5.1f} µs per connection"
              f" ({statistics.median(cpus) - base_cpu:+.1f}); {failed} failed")
for round, named in sorted(by.items()):
    if "fanout-ws" not in named:
        continue
    ws, wss = named["fanout-ws"], named["fanout-wss"]
    for name, r in (("fanout-ws", ws), ("fanout-wss", wss)):
        print(f"round {round}  {name:22} {r['updatesPerSecond']:12.0f} updates/s  ({r['updatesPerSecond'] / ws['updatesPerSecond']:.2f}x)"
              f"  server CPU {r.get('serverCPUSeconds', 0):.2f} s, client {r['clientCPUSeconds']:.2f} s, other {r['otherCPUSeconds']:.2f} s, ordered {r['ordered']}")
    ws, wss = named["rate500-ws"], named["rate500-wss"]
    for name, r in (("rate500-ws", ws), ("rate500-wss", wss)):
        last = r["last"]
        print(f"round {round}  {name:22} last subscriber p50 {last['p50'] / 1000:.3f} ms, p99 {last['p99'] / 1000:.3f} ms"
              f" ({last['p99'] / ws['last']['p99']:.2f}x p99); server CPU {r.get('serverCPUSeconds', 0):.2f} s, other {r['otherCPUSeconds']:.2f} s")
PYTHON

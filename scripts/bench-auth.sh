#!/usr/bin/env bash
# The "Authentication and TLS" figures of BENCHMARKS.md: what a token and TLS cost, measured
# with reactorhub-bench against the release daemon, baseline and variant alternating within
# each round (the machine is shared, so both see the same neighbours):
#
#   connect  N connections opened 256 at a time, each joining one of 20 `doc` reactors:
#            no auth section and no token, versus auth (HS256) with one token for all in
#            ?token=, the same in an Authorization header, and N distinct tokens (one per
#            connection, each verified)
#   fanout   100 subscribers on one `doc`, saturation (windows 16, 64, 256): ws:// versus
#            wss:// (the bench client's TLS is libssl, in the same process and thread)
#   rate     500 actions/s to 100 subscribers for 8 s: ws:// versus wss://
#
#   scripts/bench-auth.sh [--rounds N] [--connections N] [--daemon PATH] [--bench PATH] [--keep DIR]
#
# Prints one line per run and a summary; numbers only, nothing is asserted. The daemon uses
# bench/daemon.json (rate limits lifted, memory persistence) plus the section under test; the
# certificate is a self-signed one made here by `openssl req`.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
daemon=${REACTORHUB_BIN:-.build/release/reactorhub}
bench=${REACTORHUB_BENCH_BIN:-.build/release/reactorhub-bench}
rounds=2
connections=2000
keep=
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --connections) connections=$2; shift 2 ;;
    --daemon) daemon=$2; shift 2 ;;
    --bench) bench=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-auth: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
for binary in "$daemon" "$bench"; do
  [ -x "$binary" ] || { echo "bench-auth: $binary is missing (swift build -c release --product reactorhub / reactorhub-bench)" >&2; exit 1; }
done
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

work=${keep:-$(mktemp -d -t rh-bench-auth-XXXXXX)}
mkdir -p "$work"
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  [ -n "$keep" ] || rm -rf "$work"
}
trap cleanup EXIT

openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
  -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
secret=$(openssl rand -hex 32)
python3 - "$work" "$secret" <<'EOF'
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
EOF
token=$("$daemon" token --config "$work/auth.json" --sub bench --read 'doc/*' --act 'doc/*' --ttl 2h)
# N distinct tokens (sub bench-0 … bench-N-1), HS256 with the same secret (Python's stdlib).
python3 - "$secret" "$connections" > "$work/tokens.txt" <<'EOF'
import base64, hashlib, hmac, json, sys, time
secret, count = sys.argv[1].encode(), int(sys.argv[2])
encode = lambda data: base64.urlsafe_b64encode(data).rstrip(b"=").decode()
header = encode(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
now = int(time.time())
for index in range(count):
    claims = {"sub": f"bench-{index}", "iat": now, "exp": now + 7200, "rh": {"read": ["doc/*"], "act": ["doc/*"]}}
    body = encode(json.dumps(claims, separators=(",", ":")).encode())
    signature = encode(hmac.new(secret, f"{header}.{body}".encode(), hashlib.sha256).digest())
    print(f"{header}.{body}.{signature}")
EOF
results="$work/results.jsonl"
: > "$results"

# Starts the daemon with CONFIG; sets pid and url (ws:// or wss:// from its start line).
start() {
  local fifo="$work/line"
  rm -f "$fifo"; mkfifo "$fifo"
  "$daemon" --config "$work/$1.json" --port 0 > "$fifo" 2>> "$work/daemon.log" &
  pid=$!
  local line
  read -r line < "$fifo"
  case "$line" in
    "listening on https://"*) url="wss://${line#listening on https://}/ws" ;;
    "listening on http://"*) url="ws://${line#listening on http://}/ws" ;;
    *) echo "bench-auth: the daemon did not start: $line" >&2; exit 1 ;;
  esac
}

stop() {
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
}

# run ROUND NAME CONFIG BENCH-ARGS…: one measurement on a fresh daemon, its RESULT kept.
run() {
  local round=$1 name=$2 config=$3; shift 3
  start "$config"
  local output
  output=$("$bench" "$@" --url "$url" --server-pid "$pid" --label "$name" --quiet)
  stop
  local result=${output##*RESULT }
  printf '{"round":%s,"name":"%s","result":%s}\n' "$round" "$name" "$result" >> "$results"
  printf 'round %s  %-22s %s\n' "$round" "$name" "$(echo "$output" | grep -v '^RESULT' | head -1)"
}

connect=(idle --connections "$connections" --reactors 20 --hold 0)
fanout=(fanout --subscribers 100 --window 16,64,256 --warmup 1 --duration 5)
rate=(fanout --subscribers 100 --rate 500 --warmup 1 --duration 8)
for round in $(seq 1 "$rounds"); do
  # Odd rounds run the baseline first, even rounds the variant first.
  if [ $((round % 2)) -eq 1 ]; then order=(base variant); else order=(variant base); fi
  for which in "${order[@]}"; do
    if [ "$which" = base ]; then run "$round" connect-no-auth plain "${connect[@]}"
    else run "$round" connect-token-query auth "${connect[@]}" --token "$token"
         run "$round" connect-token-header auth "${connect[@]}" --token "$token" --token-header
         run "$round" connect-distinct-tokens auth "${connect[@]}" --token-file "$work/tokens.txt"; fi
  done
  for which in "${order[@]}"; do
    if [ "$which" = base ]; then run "$round" fanout-ws plain "${fanout[@]}"; else run "$round" fanout-wss tls "${fanout[@]}"; fi
  done
  for which in "${order[@]}"; do
    if [ "$which" = base ]; then run "$round" rate500-ws plain "${rate[@]}"; else run "$round" rate500-wss tls "${rate[@]}"; fi
  done
done

python3 - "$results" <<'EOF'
import json, sys
runs = [json.loads(line) for line in open(sys.argv[1])]
by = {}
for run in runs:
    by.setdefault(run["round"], {})[run["name"]] = run["result"]
print("\nsummary (numbers, not assertions):")
for round, named in sorted(by.items()):
    def cps(name):
        r = named[name]
        return r["joined"] / r["connectSeconds"], r["failed"], r.get("serverCPUSeconds", 0) * 1e6 / max(r["joined"], 1)
    base, _, base_cpu = cps("connect-no-auth")
    for name in ("connect-no-auth", "connect-token-query", "connect-token-header", "connect-distinct-tokens"):
        value, failed, cpu = cps(name)
        print(f"round {round}  {name:24} {value:7.0f} connections/s ({value / base:.2f}x, {failed} failed);"
              f" server CPU {cpu:5.1f} µs per connection ({cpu - base_cpu:+.1f})")
    ws, wss = named["fanout-ws"], named["fanout-wss"]
    for name, r in (("fanout-ws", ws), ("fanout-wss", wss)):
        print(f"round {round}  {name:22} {r['updatesPerSecond']:12.0f} updates/s  ({r['updatesPerSecond'] / ws['updatesPerSecond']:.2f}x)"
              f"  server CPU {r.get('serverCPUSeconds', 0):.2f} s, client {r['clientCPUSeconds']:.2f} s, other {r['otherCPUSeconds']:.2f} s, ordered {r['ordered']}")
    ws, wss = named["rate500-ws"], named["rate500-wss"]
    for name, r in (("rate500-ws", ws), ("rate500-wss", wss)):
        last = r["last"]
        print(f"round {round}  {name:22} last subscriber p50 {last['p50'] / 1000:.3f} ms, p99 {last['p99'] / 1000:.3f} ms"
              f" ({last['p99'] / ws['last']['p99']:.2f}x p99); server CPU {r.get('serverCPUSeconds', 0):.2f} s, other {r['otherCPUSeconds']:.2f} s")
EOF

#!/usr/bin/env bash
# RFC 6455 and RFC 7692 conformance: the Autobahn|Testsuite fuzzing client (wstest
# 0.8.2), every section (1 to 10, and 12 and 13: permessage-deflate, which the daemon
# accepts by default, `server.compression`), against the daemon's echo path
# (`diagnostics.echoPath`). Called by `make conformance`; not part of `make test`
# (docs/conformance.md says why).
#
# Installs wstest into .build/autobahn on first use (scripts/autobahn/install-wstest.sh:
# CPython 2.7 from Debian bullseye and pinned packages from PyPI; about 25 s, 142 MB),
# builds the daemon (debug, as the tests do) unless REACTORHUB_BINARY names one, runs the
# suite, and writes its summary to docs/conformance-autobahn.txt. Exits 1 when a case
# fails (anything but OK, NON-STRICT or INFORMATIONAL).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
autobahn="${AUTOBAHN_HOME:-$root/.build/autobahn}"
reports="$autobahn/reports"
summary="$root/docs/conformance-autobahn.txt"

if [ ! -x "$autobahn/py2/wstest" ]; then
  echo "==> installing wstest into $autobahn/py2" >&2
  scripts/autobahn/install-wstest.sh "$autobahn/py2" >"$autobahn.install.log" 2>&1 \
    || { echo "wstest install failed; see $autobahn.install.log" >&2; exit 1; }
fi

binary="${REACTORHUB_BINARY:-}"
if [ -z "$binary" ]; then
  swift build --product reactorhub
  binary="$root/.build/debug/reactorhub"
fi

mkdir -p "$autobahn"
config="$autobahn/echo.json"
echo '{"diagnostics": {"echoPath": "/echo"}, "logLevel": "warning"}' >"$config"
"$binary" --config "$config" --port 0 >"$autobahn/daemon.out" 2>"$autobahn/daemon.log" &
daemon=$!
trap 'kill "$daemon" 2>/dev/null || true; wait "$daemon" 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  grep -q "^listening on" "$autobahn/daemon.out" 2>/dev/null && break
  sleep 0.1
done
port=$(sed -n 's/^listening on http:\/\/127.0.0.1:\([0-9]*\)$/\1/p' "$autobahn/daemon.out")
[ -n "$port" ] || { echo "the daemon did not start; see $autobahn/daemon.log" >&2; exit 1; }

rm -rf "$reports"
cat >"$autobahn/fuzzingclient.json" <<SPEC
{"options": {"failByDrop": false}, "outdir": "$reports",
 "servers": [{"agent": "reactorhub", "url": "ws://127.0.0.1:$port/echo"}],
 "cases": ["*"], "exclude-cases": [], "exclude-agent-cases": {}}
SPEC
echo "==> wstest -m fuzzingclient: sections 1-10, 12 and 13 against ws://127.0.0.1:$port/echo" >&2
started=$SECONDS
(cd "$autobahn" && py2/wstest -m fuzzingclient -s fuzzingclient.json >wstest.log 2>&1)
elapsed=$((SECONDS - started))

{
  echo "Autobahn|Testsuite $("$autobahn/py2/wstest" -a 2>/dev/null | tr '\n' ' ' | sed 's/ *$//')"
  echo "server: reactorhub $("$binary" --version | awk '{print $2}') on libwebsockets $(pkg-config --modversion libwebsockets | sed "s/-$//"), echo path"
  echo "run: scripts/conformance.sh (make conformance), $(date -u +%Y-%m-%d), $(nproc) cores"
  echo "compression: server.compression true (the default); 12.* and 13.* negotiate permessage-deflate"
  echo
  python3 scripts/autobahn/summary.py "$reports/index.json" "$elapsed"
} | tee "$summary.new"
status=${PIPESTATUS[0]}
mv "$summary.new" "$summary"
exit "$status"

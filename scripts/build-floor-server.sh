#!/usr/bin/env bash
# Builds bench/floor-server.c (BENCHMARKS.md "Issue 38: the socket floor") against the
# system's libwebsockets, warnings as errors.
#
#   scripts/build-floor-server.sh OUTPUT
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: scripts/build-floor-server.sh OUTPUT" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck disable=SC2046
cc -O2 -Wall -Wextra -Werror -pthread -o "$1" "$repo/bench/floor-server.c" $(pkg-config --cflags --libs libwebsockets)

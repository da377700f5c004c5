#!/usr/bin/env bash
# Builds the lws mirror baseline for many rooms: libwebsockets-test-server 4.1.6 as Debian
# ships it keeps at most 3 mirror rooms (plugins/protocol_lws_mirror.c,
# `#define MAX_MIRROR_INSTANCES 3`: the upgrade of a connection to a fourth room completes,
# then its ESTABLISHED callback fails and the connection is dropped). This builds the same
# test server (test-apps/test-server.c of the v4.1.6 tag, which compiles the mirror plugin
# in) with that one line changed to ROOMS, linked like Debian's binary against Debian's own
# static libwebsockets 4.1.6 (libwebsockets-dev's libwebsockets.a), with Debian's compiler
# flags (dpkg-buildflags). Nothing else differs; the rooms are found by a walk of a list
# at connect time only, so the per-message path is the stock one.
#
#   scripts/build-mirror-rooms.sh [--source DIR] [--rooms N] [--output PATH]
#
#   --source DIR   a libwebsockets source tree at tag v4.1.6 (default: a shallow clone of
#                  https://github.com/warmcat/libwebsockets at v4.1.6 in a temporary folder)
#   --rooms N      the new MAX_MIRROR_INSTANCES (default 4096)
#   --output PATH  default .build/mirror-rooms/libwebsockets-test-server
#
# Run it as the stock one: PATH --port=P -i lo -n; rooms are ?mirror=NAME (at most 28 bytes).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

source_dir= rooms=4096 output=.build/mirror-rooms/libwebsockets-test-server
while [ $# -gt 0 ]; do
  case "$1" in
    --source) source_dir=$2; shift 2 ;;
    --rooms) rooms=$2; shift 2 ;;
    --output) output=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "build-mirror-rooms: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
version=$(pkg-config --modversion libwebsockets 2>/dev/null || true)
case "$version" in
  4.1.6*) ;;
  *) echo "build-mirror-rooms: needs libwebsockets-dev 4.1.6 (pkg-config says '${version:-none}')" >&2; exit 1 ;;
esac
static=$(pkg-config --variable=libdir libwebsockets)/libwebsockets.a
[ -f "$static" ] || { echo "build-mirror-rooms: $static is missing (libwebsockets-dev)" >&2; exit 1; }

work=$(mktemp -d /tmp/reactorhub-mirror-rooms.XXXXXX)
trap 'rm -rf "$work"' EXIT
if [ -z "$source_dir" ]; then
  git clone -q --depth 1 --branch v4.1.6 https://github.com/warmcat/libwebsockets "$work/libwebsockets" || {
    echo "build-mirror-rooms: could not clone libwebsockets v4.1.6 from GitHub; on a machine without" \
      "network, pass --source DIR (a tree of that tag, e.g. 'git archive v4.1.6' of a copy, unpacked)" >&2
    exit 1
  }
  source_dir=$work/libwebsockets
fi
mkdir -p "$work/tree/test-apps" "$work/tree/plugins"
cp "$source_dir/test-apps/test-server.c" "$work/tree/test-apps/"
cp "$source_dir"/plugins/protocol_{lws_mirror,lws_status,dumb_increment,post_demo}.c "$work/tree/plugins/"
mirror=$work/tree/plugins/protocol_lws_mirror.c
[ "$(grep -c '^#define MAX_MIRROR_INSTANCES 3$' "$mirror")" = 1 ] \
  || { echo "build-mirror-rooms: $source_dir is not v4.1.6 (no '#define MAX_MIRROR_INSTANCES 3' in the mirror plugin)" >&2; exit 1; }
sed -i "s/^#define MAX_MIRROR_INSTANCES 3\$/#define MAX_MIRROR_INSTANCES $rooms/" "$mirror"

flags() { dpkg-buildflags --get "$1" 2>/dev/null || true; }
mkdir -p "$(dirname "$output")"
# shellcheck disable=SC2046
cc $(flags CPPFLAGS) $(flags CFLAGS) $( [ -n "$(flags CFLAGS)" ] || echo -O2 -g ) -DINSTALL_DATADIR='"/usr/share"' \
  $(pkg-config --cflags libwebsockets) -o "$output" "$work/tree/test-apps/test-server.c" \
  $(flags LDFLAGS) "$static" -lssl -lcrypto -lz -lcap -ldl -lpthread
echo "build-mirror-rooms: $output (lws-mirror-protocol with up to $rooms rooms)"

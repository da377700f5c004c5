#!/usr/bin/env bash
# Builds web/app.js from src/app.jsx with Debian's esbuild, offline: React and react-dom from
# Debian's node-react and node-react-dom (/usr/share/nodejs), reactorhub from clients/js (the
# package, whose main module is web/reactorhub.js). Then serve web/ with the daemon:
#   .build/debug/reactorhub --web-root Examples/react-todo/web
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
modules=$(mktemp -d)
trap 'rm -rf "$modules"' EXIT
ln -s "$here/../../clients/js" "$modules/reactorhub"
NODE_PATH="$modules:${DEBIAN_NODE_MODULES:-/usr/share/nodejs}" esbuild "$here/src/app.jsx" \
  --bundle --format=esm --jsx=automatic --minify --log-level=warning \
  --define:process.env.NODE_ENV='"production"' --outfile="$here/web/app.js"

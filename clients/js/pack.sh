#!/usr/bin/env bash
# Makes the package's tarball, reactorhub-VERSION.tgz in npm's layout (package/…), in the
# folder given (default: the current one) and prints its path. What `npm pack` would make, with
# one difference: npm leaves symbolic links out, and reactorhub.js is one (to web/reactorhub.js,
# the file the daemon serves: one source), so the files named in package.json are copied with
# their links followed into a staging folder first. Needs node (to read package.json) and tar.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(cd "${1:-.}" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/package"
mapfile -t files < <(node -e 'const p = require(process.argv[1]); for (const f of ["package.json", ...p.files]) console.log(f)' "$here/package.json")
for file in "${files[@]}"; do
  cp -L "$here/$file" "$stage/package/$file"
done
version=$(node -p 'require(process.argv[1]).version' "$here/package.json")
tarball="$out/reactorhub-$version.tgz"
tar -czf "$tarball" -C "$stage" --owner=0 --group=0 --numeric-owner --sort=name --mtime='1985-10-26 08:15Z' package
echo "$tarball"

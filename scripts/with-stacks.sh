#!/usr/bin/env bash
# with-stacks.sh SECONDS COMMAND...: runs COMMAND; past SECONDS, prints every thread's stack of every
# process it started (gdb), then ends them and exits 124 as timeout(1) does. A hung test run then
# says where it hung instead of only that it did: output piped to a file is buffered, so its last
# lines are not the test that hangs.
set -uo pipefail
limit=$1
shift
"$@" &
command=$!
for ((waited = 0; waited < limit; waited++)); do
    kill -0 "$command" 2>/dev/null || { wait "$command"; exit; }
    sleep 1
done
echo "with-stacks: $* still running after ${limit} s; the stacks of its processes:" >&2
descendants() {
    local child
    for child in $(pgrep -P "$1"); do
        echo "$child"
        descendants "$child"
    done
}
processes=$(descendants "$command")
for process in $command $processes; do
    echo "--- $process: $(tr '\0' ' ' < "/proc/$process/cmdline" 2>/dev/null)" >&2
    timeout 120 gdb -p "$process" -batch -nx -ex "thread apply all bt 25" 2>/dev/null | grep -E '^(Thread|#)' >&2
done
kill -KILL $command $processes 2>/dev/null
wait "$command" 2>/dev/null
exit 124

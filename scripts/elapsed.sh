#!/bin/sh
# `make test`'s clock: `scripts/elapsed.sh start` notes the time; `scripts/elapsed.sh STEP` prints how
# long the run has taken so far, after STEP, so a CI log shows where the minutes go.
mark=.build/make-test-start
if [ "$1" = start ]; then
    mkdir -p .build && date +%s >"$mark"
    exit 0
fi
[ -f "$mark" ] || exit 0
echo "make test: $1 done at $(($(date +%s) - $(cat "$mark"))) s"

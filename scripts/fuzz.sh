#!/usr/bin/env bash
# Builds the libFuzzer targets in fuzz/ (with AddressSanitizer), writes their seed corpora, and runs
# each for SECONDS (default 30), as many side by side as there are cores. Prints each target's
# executions and corpus size; exits 1 if any target crashed, hung or ran out of memory, naming the
# target and the input that did it.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]        e.g. scripts/fuzz.sh 600, scripts/fuzz.sh 60 FuzzPDFTail
#   scripts/fuzz.sh --build-only                 the build alone (make test builds while other steps run)
#
# FUZZ_DIR (default .build-fuzz) holds the build, the seeds, the corpora (kept between runs, so they
# grow) and the crash inputs. Run it under `nice` on a shared machine.
set -euo pipefail

seconds=${1:-30}
shift || true
root=$(cd "$(dirname "$0")/.." && pwd)
work=${FUZZ_DIR:-$root/.build-fuzz}
all=(FuzzTOML FuzzConfig FuzzEditScript FuzzPDFTail FuzzImageHeaders FuzzSheetVision)
targets=("${@:-${all[@]}}")

# The longest input each target is given: room for a config or a small PDF, not more (longer inputs
# slow the fuzzer down without reaching new code).
max_len() {
    case $1 in
        FuzzConfig | FuzzPDFTail) echo 8192 ;;
        *) echo 4096 ;;
    esac
}

echo "fuzz: building fuzz/ (release, -sanitize=fuzzer,address) in $work/build"
start=$(date +%s)
# (ld.gold warns once per target that it cannot export an ASan-internal symbol; harmless, so hidden.)
swift build -c release --package-path "$root/fuzz" --scratch-path "$work/build" \
    -Xswiftc -sanitize=fuzzer,address 2>&1 | { grep -v "Cannot export local symbol '__asan_extra_spill_area'" || true; }
bin=$(swift build -c release --package-path "$root/fuzz" --scratch-path "$work/build" --show-bin-path \
    -Xswiftc -sanitize=fuzzer,address)
# find_page's OpenCV half is C++, outside the Swift package: built here from its own sources with the
# toolchain's clang++, beside the Swift targets.
if [[ " ${targets[*]} " == *" FuzzSheetVision "* ]]; then
    "$(dirname "$(readlink -f "$(command -v swift)")")/clang++" -g -O1 -fsanitize=fuzzer,address -std=c++17 \
        -I"$root/Sources/SheetVision/include" $(pkg-config --cflags opencv4) \
        "$root"/Sources/SheetVision/*.cpp "$root/fuzz/SheetVision/FuzzSheetVision.cpp" \
        -lopencv_imgproc -lopencv_core -o "$bin/FuzzSheetVision" 2>&1 | { grep -v "Cannot export local symbol" || true; }
fi
echo "fuzz: built in $(($(date +%s) - start)) s"
[ "$seconds" = --build-only ] && exit 0

rm -rf "$work/seeds"
"$root/fuzz/make-seeds.sh" "$work/seeds"

symbolizer=$(dirname "$(readlink -f "$(command -v swift)")")/llvm-symbolizer
[ -x "$symbolizer" ] && export ASAN_SYMBOLIZER_PATH=$symbolizer
# No leak checks: Swift keeps tag bits in the spare bits of enum payload pointers, which
# LeakSanitizer cannot see through, so a lazily made global (a `static let` holding an indirect enum)
# looks leaked at exit. Memory that really grows shows up as -rss_limit_mb.
export ASAN_OPTIONS=detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}

# One target: its summary on stdout; exit 1 when it crashed, hung or ran out of memory.
fuzz_one() {
    local target=$1 corpus=$work/corpus/$1 crashes=$work/crashes/$1 log=$work/logs/$1.log
    mkdir -p "$corpus" "$crashes" "$(dirname "$log")"
    local before status=0 runs speed
    before=$(find "$crashes" -type f | wc -l)
    echo "fuzz: $target for $seconds s (log: $log)"
    # -timeout: one input taking 10 s is a hang; -rss_limit_mb: the daemon's inputs must not cost more.
    "$bin/$target" "$corpus" "$work/seeds/$target" \
        -max_total_time="$seconds" -max_len="$(max_len "$target")" -rss_limit_mb=2048 -timeout=10 -detect_leaks=0 \
        -artifact_prefix="$crashes/" -print_final_stats=1 >"$log" 2>&1 || status=$?
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || true)
    speed=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || true)
    echo "fuzz: $target: ${runs:-?} executions (${speed:-?}/s), corpus $(find "$corpus" -type f | wc -l) inputs, exit $status"
    if [ "$status" -ne 0 ] || [ "$(find "$crashes" -type f | wc -l)" -gt "$before" ]; then
        grep -m1 -E 'ERROR: (libFuzzer|AddressSanitizer)|Fatal error|SUMMARY' "$log" | sed "s/^/fuzz: $target: /" || true
        for file in $(grep -o "Test unit written to .*" "$log" | sed 's/Test unit written to //'); do
            echo "fuzz: $target: input: $file (replay: $bin/$target $file)"
        done
        return 1
    fi
}

# The targets run side by side, one a core (FUZZ_JOBS to change it): each still has its whole
# SECONDS and a core of its own, so it makes as many runs as it would alone, in a fraction of the time.
parallel=${FUZZ_JOBS:-$(nproc)}
mkdir -p "$work/logs"
for target in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
    ( fuzz_one "$target" >"$work/logs/$target.summary" 2>&1; echo $? >"$work/logs/$target.status" ) &
done
wait
failed=()
for target in "${targets[@]}"; do
    cat "$work/logs/$target.summary"
    [ "$(cat "$work/logs/$target.status")" = 0 ] || failed+=("$target")
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: FAILED: ${failed[*]} (inputs under $work/crashes)"
    exit 1
fi
echo "fuzz: no crash, hang or out-of-memory in ${targets[*]}"

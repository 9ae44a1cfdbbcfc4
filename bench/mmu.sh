#!/usr/bin/env bash
# make bench, MMU step (issue 14; separate from run.sh and elog-bench): the exact MMU
# curve over a million collections, in process (build/elog-mmu-bench), on a million
# synthetic pauses and on a synthetic log with about a million collections; then the
# whole `elog-tui mmu` command on that log (reading and indexing included).
#   BENCH_RUNS=3   runs per timing; the median is reported
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=${BUILD:-build}
OUT=build/bench
RUNS=${BENCH_RUNS:-3}
mkdir -p "$OUT"

log=$OUT/synth-1M-gcs.eventlog
if [ ! -f "$log" ]; then
    echo "generating a synthetic eventlog with about a million collections (once)..." >&2
    "$BUILD/elog-synth" --caps 1 --gc-every 20us --size 290M --seed 4 -o "$log" 2>/dev/null
fi

echo
echo "== MMU (issue 14): the exact curve, every window length from the shortest pause to the"
echo "   whole range (1, 2, 5 per decade); goal: a million collections well under a second"
awk_line() {
    awk -v label="$1" '
        $1 == "mmu" && $2 == "source" { n = $5; w = $7 }
        $1 == "mmu" && $2 == "union_ms" {
            printf "  %-26s %8d pauses: union %6.1f ms, curve (%d windows, union included) %6.1f ms [%s], 10 worst 10ms windows %6.1f ms\n",
                label, n, $3, w, $5, ($5 < 500 ? "ok" : "MISSED"), $7
        }'
}
"$BUILD/elog-mmu-bench" --runs "$RUNS" | awk_line "synthetic pauses"
"$BUILD/elog-mmu-bench" --runs "$RUNS" "$log" | awk_line "synthetic log"
start=$(date +%s%N)
"$BUILD/elog-tui" mmu "$log" > /dev/null
end=$(date +%s%N)
echo "  elog-tui mmu on the $(($(stat -c %s "$log") / 1048576)) MB log, reading and indexing" \
     "included: $(( (end - start) / 1000000 )) ms"

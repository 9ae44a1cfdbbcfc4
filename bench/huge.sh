#!/usr/bin/env bash
# make bench-huge: a 10 GB synthetic thread-churn log (BENCH_HUGE_SIZE) opened by the
# viewer's code (build/elog-bench: first frame, index, peak anonymous memory, lists,
# frames) and answered by `stats`, `gc` and `threads`, each against a bare scan of the
# same file, with every process's peak anonymous memory. The log is written to
# $BENCH_DIR (default /tmp/elog-bench) and deleted afterwards unless BENCH_HUGE_KEEP=1.
# Needs about 11 GB of free disk; takes a few minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=${BUILD:-build}
BIN=$BUILD/elog-tui
SYNTH=$BUILD/elog-synth
BENCHBIN=$BUILD/elog-bench
OUT=${BENCH_DIR:-/tmp/elog-bench}
GB=${BENCH_HUGE_GB:-10}
mkdir -p "$OUT"
file=$OUT/churn-huge-${GB}G.eventlog

need_kb=$(( GB * 1024 * 1024 + 1024 * 1024 ))
free_kb=$(df -Pk "$OUT" | awk 'NR == 2 { print $4 }')
if [ ! -f "$file" ] && [ "$free_kb" -lt "$need_kb" ]; then
    echo "bench-huge: needs $((need_kb / 1048576)) GB free in $OUT, has $((free_kb / 1048576)) GB" >&2
    exit 1
fi
if [ ! -f "$file" ]; then
    # A churned thread costs about 377 bytes of log in elog-synth's churn shape.
    threads=$(( GB * 1024 * 1024 * 1024 / 377 ))
    echo "generating a ${GB} GB thread-churn log ($threads threads, 2 caps)..." >&2
    "$SYNTH" --caps 2 --churn "$threads" --seed 11 -o "$file.tmp" 2>/dev/null
    mv "$file.tmp" "$file"
fi
bytes=$(stat -c %s "$file")

# run_measured CMD...: wall ms (MS) and the largest RssAnon seen (PEAK_ANON_KB), polled.
exec {sleepfd}<> <(:)
run_measured() {
    local start end pid line anon=0 rc=0
    start=$(date +%s%N)
    "$@" >/dev/null 2>"$OUT/huge-stderr.txt" &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        if mapfile -t lines < "/proc/$pid/status" 2>/dev/null; then
            for line in "${lines[@]}"; do
                case $line in RssAnon:*) set -- $line; (( $2 > anon )) && anon=$2 ;; esac
            done
        fi
        read -r -t 0.005 -u "$sleepfd" || true
    done
    wait "$pid" || rc=$?
    end=$(date +%s%N)
    MS=$(( (end - start) / 1000000 ))
    PEAK_ANON_KB=$anon
    RC=$rc
}
swap_out() { awk '$1 == "pswpout" { print $2 }' /proc/vmstat; }

swap0=$(swap_out)
printf 'bench-huge: %s (%.1f GB), %s cores, %s GB RAM\n' "$file" \
    "$(awk -v b="$bytes" 'BEGIN { print b / 1073741824 }')" "$(nproc)" \
    "$(awk '$1 == "MemTotal:" { printf "%.0f", $2 / 1048576 }' /proc/meminfo)"
cat "$file" > /dev/null 2>&1 || true        # warm the page cache as far as it fits
run_measured "$BIN" scan "$file"
scan_ms=$MS
printf '%-10s %8d ms  %6s  peak anon %6d MB  exit %d\n' scan "$scan_ms" "" \
    $((PEAK_ANON_KB / 1024)) "$RC"
for cmd in stats gc threads; do
    run_measured "$BIN" "$cmd" "$file"
    printf '%-10s %8d ms  %5.2fx  peak anon %6d MB = %.3fx file  exit %d\n' "$cmd" "$MS" \
        "$(awk -v a="$MS" -v b="$scan_ms" 'BEGIN { print a / (b ? b : 1) }')" \
        $((PEAK_ANON_KB / 1024)) "$(awk -v a="$PEAK_ANON_KB" -v b="$bytes" 'BEGIN { print a * 1024 / b }')" \
        "$RC"
done
echo "in-process (elog-bench, one run):"
"$BENCHBIN" --runs 1 --queries 200 --frames 20 "$file" | grep -E '^(file|scan|index|memory |first_frame|peak_anon|list)'
printf 'pages swapped out meanwhile: %d\n' $(( $(swap_out) - swap0 ))
if [ "${BENCH_HUGE_KEEP:-0}" != 1 ]; then
    rm -f "$file"
fi

#!/usr/bin/env bash
# make bench: elog-tui's speed and memory against the floor of a bare scan of the
# same file, measured in the same run (these machines are shared and noisy, so only
# ratios are meaningful). Logs are generated once into build/bench/ and reused.
#
#   BENCH_SYNTH_SIZE=1G      size of the big synthetic log (default 1G)
#   BENCH_RUNS=3             runs per measurement; the median is reported
#   BENCH_REAL=FILE          a real eventlog to use instead of building one with GHC
#   BENCH_GHC_EVENTS=BIN     a `ghc-events show`-compatible dumper to compare against
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=${BUILD:-build}
BIN=$BUILD/elog-tui
SYNTH=$BUILD/elog-synth
OUT=build/bench
RUNS=${BENCH_RUNS:-3}
SYNTH_SIZE=${BENCH_SYNTH_SIZE:-1G}
mkdir -p "$OUT"

# run_measured CMD...: runs CMD with stdout to /dev/null; sets MS (wall ms),
# PEAK_RSS_KB (VmHWM) and PEAK_ANON_KB (largest RssAnon seen, polled every 2 ms).
exec {sleepfd}<> <(:)
run_measured() {
    local start end pid line anon=0 hwm=0
    start=$(date +%s%N)
    "$@" >/dev/null 2>"$OUT/stderr.txt" &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        if mapfile -t lines < "/proc/$pid/status" 2>/dev/null; then
            for line in "${lines[@]}"; do
                case $line in
                    RssAnon:*) set -- $line; (( $2 > anon )) && anon=$2 ;;
                    VmHWM:*) set -- $line; (( $2 > hwm )) && hwm=$2 ;;
                esac
            done
        fi
        read -r -t 0.002 -u "$sleepfd" || true
    done
    wait "$pid" || true
    end=$(date +%s%N)
    MS=$(( (end - start) / 1000000 ))
    PEAK_RSS_KB=$hwm
    PEAK_ANON_KB=$anon
}

# median_of N CMD...: runs CMD N times; MEDIAN_MS and the memory peaks of the last run.
median_of() {
    local n=$1; shift
    local times=()
    for ((i = 0; i < n; i++)); do
        run_measured "$@"
        times+=("$MS")
    done
    MEDIAN_MS=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (n + 1) / 2 ))p")
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b <= 0) b = 1; printf "%.1f", a / b }'; }

bench_log() {
    local label=$1 file=$2
    local bytes events
    bytes=$(stat -c %s "$file")
    events=$("$BIN" scan "$file" 2>/dev/null | awk '{print $1}')
    cat "$file" > /dev/null                       # warm the page cache for every run
    median_of "$RUNS" "$BIN" scan "$file"
    local floor=$MEDIAN_MS
    median_of "$RUNS" "$BIN" show "$file"
    local show=$MEDIAN_MS
    printf '%-10s %8.1f MB %11s events | floor (bare scan) %6d ms | show %7d ms = %5sx floor | show peak RSS %6d MB, anon %5d MB\n' \
        "$label" "$(awk -v b="$bytes" 'BEGIN{print b/1048576}')" "$events" "$floor" "$show" \
        "$(ratio "$show" "$floor")" $((PEAK_RSS_KB / 1024)) $((PEAK_ANON_KB / 1024))
    LAST_SHOW_MS=$show
    LAST_FLOOR_MS=$floor
}

# The real log: BENCH_REAL, else a ~50 MB log made with GHC from fixtures/src (when GHC is
# installed), else the largest real log at hand.
real=${BENCH_REAL:-}
if [ -z "$real" ] && command -v ghc >/dev/null 2>&1 && [ -f fixtures/src/Bench.hs ]; then
    real=$OUT/real-50mb.eventlog
    if [ ! -f "$real" ]; then
        echo "building a ~50 MB real eventlog with GHC (once)..." >&2
        tmp=$(mktemp -d)
        ghc -O1 -threaded -eventlog -rtsopts -outputdir "$tmp" -o "$tmp/bench" \
            fixtures/src/Bench.hs >/dev/null
        (cd "$tmp" && ./bench +RTS -N4 -l -ol"$PWD/bench.eventlog" -RTS >/dev/null)
        mv "$tmp/bench.eventlog" "$real"
        rm -rf "$tmp"
    fi
fi
if [ -z "$real" ]; then
    real=$(ls -S fixtures/*.eventlog ../shared/corpus/ghc-events-tests/*.eventlog 2>/dev/null | head -1)
fi

synth=$OUT/synth-$SYNTH_SIZE.eventlog
if [ ! -f "$synth" ]; then
    echo "generating a $SYNTH_SIZE synthetic eventlog (once)..." >&2
    "$SYNTH" --caps 8 --size "$SYNTH_SIZE" --seed 1 --sparks --heap --labels -o "$synth" 2>/dev/null
fi
synth300=$OUT/synth-300M.eventlog
if [ ! -f "$synth300" ]; then
    "$SYNTH" --caps 4 --size 300M --seed 2 --heap --labels -o "$synth300" 2>/dev/null
fi

echo "elog-tui benchmark ($(nproc) cores; median of $RUNS runs; ratios against the floor of the same file)"
bench_log real "$real"
real_show=$LAST_SHOW_MS
bench_log synth-300M "$synth300"
echo "  goal: show peak anonymous memory <= 64 MB on a 300 MB log"
bench_log "synth-$SYNTH_SIZE" "$synth"

# ghc-events itself, when a dumper is available (e.g. shared/tools/refdump).
ge=${BENCH_GHC_EVENTS:-}
if [ -z "$ge" ] && [ -x /tmp/refdump ]; then ge=/tmp/refdump; fi
if [ -n "$ge" ]; then
    run_measured "$ge" "$real"
    printf 'ghc-events show on the real log: %d ms, peak RSS %d MB -> elog-tui show is %sx faster (goal >= 20x)\n' \
        "$MS" $((PEAK_RSS_KB / 1024)) "$(ratio "$MS" "$real_show")"
else
    echo "ghc-events comparison skipped: set BENCH_GHC_EVENTS or build /tmp/refdump (shared/tools/refdump/build.sh)"
fi

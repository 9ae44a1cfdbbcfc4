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
# Also a ~270 MB one from the same program (810000 rounds), for the viewer's 300 MB goal.
real300=""
if [ -z "$real" ] && command -v ghc >/dev/null 2>&1 && [ -f fixtures/src/Bench.hs ]; then
    real=$OUT/real-50mb.eventlog
    real300=$OUT/real-300mb.eventlog
    if [ ! -f "$real" ] || [ ! -f "$real300" ]; then
        echo "building real eventlogs of ~50 MB and ~270 MB with GHC (once)..." >&2
        tmp=$(mktemp -d)
        ghc -O1 -threaded -eventlog -rtsopts -outputdir "$tmp" -o "$tmp/bench" \
            fixtures/src/Bench.hs >/dev/null
        [ -f "$real" ] || { (cd "$tmp" && ./bench +RTS -N4 -l -ol"$tmp/bench.eventlog" -RTS >/dev/null)
                           mv "$tmp/bench.eventlog" "$real"; }
        [ -f "$real300" ] || { (cd "$tmp" && ./bench 810000 +RTS -N4 -l -ol"$tmp/b300.eventlog" -RTS >/dev/null)
                              mv "$tmp/b300.eventlog" "$real300"; }
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

# ---- in-process timings (build/elog-bench): index, queries, first frame, frame times ----
# Every ratio here is against elog-bench's own in-process bare scan of the same file,
# measured interleaved with what it is compared to.
BENCHBIN=$BUILD/elog-bench

# bval FILE TAG KEY: the value after KEY on the first line of FILE that starts with TAG.
bval() {
    awk -v tag="$2" -v key="$3" \
        '$1 == tag { for (i = 2; i < NF; i++) if ($i == key) { print $(i + 1); exit } }' "$1"
}
# verdict VALUE GOAL: "ok" if VALUE <= GOAL, else "MISSED".
verdict() { awk -v v="$1" -v g="$2" 'BEGIN { print (v <= g) ? "ok" : "MISSED" }'; }
mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
# An awk function: a duration in ns as "14.6 ms".
awk_human='function human(ns) {
    if (ns >= 1e9) return sprintf("%.3g s", ns / 1e9)
    if (ns >= 1e6) return sprintf("%.3g ms", ns / 1e6)
    if (ns >= 1e3) return sprintf("%.3g us", ns / 1e3)
    return sprintf("%.3g ns", ns)
}'

# bench_inproc LABEL FILE: elog-bench on FILE (raw lines kept in $OUT), then the summary.
bench_inproc() {
    local label=$1 file=$2
    local res=$OUT/elog-bench-$label.txt
    local bytes
    bytes=$(stat -c %s "$file")
    cat "$file" > /dev/null
    run_measured "$BIN" index "$file"
    local idx_ms=$MS idx_rss=$PEAK_RSS_KB idx_anon=$PEAK_ANON_KB
    "$BENCHBIN" --runs "$RUNS" "$file" > "$res"

    local floor build build_ratio ixb ixratio ff ffratio
    floor=$(bval "$res" scan median_ms)
    build=$(bval "$res" index median_ms)
    build_ratio=$(bval "$res" index ratio)
    ixb=$(bval "$res" memory index_bytes)
    ixratio=$(awk -v r="$(bval "$res" memory ratio)" 'BEGIN { printf "%.2f", r }')
    ff=$(bval "$res" first_frame median_ms)
    ffratio=$(bval "$res" first_frame ratio)
    echo
    printf '== %s: %s MB, %s events, %s s of log, %s HECs; in-process floor (bare scan) %s ms\n' \
        "$label" "$(mb "$bytes")" "$(bval "$res" file events)" "$(bval "$res" file span)" \
        "$(bval "$res" file caps)" "$floor"
    printf 'index: build %.0f ms = %sx floor (goal <= 3x) [%s], ' \
        "$build" "$build_ratio" "$(verdict "$build_ratio" 3)"
    printf 'memory %s MB = %sx file (goal <= 0.3x) [%s]\n' \
        "$(mb "$ixb")" "$ixratio" "$(verdict "$ixratio" 0.3)"
    awk '$1 == "memory_parts" {
        printf "  index bytes by part:"
        for (i = 2; i < NF; i += 2)
            printf " %s %.1f MB%s", $i, $(i + 1) / 1048576, i + 2 < NF ? "," : "\n"
    }' "$res"
    printf '  elog-tui index process: %d ms, peak RSS %d MB, peak anon %d MB = %sx file\n' \
        "$idx_ms" $((idx_rss / 1024)) $((idx_anon / 1024)) \
        "$(awk -v a="$idx_anon" -v b="$bytes" 'BEGIN { printf "%.2f", a * 1024 / b }')"

    printf 'queries (µs per query: median / p99 / max over %s random ranges; ' \
        "$(bval "$res" setup queries)"
    printf 'the lane kinds cover all %s lanes):\n' "$(bval "$res" query_setup caps)"
    awk "$awk_human"'
        $1 == "query" {
            if (!($2 in wseen)) { wseen[$2] = 1; worder[++nw] = $2; wns[$2] = $3 }
            if (!($4 in kseen)) { kseen[$4] = 1; korder[++nk] = $4 }
            cell[$4, $2] = sprintf("%.2f / %.2f / %.1f", $6, $8, $10)
        }
        END {
            printf "  %-18s", "range width:"
            for (w = 1; w <= nw; w++) printf " %-26s", worder[w] " = " human(wns[worder[w]])
            printf "\n"
            for (k = 1; k <= nk; k++) {
                printf "  %-18s", korder[k]
                for (w = 1; w <= nw; w++) printf " %-26s", cell[korder[k], worder[w]]
                printf "\n"
            }
        }' "$res"

    printf 'first frame %.0f ms = %sx floor (goal <= 3x) [%s]' "$ff" "$ffratio" \
        "$(verdict "$ffratio" 3)"
    printf '  (index %s ms, app_new %s ms, first draw %s ms)\n' \
        "$(bval "$res" first_frame index_ms)" "$(bval "$res" first_frame app_new_ms)" \
        "$(bval "$res" first_frame draw_ms)"

    printf "frames (%sx%s app_draw, ms: median / p99 / max wall (max CPU) over %s frames" \
        "$(bval "$res" setup cols)" "$(bval "$res" setup lines)" "$(bval "$res" setup frames)"
    echo " panning by 'l';"
    echo "        goal <= 2 ms; ok* = median and every frame's CPU time within it, the slower"
    echo "        wall times were the process being descheduled on this shared machine):"
    awk "$awk_human"'
        function mark(med, mx, cmx) {
            return mx <= 2 ? "ok" : med <= 2 && cmx <= 2 ? "ok*" : "MISSED"
        }
        $1 == "frame" {
            if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2; npc[$2] = $5 }
            cell[$2, $3] = sprintf("%5.2f / %5.2f / %5.2f (%5.2f) %-6s", $7, $9, $11, $15,
                                   mark($7, $11, $15))
        }
        END {
            printf "  %-10s %-10s %-37s %-37s\n", "zoom", "per column", "event pane off",
                "event pane on"
            for (i = 1; i <= n; i++)
                printf "  %-10s %-10s %-37s %-37s\n", order[i], human(npc[order[i]]),
                    cell[order[i], "events-off"], cell[order[i], "events-on"]
        }' "$res"
}

echo
echo "in-process timings (build/elog-bench, median of $RUNS runs; raw lines in" \
     "$OUT/elog-bench-*.txt)"
bench_inproc real "$real"
[ -n "$real300" ] && bench_inproc real-300M "$real300"
bench_inproc synth-300M "$synth300"
bench_inproc "synth-$SYNTH_SIZE" "$synth"

# ---- live (build/elog-livebench): a log fed into a FIFO at 1M events/s while the viewer's
# loop runs headless — sustained ingest, lag from a byte's arrival to its event on screen
# (goal <= 100 ms at 1M events/s), catch-up after the last byte. A 100 MB synthetic log.
LIVEBENCH=$BUILD/elog-livebench
live_log=$OUT/live-100M.eventlog
[ -s "$live_log" ] || "$SYNTH" --size 100M --seed 2 --global-block -o "$live_log" 2>/dev/null
echo
echo "live viewer (build/elog-livebench, one run):"
"$LIVEBENCH" "$live_log" 1000000 | sed 's/^live: /  /'

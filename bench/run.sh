#!/usr/bin/env bash
# make bench: elog-tui's speed and memory on every shape of log users have, against the
# floor of a bare scan of the same file measured in the same run (these machines are
# shared and noisy, so only ratios are meaningful), ending with one line per goal that
# names the worst shape. Logs are generated once into $BENCH_DIR and reused; the real
# ones are made with GHC from fixtures/src when it is installed (else skipped, said so).
#
#   BENCH_DIR=/tmp/elog-bench   where the generated logs live (about 2.5 GB)
#   BENCH_RUNS=3                runs per measurement; the median is reported
#   BENCH_BIG=1G                size of the big log of the worst shape (0: skip it)
#   BENCH_SHAPES="a b"          only these shapes (names as in the table)
#   BENCH_GHC_EVENTS=BIN        a `ghc-events show`-compatible dumper to compare against
#
# Takes about 4.5 minutes on 2 cores (log generation, once, about 1 more).
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=${BUILD:-build}
BIN=$BUILD/elog-tui
SYNTH=$BUILD/elog-synth
BENCHBIN=$BUILD/elog-bench
OUT=${BENCH_DIR:-/tmp/elog-bench}
RUNS=${BENCH_RUNS:-3}
BIG=${BENCH_BIG:-1G}
mkdir -p "$OUT"
bench_start=$(date +%s)

# Goals (ratios): first frame vs bare scan, index bytes vs file, peak anonymous memory
# while opening vs file; list open time and frame time in ms.
G_FF=3 G_IX=0.25 G_PEAK=0.3 G_LIST=100 G_FRAME=2

# ---- the shapes ------------------------------------------------------------------------
# gen_synth NAME ARGS...: build/elog-synth ARGS into $OUT/NAME.eventlog, once.
gen_synth() {
    local name=$1; shift
    local f=$OUT/$name.eventlog
    if [ ! -f "$f" ]; then
        echo "generating $name ($*)..." >&2
        "$SYNTH" --seed 7 "$@" -o "$f.tmp" 2>/dev/null && mv "$f.tmp" "$f"
    fi
    echo "$f"
}

# gen_ghc NAME SRC ARGS -- RTSFLAGS: a real log from a GHC program, once; "" without GHC.
gen_ghc() {
    local name=$1 src=$2 args=$3 rts=$4
    local f=$OUT/$name.eventlog
    if [ ! -f "$f" ]; then
        command -v ghc >/dev/null 2>&1 || { echo ""; return; }
        echo "building $name with GHC ($src $args +RTS $rts)..." >&2
        local tmp
        tmp=$(mktemp -d)
        ghc -O1 -threaded -eventlog -rtsopts -outputdir "$tmp" -o "$tmp/prog" "$src" >/dev/null
        (cd "$tmp" && ./prog $args +RTS $rts -l -ol"$tmp/out.eventlog" -RTS >/dev/null)
        mv "$tmp/out.eventlog" "$f"
        rm -rf "$tmp"
    fi
    echo "$f"
}

# shape_file NAME [SIZE_MB]: the log of a shape (generated if needed); SIZE_MB only
# for the synthetic ones (the big run).
shape_file() {
    local mb=${2:-150}
    case $1 in
    churn)      # at least 2 million threads (about 760 MB), for the thread list's goal
                local nthr=$((mb * 2650))
                [ "$nthr" -ge 2000000 ] || nthr=2000000
                gen_synth "churn-${nthr}thr" --caps 2 --churn "$nthr" ;;
    churn-real) gen_ghc churn-real fixtures/src/Churn.hs 25000 -N2 ;;
    pingpong-real) gen_ghc pingpong-real fixtures/src/Bench.hs 135000 -N4 ;;
    trace-real) gen_ghc trace-real fixtures/src/Trace.hs 500000 -N2 ;;
    pingpong)   gen_synth "pingpong-${mb}M" --caps 8 --sparks --heap --labels --size "${mb}M" ;;
    markers)    gen_synth "markers-${mb}M" --caps 2 --markers-every 300us --size "${mb}M" ;;
    messages)   gen_synth "messages-${mb}M" --caps 2 --markers-every 0 --messages-every 150us \
                    --size "${mb}M" ;;
    caps64)     gen_synth "caps64-${mb}M" --caps 64 --size "${mb}M" ;;
    sparks)     gen_synth "sparks-${mb}M" --caps 8 --sparks --size "${mb}M" ;;
    heapbands)  gen_synth "heapbands-${mb}M" --caps 2 --global-block --heap-bands 3000 --gc-every 5ms \
                    --size "${mb}M" ;;
    nonmoving)  gen_synth "nonmoving-${mb}M" --caps 4 --nonmoving --gc-every 5ms \
                    --size "${mb}M" ;;
    esac
}
ALL_SHAPES="churn churn-real pingpong-real trace-real pingpong markers messages caps64 sparks heapbands nonmoving"
SHAPES=${BENCH_SHAPES:-$ALL_SHAPES}

# bval FILE TAG KEY [NTH]: the value after KEY on the NTH (default first) line of FILE
# whose first field is TAG.
bval() {
    awk -v tag="$2" -v key="$3" -v nth="${4:-1}" \
        '$1 == tag && ++seen == nth { for (i = 2; i < NF; i++) if ($i == key) { print $(i + 1); exit } }' "$1"
}
ok() { awk -v v="$1" -v g="$2" 'BEGIN { print (v <= g) ? "ok" : "MISSED" }'; }

printf 'elog-tui benchmark: %s cores, median of %s runs, every ratio against the same run\n' \
    "$(nproc)" "$RUNS"
printf 'goals: first frame <= %sx a bare scan; index <= %sx file; peak anonymous memory\n' \
    "$G_FF" "$G_IX"
printf '       while opening <= %sx file; each list usable <= %s ms after the first frame;\n' \
    "$G_PEAK" "$G_LIST"
printf '       every frame <= %s ms of CPU at 200x50\n\n' "$G_FRAME"
printf '%-14s %8s %10s %7s | %7s %6s | %6s | %6s %7s | %25s | %6s\n' shape MB events threads \
    'scan ms' 'frame1' index 'peak' settled 'lists ms thr/gc/mrk/find' 'frame'
printf '%-14s %8s %10s %7s | %7s %6s | %6s | %6s %7s | %25s | %6s\n' '' '' '' '' '' 'x scan' \
    'x file' 'x file' 'x file' '' 'ms'

RES=$OUT/results.txt
: > "$RES"
# bench_shape LABEL FILE: one row of the table, and a results line for the summary.
bench_shape() {
    local label=$1 file=$2
    local raw=$OUT/elog-bench-$label.txt
    cat "$file" > /dev/null                 # warm the page cache for every run
    "$BENCHBIN" --runs "$RUNS" --queries 2000 --frames 60 "$file" > "$raw"
    local scan ff ix peak settled threads lt lg lm ls frame mb events
    mb=$(awk -v b="$(bval "$raw" file bytes)" 'BEGIN { printf "%.0f", b / 1048576 }')
    events=$(bval "$raw" file events)
    threads=$(bval "$raw" file threads)
    scan=$(bval "$raw" scan median_ms)
    ff=$(bval "$raw" first_frame ratio)
    ix=$(bval "$raw" memory ratio)
    peak=$(bval "$raw" peak_anon ratio)
    settled=$(bval "$raw" peak_anon settled_ratio)
    lt=$(bval "$raw" list median_ms 1); lg=$(bval "$raw" list median_ms 2)
    lm=$(bval "$raw" list median_ms 3); ls=$(bval "$raw" list median_ms 4)
    frame=$(awk '$1 == "frame" { for (i = 2; i < NF; i++) if ($i == "cpu_max_ms" && $(i+1) > m) m = $(i+1) }
                 END { printf "%.2f", m }' "$raw")
    printf '%-14s %8s %10s %7s | %7.0f %6.2f | %6.3f | %6.3f %7.3f | %6.0f %5.0f %5.0f %6.0f | %6s\n' \
        "$label" "$mb" "$events" "$threads" "$scan" "$ff" "$ix" "$peak" "$settled" \
        "$lt" "$lg" "$lm" "$ls" "$frame"
    local lmax
    lmax=$(printf '%s\n' "$lt" "$lg" "$lm" "$ls" | sort -g | tail -1)
    echo "$label $ff $ix $peak $lmax $frame" >> "$RES"
}

real_pp=""
for shape in $SHAPES; do
    f=$(shape_file "$shape")
    if [ -z "$f" ]; then
        printf '%-14s skipped: needs GHC to build it from fixtures/src (not installed)\n' "$shape"
        continue
    fi
    [ "$shape" = pingpong-real ] && real_pp=$f
    bench_shape "$shape" "$f"
done

# The worst synthetic shape (largest ratio to its goal on any goal), once more at BENCH_BIG.
if [ "$BIG" != 0 ]; then
    worst=$(awk -v gf=$G_FF -v gi=$G_IX -v gp=$G_PEAK -v gl=$G_LIST -v gm=$G_FRAME '
        $1 !~ /-real$/ {
            s = $2 / gf; if ($3 / gi > s) s = $3 / gi; if ($4 / gp > s) s = $4 / gp
            if ($5 / gl > s) s = $5 / gl; if ($6 / gm > s) s = $6 / gm
            if (s > best) { best = s; name = $1 }
        }
        END { print name }' "$RES")
    worst=${worst:-churn}
    big_mb=$(awk -v s="$BIG" 'BEGIN { n = s + 0; u = substr(s, length(s));
        print (u == "G" ? n * 1024 : n) }')
    f=$(shape_file "$worst" "$big_mb")
    bench_shape "$worst-$BIG" "$f"
fi

echo
# ---- live (build/elog-livebench): a log fed into a FIFO at 1M events/s while the viewer's
# loop runs headless — sustained ingest, lag from a byte's arrival to its event on screen
# (goal <= 100 ms at 1M events/s), catch-up after the last byte. A 100 MB synthetic log.
LIVEBENCH=$BUILD/elog-livebench
live_log=$OUT/live-100M.eventlog
[ -s "$live_log" ] || "$SYNTH" --size 100M --seed 2 --global-block -o "$live_log" 2>/dev/null
echo
echo "live viewer (build/elog-livebench, one run):"
"$LIVEBENCH" "$live_log" 1000000 | sed 's/^live: /  /'
echo
echo "worst shape per goal:"
awk -v gf=$G_FF -v gi=$G_IX -v gp=$G_PEAK -v gl=$G_LIST -v gm=$G_FRAME '
    function upd(k, v, name) { if (!(k in w) || v > w[k]) { w[k] = v; n[k] = name } }
    { upd("ff", $2, $1); upd("ix", $3, $1); upd("pk", $4, $1); upd("ls", $5, $1); upd("fr", $6, $1) }
    function line(label, k, g, unit) {
        printf "  %-36s %-16s %8.3g%s (goal <= %s%s) %s\n", label, n[k], w[k], unit, g, unit,
            w[k] <= g ? "ok" : "MISSED"
    }
    END {
        line("first frame / bare scan:", "ff", gf, "x")
        line("index / file:", "ix", gi, "x")
        line("peak anon memory opening / file:", "pk", gp, "x")
        line("slowest list after the first frame:", "ls", gl, " ms")
        line("slowest frame (CPU) at 200x50:", "fr", gm, " ms")
    }' "$RES"

# `show` against a bare scan, and ghc-events itself, on the real ping-pong log.
if [ -n "$real_pp" ]; then
    echo
    t0=$(date +%s%N); "$BIN" scan "$real_pp" >/dev/null; t1=$(date +%s%N)
    "$BIN" show "$real_pp" >/dev/null; t2=$(date +%s%N)
    scan_ms=$(( (t1 - t0) / 1000000 )) show_ms=$(( (t2 - t1) / 1000000 ))
    printf 'show on pingpong-real: %d ms = %sx a bare scan (%d ms)\n' "$show_ms" \
        "$(awk -v a=$show_ms -v b=$scan_ms 'BEGIN { printf "%.1f", a / (b ? b : 1) }')" "$scan_ms"
    ge=${BENCH_GHC_EVENTS:-}
    if [ -z "$ge" ] && [ -x /tmp/refdump ]; then ge=/tmp/refdump; fi
    if [ -n "$ge" ]; then
        t0=$(date +%s%N); "$ge" "$real_pp" >/dev/null; t1=$(date +%s%N)
        ge_ms=$(( (t1 - t0) / 1000000 ))
        printf 'ghc-events show on it: %d ms -> elog-tui show is %sx faster (goal >= 20x)\n' \
            "$ge_ms" "$(awk -v a=$ge_ms -v b=$show_ms 'BEGIN { printf "%.1f", a / (b ? b : 1) }')"
    fi
fi
echo "raw lines: $OUT/elog-bench-*.txt; bench took $(( $(date +%s) - bench_start )) s"

#!/usr/bin/env bash
# snapshots.sh: render the viewer's screen (elog-tui snapshot) of each log at several
# zooms, places, sizes and colour modes into one file per screen, so two builds can be
# compared byte for byte (a change meant to be invisible: `diff -r OLD NEW`).
#
#   tools/snapshots.sh BIN OUTDIR [--quick] FILE...
#
# --quick: fewer screens per log (for big logs, where every screen re-reads the log).
# Prints the number of screens written. Runs two at a time.
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 BIN OUTDIR [--quick] FILE..." >&2; exit 2; }
BIN=$(readlink -f "$1") OUT=$2
shift 2
QUICK=0
if [ "$1" = --quick ]; then QUICK=1; shift; fi
mkdir -p "$OUT"

# span_ns FILE: the log's span from the title of a snapshot ("20.105s", "330.338ms", ...),
# to three digits: enough to place the windows below.
span_ns() {
    "$BIN" snapshot "$1" --size 200x24 2>/dev/null |
        awk 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+(ns|us|µs|ms|s),?$/) {
                 v = $i; sub(/,$/, "", v); u = v; sub(/^[0-9.]+/, "", u); sub(/[a-zµ]+$/, "", v)
                 m = u == "s" ? 1e9 : u == "ms" ? 1e6 : (u == "us" || u == "µs") ? 1e3 : 1
                 printf "%.0f\n", v * m; break } }' || true
}

jobs_file=$(mktemp)
trap 'rm -f "$jobs_file"' EXIT
for f in "$@"; do
    base=$(basename "$f" .eventlog)
    s=$(span_ns "$f")
    [ -n "$s" ] || s=1000000
    # name|args: windows as fractions of the span around a few centres.
    win() { awk -v s="$s" -v c="$1" -v w="$2" 'BEGIN {
        a = s * (c - w / 2); if (a < 0) a = 0; b = a + s * w; if (b - a < 2) b = a + 2
        printf "--from %.0f --to %.0f", a, b }'; }
    views=("fit|" "tenth|$(win 0.5 0.1)" "thousandth|$(win 0.5 0.001)"
           "e5|$(win 0.5 0.00001)" "e7|$(win 0.5 0.0000001)" "odd|$(win 0.456 0.666)"
           "early|$(win 0.03 0.05)" "late|$(win 0.97 0.05)"
           "gcz|--keys '] ] z'" "events|$(win 0.5 0.001) --keys e")
    sizes=("200x50" "80x24" "317x90")
    modes=("plain|" "color|--color" "ascii|--ascii")
    for v in "${views[@]}"; do
        for z in "${sizes[@]}"; do
            for m in "${modes[@]}"; do
                if [ $QUICK = 1 ]; then
                    # every view at 200x50 plain and colour; a few in the other forms
                    case "${v%%|*}" in fit|tenth|e5) ;; *)
                        [ "$z" = 200x50 ] && [ "${m%%|*}" != ascii ] || continue ;;
                    esac
                    [ "$z" = 200x50 ] || [ "${m%%|*}" = plain ] || continue
                fi
                printf '%s\t%s\t%s\n' "$f" "$OUT/$base.${v%%|*}.$z.${m%%|*}.txt" \
                    "--size $z ${v#*|} ${m#*|}" >> "$jobs_file"
            done
        done
    done
done
# shellcheck disable=SC2016
tr '\n' '\0' < "$jobs_file" | xargs -0 -P 2 -n 1 bash -c '
    IFS=$'"'"'\t'"'"' read -r f out args <<< "$1"
    eval "set -- $args"
    "'"$BIN"'" snapshot "$f" "$@" > "$out" 2>&1 || echo "exit $?" >> "$out"' _
wc -l < "$jobs_file"

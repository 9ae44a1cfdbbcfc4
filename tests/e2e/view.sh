#!/usr/bin/env bash
# End-to-end tests of what the viewer shows on small screens and how it selects: folded
# HEC rows that still tell busy from idle (80x24, four HECs), lanes that scroll and say
# how many are hidden (30x8), exact range selections, search from the event pane, the
# per-HEC lines of a GC, bytes in the lists, the cut status line and mouse drags. Drives
# the real binary in a private tmux server; expected values come from the logs' ghc-events
# dumps (fixtures/*.ref017) and `elog-tui markers`. Prints one line per check and ends with
# "N passed, N failed"; exit status 1 on failure.
set -u
BIN=${ELOG_BIN:-build/elog-tui}
ROOT=${ELOG_ROOT:-.}
SOCK="elog-e2e-view-$$"
SESS=e2e
. "$(dirname "$0")/lib.sh"
trap 'tmux -L "$SOCK" kill-server 2>/dev/null' EXIT

check_not() {   # check_not NAME TEXT: the screen, settled, lacks TEXT
    sleep 0.3
    if has "$2"; then bad "$1 (screen shows '$2')"; dump; else ok "$1"; fi
}
keys() { T send-keys -t e2e "$@"; sleep 0.15; }

# start BACKEND FILE COLSxLINES [ENV...]: the viewer in a fresh private server.
start() {
    local backend=$1 file=$2 w=${3%x*} h=${3#*x}
    shift 3
    new_session "$w" "$h" "env TERM=xterm-256color $* $BIN --backend $backend $file; sleep 60"
    poll has "HEC 0" || { bad "could not start $file"; dump; }
}

# The character at 0-based column COL of screen line LINE (1-based), UTF-8 aware.
cell() {
    local LC_ALL=C.UTF-8 text
    text=$(screen | sed -n "$1p")
    printf '%s\n' "${text:$2:1}"
}
# The 1-based screen line whose label column starts with LABEL.
line_of() { screen | grep -n -m1 "^$1 " | cut -d: -f1; }

# ---- 80x24, four HECs folded into one row each ------------------------------------------
# A column of demo.eventlog where, by the dump, cap K starts a GC inside the column (not
# at its very edges) and runs threads at least 3/4 of it: "K COL" (HEC 0, column 5: one GC
# and 80 % running, the issue's case). The column grid is the viewer's: 70 plot
# columns from the log's first event (a block marker, which ref017 does not list:
# taken from `show`) to its last.
busy_gc_column() {
    local t0
    t0=$("$BIN" show "$ROOT/fixtures/demo.eventlog" | awk '/^Events:/ { e = 1; next }
        e && /^ *[0-9]+: / { print $1 + 0; exit }')
    awk -v t0="$t0" -v w=70 '
        /^Events:/ { e = 1; next }
        e && /^ *[0-9]+: / { last = $1 + 0 }
        !e || !/^ *[0-9]+: cap [0-9]+: / { next }
        {
            t = $1 + 0; cap = $3 + 0
            if ($0 ~ /: running thread /) run[cap] = t
            else if ($0 ~ /: stopping thread / && cap in run) {
                n[cap]++; rs[cap, n[cap]] = run[cap]; re[cap, n[cap]] = t; delete run[cap]
            } else if ($0 ~ /: starting GC$/) { ng[cap]++; gs[cap, ng[cap]] = t }
        }
        END {
            span = last - t0 + 1
            for (cap = 0; cap < 4; cap++)
                for (c = 0; c < w; c++) {
                    a = t0 + int(c * span / w); b = t0 + int((c + 1) * span / w)
                    gc = 0
                    for (j = 1; j <= ng[cap]; j++)
                        if (gs[cap, j] > a + (b - a) / 50 && gs[cap, j] < b - (b - a) / 50) gc = 1
                    if (!gc) continue
                    busy = 0
                    for (j = 1; j <= n[cap]; j++) {
                        s = rs[cap, j] > a ? rs[cap, j] : a; f = re[cap, j] < b ? re[cap, j] : b
                        if (f > s) busy += f - s
                    }
                    if (busy * 4 >= 3 * (b - a)) { print cap, c; exit }
                }
        }' "$ROOT/fixtures/demo.eventlog.ref017"
}

read -r BCAP BCOL < <(busy_gc_column)
if [ -z "${BCOL:-}" ]; then
    bad "the dump of demo.eventlog has a busy column with a GC (none found)"
else
    for mode in "curses:color:▆▇█" "tickit:color:▆▇█" "curses:NO_COLOR=1:⣶⣿" "tickit:--ascii:G"; do
        IFS=: read -r backend opt want <<<"$mode"
        env=""
        file="$ROOT/fixtures/demo.eventlog"
        case $opt in
        NO_COLOR=1) env=$opt ;;
        --ascii) file="$file --ascii" ;;
        esac
        start "$backend" "$file" 80x24 $env
        check_not "80x24 $backend $opt: the HEC rows are folded" "  gc "
        ln=$(line_of "HEC $BCAP")
        got=$(cell "$ln" $((10 + BCOL)))
        if [ -n "$ln" ] && [[ "$want" == *"$got"* ]] && [ -n "$got" ]; then
            ok "80x24 $backend $opt: HEC $BCAP column $BCOL (a GC, running 3/4+) is busy: '$got'"
        else
            bad "80x24 $backend $opt: HEC $BCAP column $BCOL shows '$got', want one of '$want'"
            dump
        fi
        keys q
    done
fi

# ---- 30x8: lanes that do not fit scroll, and say how many are hidden --------------------
for backend in curses tickit; do
    start $backend "$ROOT/fixtures/threaded-n4.eventlog" 30x8
    check "30x8 $backend: says how many lanes are hidden below" "↓ 4 more: HEC 2, HEC 3"
    check_not "30x8 $backend: HEC 3 is not drawn yet" "HEC 3 "
    keys Down Down Down
    check "30x8 $backend: Down scrolls to HEC 3" "HEC 3 "
    check "30x8 $backend: ... and counts the lanes above" "↑ 2 more"
    keys ']'
    if poll eval 'screen | tail -n 1 | grep -q "…$"'; then
        ok "30x8 $backend: the cut status line ends with …"
    else
        bad "30x8 $backend: status line '$(screen | tail -n 1)' does not end with …"
    fi
    keys q
done
start curses "$ROOT/fixtures/threaded-n4.eventlog --ascii" 30x8
keys ']'
if poll eval 'screen | tail -n 1 | grep -q "[^.]\.\.\.$"'; then
    ok "30x8 --ascii: the cut status line ends with ..."
else
    bad "30x8 --ascii: status line '$(screen | tail -n 1)' does not end with ..."
fi
check "30x8 --ascii: hidden lanes counted in ASCII" "v 4 more"
keys q

# ---- exact selection: Space on a marker, n, Space ---------------------------------------
read -r M1 M2 < <("$BIN" markers "$ROOT/fixtures/threaded-n4.eventlog" |
    awk 'NR == 2 { a = $1 } NR == 3 { print a, $1; exit }')
D=$((M2 - M1))
if ((D >= 1000000)); then WANT=$(printf '%d.%06dms' $((D / 1000000)) $((D % 1000000)))
elif ((D >= 1000)); then WANT=$(printf '%d.%03dus' $((D / 1000)) $((D % 1000)))
else WANT="${D}ns"; fi
for backend in curses tickit; do
    start $backend "$ROOT/fixtures/threaded-n4.eventlog" 80x24
    keys n Space n Space
    check "$backend: marker to marker selects exactly $WANT (elog-tui markers)" "($WANT)"
    keys q
done

# ---- / from the focused event pane -------------------------------------------------------
for backend in curses tickit; do
    start $backend "$ROOT/fixtures/markers.eventlog" 100x30
    keys e Tab
    check "$backend: the event pane has focus" "events near"
    keys / h e l p e r - b : t i c k
    if poll eval 'screen | tail -n 1 | grep -qF "/helper-b:tick"'; then
        ok "$backend: / in the event pane opens the search prompt"
    else
        bad "$backend: no search prompt: status '$(screen | tail -n 1)'"
    fi
    keys Enter
    if poll eval 'screen | tail -n 1 | grep -qF "helper-b:tick 1"'; then
        ok "$backend: Enter runs the search from the pane"
    else
        bad "$backend: the search did not run: status '$(screen | tail -n 1)'"
    fi
    check "$backend: the pane stays open" "events near"
    keys q
done

# ---- a GC's lines in HEC order, the HECs that took no part named ------------------------
# From the dump: caps that post "starting GC" between the first request and "finished GC".
PARTS=$(awk '/requesting parallel GC/ && !r { r = 1 } r && /: starting GC$/ { p[$3 + 0] = 1 }
    r && /: finished GC$/ { for (c = 0; c < 4; c++) printf "%d", (c in p); exit }' \
    "$ROOT/fixtures/threaded-n4.eventlog.ref017")
start curses "$ROOT/fixtures/threaded-n4.eventlog" 100x40
keys ']'
check "] shows GC #1" "GC #1:"
GOT=$(screen | grep -E '^ HEC [0-9]+(, [0-9]+|-[0-9]+)?: ' |
    awk '{ sub(/^ HEC /, ""); c = $0 + 0; printf "%d", ($0 ~ /took no part/) ? 0 : 1 }')
if [ "$GOT" = "$PARTS" ]; then
    ok "GC #1: per-HEC lines in HEC order, non-participants named ($PARTS)"
else
    bad "GC #1: per-HEC lines say '$GOT', the dump '$PARTS'"
    dump
fi
keys p
check "p lists the collections" "collections by pause"
if screen | grep -qE '[0-9] (KiB|MiB) *│' && ! screen | grep -qE ' [0-9]{5,} *│'; then
    ok "p: bytes copied in the pane's units"
else
    bad "p: bytes copied not in KiB/MiB"
    dump
fi
keys q

# ---- a mouse drag leaves the cursor at its end -------------------------------------------
for backend in curses tickit; do
    start $backend "$ROOT/fixtures/threaded-n4.eventlog" 100x30
    # SGR mouse reports (1-based): press at plot column 10, drag to 30, release there.
    T send-keys -t e2e -l $'\e[<0;21;6M'; sleep 0.1
    T send-keys -t e2e -l $'\e[<32;31;6M'; sleep 0.1
    T send-keys -t e2e -l $'\e[<32;41;6M'; sleep 0.1
    T send-keys -t e2e -l $'\e[<0;41;6m'; sleep 0.3
    check "$backend: the drag selected a range" "[selection "
    got=$(cell 3 40)
    if [ "$got" = "▼" ]; then
        ok "$backend: the cursor is where the drag ended"
    else
        bad "$backend: no cursor at the drag's end (column 40 shows '$got')"
        dump
    fi
    keys q
done

summary

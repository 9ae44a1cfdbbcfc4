#!/usr/bin/env bash
# End-to-end tests of the viewer's GC analysis in the real binary under a private tmux
# server, with both backends: `u` opens the MMU plot (title, the 10 ms point, the axis),
# Right/Left choose a window length, Enter selects its worst window; `W` lists the worst
# windows and Enter jumps; `p` shows the pause histogram above the list; `?` lists the
# new keys. Expected figures come from `elog-tui worst --json` of the same log, whose
# values the Check suite compares with the ghc-events dump. Prints one line per check,
# then "N passed, N failed"; exit status 1 on failure.
set -u
BIN=${ELOG_BIN:-build/elog-tui}
ROOT=${ELOG_ROOT:-.}
SOCK="elog-e2e-gc-$$"
SESS=e2e
. "$(dirname "$0")/lib.sh"
trap 'tmux -L "$SOCK" kill-server 2>/dev/null' EXIT

keys() { T send-keys -t e2e "$@"; sleep 0.15; }
start() {       # start BACKEND FILE COLSxLINES
    local backend=$1 file=$2 w=${3%x*} h=${3#*x}
    new_session "$w" "$h" "env TERM=xterm-256color $BIN --backend $backend $file; sleep 60"
    poll has "HEC 0" || { bad "could not start $file"; dump; }
}

log="$ROOT/fixtures/threaded-n2.eventlog"
# The worst 10 ms window's mutator share, as the command prints it (0..1 -> percent).
share=$("$BIN" worst "$log" --window 10ms --top 2 --json |
        awk -F'"mmu":' 'NF > 1 { split($2, a, ","); printf "%.2f%%\n", a[1] * 100 }' | head -1)
[ -n "$share" ] || bad "worst --json gave no window"

for backend in curses tickit; do
    start $backend "$log" 110x32
    keys u
    check "$backend: u opens the plot" "minimum mutator utilisation: whole log"
    check "$backend: it starts on 10 ms" "window 10.000ms: MMU $share"
    check "$backend: the window axis" "10us                 100us                1ms"
    keys Right
    if poll has "window 10.000ms:"; then
        sleep 0.3
        if has "window 10.000ms:"; then bad "$backend: Right did not move"; dump; else ok "$backend: Right moves"; fi
    else
        ok "$backend: Right moves"
    fi
    keys Left
    keys Enter
    check "$backend: Enter selects the worst window" "worst 10.000ms window: mutator $share"
    check "$backend: ... and the range statistics show it" "Mutator share: "
    keys Escape
    keys W
    check "$backend: W lists the worst windows" "worst 10.000ms windows"
    keys Down Enter
    check "$backend: Enter jumps to the second" "worst window #2: mutator"
    keys p
    check "$backend: p shows the pause histogram" "pauses by length"
    keys Escape
    keys '?'
    check "$backend: ? lists u" "minimum mutator utilisation curve"
    keys PageDown PageDown PageDown
    check "$backend: ? has the plot's keys" "MMU plot"
    keys q
done

# ---- the two-log view ----------------------------------------------------------------------
n4="$ROOT/fixtures/threaded-n4.eventlog"
for backend in curses tickit; do
    new_session 120 40 \
        "env TERM=xterm-256color $BIN --backend $backend $log $n4 --align phase:ping-pong-done; sleep 60"
    check "$backend: two logs: A's lanes" "A HEC 1"
    check "$backend: two logs: B's lanes" "B HEC 3"
    check "$backend: two logs: B's divider" 'B: threaded-n4.eventlog, aligned at marker "phase:ping-pong-done" (B'"'"'s time = A'"'"'s - 77.898910ms)'
    keys + + +
    check "$backend: two logs: one zoom (the axis got finer)" "µs/c"
    check "$backend: two logs: B's labels stay where it is out of view" "B markers"
    keys 0 n n n + + +
    check "$backend: two logs: zoomed at the marker, B's is there too" "▼phase:ping-pong-done"
    if [ "$(screen | grep -c '▼phase:ping-pong-done')" -ge 2 ]; then
        ok "$backend: two logs: the marker in both logs"
    else
        bad "$backend: two logs: the marker not in both logs"; dump
    fi
    keys q
done
if "$BIN" snapshot "$log" "$n4" --align no-such-marker >/dev/null 2>"$ROOT/build/e2e-gc-align.err"; then
    bad "--align with a missing marker succeeded"
elif grep -qF 'no marker named "no-such-marker"' "$ROOT/build/e2e-gc-align.err"; then
    ok "--align with a missing marker: one line, exit 1"
else
    bad "--align with a missing marker: $(cat "$ROOT/build/e2e-gc-align.err")"
fi

summary

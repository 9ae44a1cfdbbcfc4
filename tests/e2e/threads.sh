#!/usr/bin/env bash
# End-to-end test of thread focus: in the real binary, in a private tmux server, with both
# backends — `t`, the filter, Enter focuses the thread; `.` and `,` step through its runs
# across HECs; the detail pane shows its life; Esc ends the focus; in a non-UTF-8 locale
# its runs are '@'. Expected values come from the log's ghc-events dump
# (fixtures/threaded-n4.eventlog.ref017), not from the tool. Prints one line per check and
# ends with "N passed, N failed"; exit status 1 on failure.
set -u
BIN=${ELOG_BIN:-build/elog-tui}
ROOT=${ELOG_ROOT:-.}
SOCK="elog-e2e-threads-$$"
SESS=e2e
. "$(dirname "$0")/lib.sh"
trap 'tmux -L "$SOCK" kill-server 2>/dev/null' EXIT

check_status() {   # check_status NAME TEXT: the status line holds TEXT
    if poll status_has "$2"; then ok "$1"; else bad "$1 (status lacks '$2')"; dump; fi
}
keys() { T send-keys -t e2e "$@"; sleep 0.15; }

start() {   # start BACKEND FILE COLSxLINES [ENV...]
    local backend=$1 file=$2 w=${3%x*} h=${3#*x}
    shift 3
    new_session "$w" "$h" "env TERM=xterm-256color $* $BIN --backend $backend $file; sleep 60"
    poll has "HEC 0" || { bad "could not start $file"; dump; }
}

# A log time as the viewer prints it exactly: 1.290554ms, 149.789084ms, 2.050750353s.
exact() {
    local t=$1
    if ((t >= 1000000000)); then printf '%d.%09ds' $((t / 1000000000)) $((t % 1000000000))
    elif ((t >= 1000000)); then printf '%d.%06dms' $((t / 1000000)) $((t % 1000000))
    elif ((t >= 1000)); then printf '%d.%03dus' $((t / 1000)) $((t % 1000))
    else printf '%dns' "$t"; fi
}

LOG="$ROOT/fixtures/threaded-n4.eventlog"
REF="$LOG.ref017"
TID=12
# Thread 12's runs from the dump, "time cap" per line, and the thread that created it
# (the one running on the creating cap then).
RUNS=$(awk -v tid=$TID '$0 ~ ": running thread " tid "$" { print $1 + 0, $3 + 0 }' "$REF")
N=$(printf '%s\n' "$RUNS" | wc -l)
CREATOR=$(awk -v tid=$TID '
    / cap [0-9]+: running thread / { run[$3 + 0] = $6 }
    / cap [0-9]+: stopping thread / { run[$3 + 0] = "" }
    $0 ~ ": creating thread " tid "$" { print run[$3 + 0], $3 + 0; exit }' "$REF")
run_at() { printf '%s\n' "$RUNS" | sed -n "$1p"; }

for backend in curses tickit; do
    start $backend "$LOG" 120x40
    keys t w o r k e r - 5
    check "$backend: the thread list filters to worker-5" "worker-5"
    keys Enter
    check_status "$backend: Enter focuses thread $TID ($N runs by the dump)" \
        "thread $TID focused: $N runs"
    read -r t1 c1 < <(run_at 1)
    check "$backend: the pane shows its life from its creation (by thread ${CREATOR% *})" \
        "created on HEC ${CREATOR#* } by thread ${CREATOR% *}"
    check "$backend: the cursor is on its first run ($(exact "$t1"), HEC $c1)" \
        "▶ $(exact "$t1")"
    # Step forward through the first six runs, then back: each is the dump's, on its HEC.
    for k in 2 3 4 5 6; do
        keys .
        read -r t c < <(run_at $k)
        check_status "$backend: . goes to run $k/$N at $(exact "$t") on HEC $c" \
            "run $k/$N at $(exact "$t") on HEC $c"
    done
    for k in 5 4; do
        keys ,
        read -r t c < <(run_at $k)
        check_status "$backend: , goes back to run $k/$N at $(exact "$t") on HEC $c" \
            "run $k/$N at $(exact "$t") on HEC $c"
    done
    keys End ,
    read -r t c < <(run_at "$N")
    check_status "$backend: from the log's end, , reaches its last run ($N/$N)" \
        "run $N/$N at $(exact "$t") on HEC $c"
    keys Escape
    sleep 0.3
    if has "Focus: its life"; then
        bad "$backend: Escape left the focus on"; dump
    else
        ok "$backend: Escape ends the focus"
    fi
    keys q
done

# Without UTF-8 the focused runs are '@' on the HEC rows (and nothing else draws '@').
start curses "$LOG" 120x40 LANG=C LC_ALL=C
keys t w o r k e r - 5 Enter
check_status "LANG=C: Enter focuses thread $TID" "thread $TID focused"
if poll eval 'screen | grep -E "^HEC [0-9]" | grep -qF "@"'; then
    ok "LANG=C: its runs are drawn as @"
else
    bad "LANG=C: no @ on the HEC rows"; dump
fi
keys q

summary

#!/usr/bin/env bash
# End-to-end tests of the interactive viewer: drive the real binary in a private tmux
# server (send-keys, capture-pane) on real fixtures, with both terminal backends.
# Prints one line per check and ends with "N passed, N failed"; exit status 1 on failure.
set -u
BIN=${ELOG_BIN:-build/elog-tui}
ROOT=${ELOG_ROOT:-.}
SOCK="elog-e2e-$$"
SESS=e2e
. "$(dirname "$0")/lib.sh"
TMP=$(mktemp -d)
trap 'tmux -L "$SOCK" kill-server 2>/dev/null; rm -rf "$TMP"' EXIT

check_status() {    # check_status NAME TEXT: the last screen line contains TEXT
    if poll status_has "$2"; then
        ok "$1"
    else
        bad "$1 (status line: '$(screen | tail -n 1)', wanted '$2')"
    fi
}
keys() { T send-keys -t e2e "$@"; sleep 0.15; }

# start BACKEND FILE COLSxLINES: the viewer inside sh, which records the terminal
# state after it exits (stty) so we can check it was given back.
start() {
    local backend=$1 file=$2 w=${3%x*} h=${3#*x}
    stop_server
    rm -f "$TMP/exit" "$TMP/stty"
    new_session "$w" "$h" \
        "TERM=xterm-256color $BIN --backend $backend $file; echo \"exit=\$?\" > $TMP/exit; stty -a > $TMP/stty; sleep 60"
}
exited() {  # exited NAME [STATUS]: the viewer exited STATUS (0), the tty is cooked again
    poll test -s "$TMP/stty"
    if [ "$(cat "$TMP/exit" 2>/dev/null)" = "exit=${2:-0}" ] && grep -q ' icanon' "$TMP/stty" &&
        grep -q ' echo ' "$TMP/stty"; then
        ok "$1"
    else
        bad "$1 ($(cat "$TMP/exit" 2>/dev/null || echo 'did not exit'))"
    fi
}

for backend in curses tickit; do
    start $backend "$ROOT/fixtures/threaded-n4.eventlog" 110x32
    check "$backend: opens with one lane per HEC" "HEC 3"
    check "$backend: header names the file" "threaded-n4.eventlog"
    keys ']'
    check_status "$backend: ] goes to the next GC" "GC"
    keys '+' '+' '+'
    keys 'p'
    check "$backend: p lists collections by pause" "collections by pause"
    keys Enter
    keys '?'
    check "$backend: ? shows the key help" "zoom in 2x"
    keys Escape
    keys 'e'
    check "$backend: e shows the event list" "events near"
    keys 'e'
    T resize-window -t e2e -x 20 -y 5; sleep 0.3
    T resize-window -t e2e -x 1 -y 1; sleep 0.3
    T resize-window -t e2e -x 110 -y 32
    check "$backend: survives resizing to 1x1 and back" "HEC 3"
    keys q
    exited "$backend: q quits and gives the terminal back"

    start $backend "$ROOT/fixtures/markers.eventlog" 100x30
    check "$backend: markers fixture opens" "HEC 0"
    keys n
    check_status "$backend: n jumps to the first marker" "marker 1/"
    keys n
    check_status "$backend: n again to the second" "marker 2/"
    keys N
    check_status "$backend: N back to the first" "marker 1/"
    keys m
    check "$backend: m lists the markers" "phase:start"
    keys Escape
    keys / h e l p e r - b Enter
    check_status "$backend: / searches marker text" "helper-b"
    keys C-c
    exited "$backend: C-c quits and gives the terminal back"

    for sig in TERM INT HUP; do
        start $backend "$ROOT/fixtures/sparks.eventlog" 100x30
        check "$backend: sparks fixture opens (SIG$sig next)" "HEC 1"
        pkill -$sig -f "^$BIN --backend $backend $ROOT/fixtures/sparks.eventlog"
        exited "$backend: SIG$sig restores the terminal, exit 128+N" $((128 + $(kill -l $sig)))
    done
done

# Edge cases: 64 capabilities, a log with no events, one capability with huge
# payloads, a truncated log.
SYNTH=${ELOG_SYNTH:-build/elog-synth}
if [ -x "$SYNTH" ]; then
    "$SYNTH" --caps 64 --size 1M --seed 7 --labels -o "$TMP/c64.eventlog" 2>/dev/null
    start curses "$TMP/c64.eventlog" 100x30
    check "64 caps: opens" "HEC 0"
    for ((i = 0; i < 64; i++)); do T send-keys -t e2e j; done
    check "64 caps: the lanes scroll to HEC 63" "HEC 63"
    keys q
    exited "64 caps: quits cleanly"
    "$SYNTH" --caps 1 --size 300K --seed 8 --labels --max-payload -o "$TMP/one.eventlog" 2>/dev/null
    start tickit "$TMP/one.eventlog" 90x25
    check "one cap, 64 KB payloads: opens" "HEC 0"
    keys n
    check_status "one cap: n names the marker" "marker 1/"
    keys m
    keys Escape
    sleep 0.3
    keys q
    exited "one cap: quits cleanly"
fi
head -c "$(grep -abo datb "$ROOT/fixtures/markers.eventlog" | head -1 | cut -d: -f1)" \
    "$ROOT/fixtures/markers.eventlog" > "$TMP/empty.eventlog"
printf 'datb\377\377' >> "$TMP/empty.eventlog"
start curses "$TMP/empty.eventlog" 80x20
check "a log with no events says so" "no events"
keys ']' n p
keys Escape
sleep 0.3
keys e '?'
keys Escape
sleep 0.3
keys q
exited "no events: keys do nothing harmful, q quits"
start curses "$ROOT/fixtures/killed.eventlog" 100x30
check "a killed program's log opens with a warning" "log cut short"
keys q
exited "killed log: quits cleanly"

summary

#!/usr/bin/env bash
# End-to-end: the viewer's file changes on disk while it is open. Truncated under the
# mapping (the viewer must survive reading the lost pages, say "file changed on disk at
# byte N" in the header and keep working), then grown (a program still writing its
# log: "file changed on disk"). Private tmux server, both backends. Prints one line per
# check and "N passed, N failed"; exit status 1 on failure.
set -u
BIN=${ELOG_BIN:-build/elog-tui}
ROOT=${ELOG_ROOT:-.}
SOCK="elog-chg-$$"
SESS=chg
. "$(dirname "$0")/lib.sh"
TMP=$(mktemp -d)
trap 'tmux -L "$SOCK" kill-server 2>/dev/null; rm -rf "$TMP"' EXIT

keys() { T send-keys -t chg "$@"; sleep 0.15; }
start() {       # start BACKEND FILE
    stop_server
    rm -f "$TMP/exit"
    new_session 120 32 "TERM=xterm-256color $BIN --backend $1 $2 2>$TMP/stderr;
             echo \"exit=\$?\" > $TMP/exit; sleep 60"
}
exited() {      # exited NAME [STATUS]: the viewer exited STATUS (0), not killed by a signal
    poll test -s "$TMP/exit"
    if [ "$(cat "$TMP/exit" 2>/dev/null)" = "exit=${2:-0}" ]; then
        ok "$1"
    else
        bad "$1 ($(cat "$TMP/exit" 2>/dev/null || echo 'did not exit');" \
            "stderr: $(cat "$TMP/stderr"))"
    fi
}

for backend in curses tickit; do
    log="$TMP/log-$backend.eventlog"
    cp "$ROOT/fixtures/threaded-n4.eventlog" "$log"
    start $backend "$log"
    check "$backend: opens" "HEC 3"
    truncate -s 5000 "$log"
    # Read what is gone: the event pane, the end of the log, the lists.
    keys e End PageDown
    keys e ']' ']' p Enter t End Enter End
    check "$backend: truncation is reported in the header" "file changed on disk at byte 5000" 5
    keys '?'
    check "$backend: keys still work after the truncation" "zoom in 2x"
    keys Escape
    keys q
    # The data changed while being read: the warning, and exit 1 as the commands.
    exited "$backend: quits after the truncation, exit 1" 1
    want="elog-tui: warning: $log changed while being read (data from byte 5000 is gone)"
    if [ "$(cat "$TMP/stderr")" = "$want" ]; then
        ok "$backend: says on exit what was lost"
    else
        bad "$backend: stderr '$(cat "$TMP/stderr")', wanted '$want'"
    fi

    cp "$ROOT/fixtures/markers.eventlog" "$log"
    start $backend "$log"
    check "$backend: opens again" "HEC 0"
    printf 'more' >> "$log"
    check "$backend: a grown file is noticed when idle" "file changed on disk" 5
    keys q
    exited "$backend: quits normally after the growth"
done

summary

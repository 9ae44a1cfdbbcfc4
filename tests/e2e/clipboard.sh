#!/usr/bin/env bash
# End-to-end test of copy as command through OSC 52 on a real terminal emulator: tmux with
# `set-clipboard on` takes the OSC 52 sequence the viewer writes and stores its text as a
# paste buffer. With both backends, `y` then Enter (the stats command) or Down Enter (the
# snapshot command) must leave in `tmux show-buffer` exactly the command the list and the
# status line show, for the view and for a range selection; the copied stats command
# runs and prints the range's statistics; with `set-clipboard off` no buffer appears (the
# buffer is the viewer's doing). Prints one line per check and ends with "N passed, N
# failed"; exit status 1 on failure.
set -u
BIN=${ELOG_BIN:-build/elog-tui}
ROOT=${ELOG_ROOT:-.}
SOCK="elog-e2e-clip-$$"
SESS=e2e
. "$(dirname "$0")/lib.sh"
trap 'tmux -L "$SOCK" kill-server 2>/dev/null' EXIT

keys() { T send-keys -t "$SESS" "$@"; sleep 0.15; }
LOG="$ROOT/fixtures/threaded-n4.eventlog"

# start BACKEND on|off: the viewer on $LOG, 200x40 (a status line long enough for the
# whole command), the server's set-clipboard as given.
start() {
    new_session 200 40 "env TERM=xterm-256color $BIN --backend $1 $LOG; sleep 60" || return 1
    T set -s set-clipboard "$2"
    poll has "HEC 0" || { bad "$1: could not start"; dump; }
}

# The text after "copied (OSC 52): " on the status line, when there.
copied() { screen | tail -n 1 | sed -n 's/^.*copied (OSC 52): //p' | sed 's/ *$//'; }
buffer() { T show-buffer 2>/dev/null; }
# buffer_is TEXT: tmux's newest paste buffer is exactly TEXT.
buffer_is() { [ "$(buffer)" = "$1" ]; }

# copy_check BACKEND WHAT LIST_KEYS PATTERN: y, then LIST_KEYS; the status line's command
# matches PATTERN (an extended regex), appears in the list, and is the paste buffer.
copy_check() {
    local backend=$1 what=$2 pick=$3 pattern=$4 cmd
    T delete-buffer 2>/dev/null
    keys y
    if ! wait_for "elog-tui stats"; then bad "$backend: y lists no commands"; dump; return; fi
    keys $pick
    if ! poll eval '[ -n "$(copied)" ]'; then
        bad "$backend: $what: the status line does not say what was copied"; dump; return
    fi
    cmd=$(copied)
    if [[ $cmd =~ $pattern ]]; then ok "$backend: $what: the command ($cmd)"
    else bad "$backend: $what: '$cmd' is not the expected command"; fi
    if poll buffer_is "$cmd"; then
        ok "$backend: $what: tmux's paste buffer holds exactly that command (OSC 52)"
    else
        bad "$backend: $what: paste buffer '$(buffer)', want '$cmd'"
    fi
    LAST=$cmd
}

RE_TIME='[0-9.]+(ns|us|ms|s)'
# A log time as the viewer prints it exactly: 1.290554ms, 149.789084ms, 2.050750353s.
exact() {
    local t=$1
    if ((t >= 1000000000)); then printf '%d.%09ds' $((t / 1000000000)) $((t % 1000000000))
    elif ((t >= 1000000)); then printf '%d.%06dms' $((t / 1000000)) $((t % 1000000))
    elif ((t >= 1000)); then printf '%d.%03dus' $((t / 1000)) $((t % 1000))
    else printf '%dns' "$t"; fi
}
# The starts of the first and third collections by the dump: a collection starts when the
# cap that requested it starts its GC.
GC_STARTS=$(awk '/requesting (parallel|sequential) GC/ { req[$3 + 0] = 1; next }
    /: starting GC/ { c = $3 + 0; if (req[c]) { print $1 + 0; req[c] = 0 } }' "$LOG.ref017")
GC1=$(exact "$(sed -n 1p <<<"$GC_STARTS")")
GC3=$(exact "$(sed -n 3p <<<"$GC_STARTS")")
for backend in curses tickit; do
    start $backend on || continue
    copy_check $backend "the view, stats" Enter \
        "^elog-tui stats $LOG --from $RE_TIME --to $RE_TIME\$"
    copy_check $backend "the view, snapshot" "Down Enter" \
        "^elog-tui snapshot $LOG --size [0-9]+x[0-9]+ --from $RE_TIME --to $RE_TIME\$"
    # A selection from the first collection's start to the third's, exact to the ns.
    keys ] Space ] ] Space
    copy_check $backend "a selection, stats" Enter \
        "^elog-tui stats $LOG --from $GC1 --to $GC3\$"
    # The copied command, run with this build's binary, prints the range's statistics.
    out=$(eval "$BIN ${LAST#elog-tui }" 2>&1)
    if [ $? = 0 ] && grep -q "GC" <<<"$out"; then
        ok "$backend: the copied command runs and prints the range's statistics"
    else
        bad "$backend: the copied command failed: $out"
    fi
    keys q
done

# set-clipboard off: tmux ignores OSC 52, so no buffer appears though the status says
# what was sent.
start curses off
T delete-buffer 2>/dev/null
keys y
wait_for "elog-tui stats" >/dev/null
keys Enter
poll eval '[ -n "$(copied)" ]'
sleep 0.3
if [ -z "$(buffer)" ]; then
    ok "set-clipboard off: no paste buffer (the buffer above came from the viewer's OSC 52)"
else
    bad "set-clipboard off: a buffer appeared: $(buffer)"
fi
keys q

summary

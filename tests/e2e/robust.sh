#!/usr/bin/env bash
# End-to-end robustness of the interactive viewer, both backends, in a private tmux
# server: long escape sequences and seeded random key floods (then q still quits);
# every catchable signal that ends the program (exit 128+N, `stty -a` identical before
# and after, no mode left on); C-z, kill -TSTP and SIGSTOP/SIGCONT under a job-control
# shell (terminal given back while stopped, raw mode and a full redraw after fg); poor
# TERMs (vt100 falls back, dumb fails in one line); LANG=C (ASCII, both backends draw
# the same screen); every Home/End encoding; list filters take only text.
# Prints one line per check and "N passed, N failed"; exit status 1 on failure.
set -u
BIN=${ELOG_BIN:-build/elog-tui}
ROOT=${ELOG_ROOT:-.}
SOCK="elog-rob-$$"
SESS=rob
. "$(dirname "$0")/lib.sh"
TMP=$(mktemp -d)
trap 'tmux -L "$SOCK" kill-server 2>/dev/null; rm -rf "$TMP"' EXIT
LOG="$ROOT/fixtures/markers.eventlog"

# The pane's terminal modes: alternate screen, cursor shown, mouse reporting, keypad.
modes() { T display -p -t rob '#{alternate_on}#{cursor_flag}#{mouse_any_flag}#{keypad_flag}'; }
lacks() { ! has "$1"; }
check_status() {    # check_status NAME TEXT: the last screen line contains TEXT
    if poll status_has "$2"; then
        ok "$1"
    else
        bad "$1 (status: '$(screen | tail -n 1)', wanted '$2')"
    fi
}
keys() { T send-keys -t rob "$@"; sleep 0.1; }
hex() { T send-keys -t rob -H "$@"; }

# start BACKEND [ENV...] -- [ARGS...]: the viewer on $LOG inside sh, which records the
# tty settings before and after, the viewer's pid and its exit status.
start() {
    local backend=$1
    shift
    local env="TERM=xterm-256color"
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do env="$env $1"; shift; done
    [ $# -gt 0 ] && shift
    rm -f "$TMP"/exit "$TMP"/before "$TMP"/after "$TMP"/pid "$TMP"/err
    new_session 100 30 "stty -a > $TMP/before; \
env $env sh -c 'echo \$\$ > $TMP/pid; exec $BIN --backend $backend $LOG $*' 2> $TMP/err; \
echo \"exit=\$?\" > $TMP/exit; stty -a > $TMP/after; sleep 60"
}
viewer_pid() { poll test -s "$TMP/pid" && cat "$TMP/pid"; }
ended() { test -s "$TMP/after"; }
# finished NAME STATUS: the viewer exited with STATUS, the tty settings are exactly
# as before it started and no mode is left on.
finished() {
    if ! poll ended; then
        bad "$1 (did not exit)"
        dump
        return
    fi
    local got
    got=$(cat "$TMP/exit")
    if [ "$got" != "exit=$2" ]; then
        bad "$1 ($got, wanted exit=$2; $(head -c 300 "$TMP/err"))"
    elif ! cmp -s "$TMP/before" "$TMP/after"; then
        bad "$1 (stty -a differs: $(diff "$TMP/before" "$TMP/after" | tr '\n' ' '))"
    elif [ "$(modes)" != "0100" ]; then
        bad "$1 (modes left on: alt,cursor,mouse,keypad = $(modes))"
    else
        ok "$1"
    fi
}

# Seeded random bytes as hex, weighted towards escape sequences; never q, C-c or C-z
# (they would end or suspend the viewer before the flood is over).
flood_hex() {   # flood_hex SEED COUNT
    awk -v seed="$1" -v n="$2" 'BEGIN {
        srand(seed)
        split("1b 5b 4f 50 5d 3b 31 32 3b 7e 9b 9d 90 8f 9c 07 c3 e2 80 4d 3c", w, " ")
        for (i = 0; i < n; i++) {
            if (rand() < 0.5) { printf "%s ", w[int(rand() * 21) + 1]; continue }
            b = int(rand() * 256)
            if (b == 113 || b == 3 || b == 26) b = 65
            printf "%02x ", b
        }
    }'
}

for backend in curses tickit; do
    # --- long escape sequences, then q ---------------------------------------------
    start $backend
    check "$backend: opens" "HEC 0"
    hex 1b 5b $(printf '31 3b %.0s' $(seq 200))          # CSI, 400 parameter bytes, no end
    sleep 0.3
    hex 1b 5d 32 3b $(printf '41 %.0s' $(seq 400))       # OSC, 400 bytes, no ST
    sleep 0.3
    hex 1b 5b $(printf '39 %.0s' $(seq 300)) 6d          # CSI, 300 bytes, ended
    sleep 0.2
    keys End
    check_status "$backend: keys work after long escape sequences" "1.64ms"
    keys q
    finished "$backend: q quits after long escape sequences" 0

    # --- random floods ----------------------------------------------------------------
    start $backend
    check "$backend: opens for the flood" "HEC 0"
    for seed in 1 2 3 4 5 6 7 8; do hex $(flood_hex $seed 600); done
    sleep 0.3
    # Whatever the flood opened (a list, the search prompt, help), Escape closes it.
    keys Escape Escape
    sleep 0.2
    keys Escape
    sleep 0.2
    keys q
    finished "$backend: q quits after a random key flood" 0

    # --- every catchable signal that ends the program ---------------------------------
    for sig in HUP INT QUIT USR1 USR2 PIPE ALRM TERM VTALRM PROF XCPU XFSZ IO PWR STKFLT RTMIN RTMAX; do
        start $backend
        poll has "HEC 0" || { bad "$backend: SIG$sig (viewer did not open)"; continue; }
        num=$(kill -l "$sig")
        kill -"$sig" "$(viewer_pid)"
        finished "$backend: SIG$sig restores the terminal, exit $((128 + num))" $((128 + num))
    done

    # --- poor terminals ---------------------------------------------------------------
    start $backend TERM=vt100
    check "$backend: TERM=vt100 opens" "HEC 0"
    keys q
    finished "$backend: TERM=vt100 quits cleanly" 0
    if [ $backend = tickit ]; then
        # The fallback says so on the status line, beside the header's ASCII note when
        # the locale is not UTF-8 either (that note used to replace it).
        start tickit TERM=vt100 LANG=C LC_ALL=C
        check "tickit: TERM=vt100 says curses is in use" \
            "using curses: libtickit cannot drive TERM=vt100"
        check "tickit: TERM=vt100 LANG=C header still says ASCII" "ASCII: locale is not UTF-8"
        keys q
        finished "tickit: TERM=vt100 LANG=C quits cleanly" 0
    fi
    start $backend TERM=dumb
    if poll ended && [ "$(cat "$TMP/exit")" = "exit=1" ] && grep -q 'TERM=dumb' "$TMP/err" &&
        [ "$(wc -l < "$TMP/err")" = 1 ] && ! grep -q 'Required TI' "$TMP/err"; then
        ok "$backend: TERM=dumb ends with one line naming TERM, exit 1"
    else
        bad "$backend: TERM=dumb ($(cat "$TMP/exit" 2>/dev/null): $(cat "$TMP/err"))"
    fi
    finished "$backend: TERM=dumb leaves the terminal as it was" 1

    # --- Home and End in every encoding -------------------------------------------------
    start $backend
    check "$backend: opens for Home/End" "HEC 0"
    for pair in "1b 5b 34 7e:1b 5b 31 7e" "1b 5b 38 7e:1b 5b 37 7e" "1b 5b 46:1b 5b 48" \
                "1b 4f 46:1b 4f 48"; do
        end=${pair%:*} home=${pair#*:}
        hex $end
        check_status "$backend: End as ${end// /}" "1.64ms"
        hex $home
        check_status "$backend: Home as ${home// /}" "360us"
    done

    # --- list filters take only text ----------------------------------------------------
    for list in m t; do
        keys $list
        keys Right Left Tab F5 BTab
        if poll has "type to filter" && lacks "Right" && lacks "F5"; then
            ok "$backend: $list filter ignores Right Left Tab F5"
        else
            bad "$backend: $list filter took key names"; screen | tail -n 3 | sed 's/^/     | /'
        fi
        keys p h
        check "$backend: $list filter takes text" "filter: ph"
        keys Escape
    done
    keys q
    finished "$backend: quits after the lists" 0

    # --- LANG=C: ASCII, the same screen in both backends --------------------------------
    start $backend "LANG=C" "LC_ALL=C" -- "--no-mouse"
    check "$backend: LANG=C header says ASCII" "ASCII: locale is not UTF-8"
    keys End
    sleep 0.3
    screen > "$TMP/langc-$backend"
    keys q
    finished "$backend: LANG=C quits cleanly" 0
done
if cmp -s "$TMP/langc-curses" "$TMP/langc-tickit" &&
    grep -q '^HEC 0 *[^ ]' "$TMP/langc-curses"; then
    ok "LANG=C: both backends draw the same screen, lanes not blank"
else
    bad "LANG=C: screens differ or lanes blank"
    diff "$TMP/langc-curses" "$TMP/langc-tickit" | head -20 | sed 's/^/     | /'
fi

# --- stop and resume under a job-control shell ---------------------------------------
# start_shell BACKEND: bash with job control in the pane runs a job (a wrapper sh that
# records the tty settings and the exit status, and the viewer).
start_shell() {
    rm -f "$TMP"/exit "$TMP"/before "$TMP"/after "$TMP"/pid "$TMP"/during
    cat > "$TMP/job.sh" <<EOF
stty -a > $TMP/before
sh -c 'echo \$\$ > $TMP/pid; exec $BIN --backend $1 $LOG'
echo "exit=\$?" > $TMP/exit
stty -a > $TMP/after
EOF
    new_session 100 30 "env TERM=xterm-256color PS1='PROMPT\$ ' bash --norc --noprofile -i"
    poll has 'PROMPT$' || echo "no shell prompt" >&2
    keys "sh $TMP/job.sh" Enter
    poll has "HEC 0"
}
# stopped NAME: the shell has the terminal back with no mode left on.
stopped() {
    if ! poll has "Stopped"; then bad "$1 (not stopped)"; dump; return; fi
    keys "stty -a > $TMP/during" Enter
    poll test -s "$TMP/during"
    if cmp -s "$TMP/before" "$TMP/during" && [ "$(modes)" = "0100" ]; then
        ok "$1"
    else
        bad "$1 (modes $(modes); stty: $(diff "$TMP/before" "$TMP/during" | tr '\n' ' '))"
    fi
    rm -f "$TMP/during"
    keys clear Enter
}
running() { [ "$(modes | cut -c1-3)" = "101" ]; }
# resumed NAME: after fg the viewer has redrawn everything and reads keys raw.
resumed() {
    keys fg Enter
    if poll lacks 'PROMPT$' && poll has "HEC 0" && poll running; then
        keys End        # no Enter: the tty must be raw again
        check_status "$1" "1.64ms"
        keys Home
    else
        bad "$1 (no full redraw or modes $(modes))"; dump
    fi
}
for backend in curses tickit; do
    start_shell $backend
    keys C-z
    stopped "$backend: C-z gives the terminal back"
    resumed "$backend: fg after C-z redraws, keys raw"
    kill -TSTP "$(viewer_pid)"
    stopped "$backend: SIGTSTP gives the terminal back"
    resumed "$backend: fg after SIGTSTP redraws, keys raw"
    kill -STOP -- "-$(ps -o pgid= -p "$(viewer_pid)" | tr -d ' ')"
    poll has "Stopped" || bad "$backend: SIGSTOP did not stop"
    keys clear Enter
    resumed "$backend: fg after SIGSTOP takes the terminal again"
    keys q
    if poll ended && [ "$(cat "$TMP/exit")" = "exit=0" ] && cmp -s "$TMP/before" "$TMP/after"; then
        ok "$backend: q after the stops quits, stty -a as before"
    else
        bad "$backend: after the stops ($(cat "$TMP/exit" 2>/dev/null); $(diff "$TMP/before" "$TMP/after" 2>&1 | tr '\n' ' '))"
    fi
done

summary

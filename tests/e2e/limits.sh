#!/usr/bin/env bash
# End-to-end: the viewer under limits, in a private tmux server. Out of memory (ulimit -v
# stepped down on a 24 MB log): the terminal is given back (stty -a the same before and
# after), one line "out of memory", exit 1, never a signal. A FIFO with no writer: it says
# it waits and C-c ends it with 130. Too few descriptors (ulimit -n 5): says so, exit 1.
# ELOG_ASAN=1 skips the ulimit -v part (ASan cannot run under it). Prints one line per
# check and "N passed, N failed"; exit status 1 on failure.
set -u
BIN=${ELOG_BIN:-build/elog-tui}
SYNTH=${ELOG_SYNTH:-build/elog-synth}
SOCK="elog-lim-$$"
SESS=lim
. "$(dirname "$0")/lib.sh"
TMP=$(mktemp -d)
trap 'tmux -L "$SOCK" kill-server 2>/dev/null; rm -rf "$TMP"' EXIT

start() {       # start 'SHELL COMMANDS' (run by bash in a fresh 100x30 session)
    stop_server
    rm -f "$TMP/exit" "$TMP/stderr" "$TMP/stty1" "$TMP/stty2"
    printf '%s\n' "$1" > "$TMP/run.sh"
    new_session 100 30 "bash $TMP/run.sh; sleep 60"
}
# wait_exit SECONDS: until the command wrote its status
wait_exit() { within "$1" test -s "$TMP/exit"; }

# --- out of memory ------------------------------------------------------------------------
if [ "${ELOG_ASAN:-0}" = 1 ]; then
    echo "skip out of memory (ulimit -v cannot be used under AddressSanitizer)"
else
    "$SYNTH" --caps 4 --size 24M --seed 21 -o "$TMP/big.eventlog" 2>/dev/null
    n_oom=0
    for kb in 200000 140000 100000 85000 75000 65000 55000 45000; do
        start "stty -a > $TMP/stty1
(ulimit -v $kb; TERM=xterm-256color $BIN $TMP/big.eventlog; echo \"exit=\$?\" > $TMP/exit)
stty -a > $TMP/stty2"
        if ! wait_exit 2; then
            # Still running: it had enough memory. Quit it.
            T send-keys -t lim q
            wait_exit 5 || { bad "ulimit -v $kb: the viewer does not quit"; continue; }
        fi
        st=$(cat "$TMP/exit")
        within 2 test -s "$TMP/stty2"
        case "$st" in
        exit=0) ;;
        exit=1)
            # stderr goes to the terminal: the line must be on the shell's screen, after
            # the viewer left the alternate screen, and the tty settings as before.
            if screen | grep -q "^elog-tui: $TMP/big.eventlog: out of memory (needed [0-9]* bytes)$"
            then
                n_oom=$((n_oom + 1))
                if cmp -s "$TMP/stty1" "$TMP/stty2"; then
                    ok "ulimit -v $kb: out of memory, one line on the shell's screen, tty restored"
                else
                    bad "ulimit -v $kb: tty settings differ after out of memory"
                    diff "$TMP/stty1" "$TMP/stty2" | sed 's/^/     | /'
                fi
            elif screen | grep -qi "cannot allocate memory\|cannot map"; then
                ok "ulimit -v $kb: cannot map"
            else
                bad "ulimit -v $kb: exit 1 and the screen:"
                screen | grep -v '^$' | sed 's/^/     | /'
            fi ;;
        exit=127) break ;;   # too little to load the program
        *) bad "ulimit -v $kb: $st"; screen | grep -v '^$' | sed 's/^/     | /' ;;
        esac
    done
    if [ "$n_oom" -gt 0 ]; then ok "the viewer ran out of memory $n_oom time(s)"
    else bad "the viewer never ran out of memory"; fi
fi

# --- a FIFO without a writer --------------------------------------------------------------
mkfifo "$TMP/fifo"
start "TERM=xterm-256color $BIN $TMP/fifo 2>$TMP/stderr; echo \"exit=\$?\" > $TMP/exit"
within 3 has "waiting for the program"
if screen | grep -q "fifo: waiting for the program (connecting, or no writer yet)"; then
    ok "FIFO: waiting for a writer"
else
    bad "FIFO: screen \"$(screen)\" stderr \"$(cat "$TMP/stderr" 2>/dev/null)\""
fi
T send-keys -t lim C-c
if wait_exit 1 && [ "$(cat "$TMP/exit")" = "exit=130" ]; then
    ok "FIFO: C-c ends the wait with 130"
else
    bad "FIFO: after C-c: $(cat "$TMP/exit" 2>/dev/null || echo 'still waiting')"
fi

# --- too few file descriptors -------------------------------------------------------------
DEMO=${ELOG_ROOT:-.}/fixtures/demo.eventlog
start "(ulimit -n 5; TERM=xterm-256color $BIN $DEMO 2>$TMP/stderr; echo \"exit=\$?\" > $TMP/exit)"
if wait_exit 5 && [ "$(cat "$TMP/exit")" = "exit=1" ] &&
    grep -q "cannot start the viewer: Too many open files" "$TMP/stderr" &&
    ! grep -q "cannot drive" "$TMP/stderr"; then
    ok "ulimit -n 5: says there are too few descriptors"
else
    bad "ulimit -n 5: $(cat "$TMP/exit" 2>/dev/null); stderr: $(cat "$TMP/stderr" 2>/dev/null)"
    T send-keys -t lim q
fi

summary

# tests/e2e/lib.sh: what every end-to-end script shares — a private tmux server, counting
# and printing checks, polling the screen, starting a session that survives a loaded
# machine, and the closing summary. Source it after setting SOCK (the server's name) and
# SESS (the session's): . "$(dirname "$0")/lib.sh"
PASS=0
FAIL=0

# T ARGS...: tmux on the script's private server $SOCK.
T() { tmux -L "$SOCK" "$@"; }
# ok MESSAGE: count and print a passed check.
ok() { PASS=$((PASS + 1)); echo "ok   $*"; }
# bad MESSAGE: count and print a failed check.
bad() { FAIL=$((FAIL + 1)); echo "FAIL $*"; }
# screen: the text of session $SESS's pane (nothing when there is no server).
screen() { T capture-pane -p -t "$SESS" 2>/dev/null; }
# dump: the screen, indented, to show under a failed check.
dump() { screen | sed 's/^/     | /'; }
# within SECONDS CMD...: until CMD succeeds, polling every 50 ms; 1 when it never did.
within() {
    local i
    for ((i = 0; i < $1 * 20; i++)); do "${@:2}" && return 0; sleep 0.05; done
    return 1
}
# poll CMD...: until CMD succeeds, for up to 5 s.
poll() { within 5 "$@"; }
# has TEXT: the screen shows TEXT now.
has() { screen | grep -qF -- "$1"; }
# status_has TEXT: the screen's last line (the status line) shows TEXT now.
status_has() { screen | tail -n 1 | grep -qF -- "$1"; }
# wait_for TEXT [SECONDS]: until the screen shows TEXT, for up to SECONDS (10).
wait_for() { within "${2:-10}" has "$1"; }
# check NAME TEXT [SECONDS]: ok when the screen shows TEXT within SECONDS (CHECK_SECONDS,
# else 5), else bad with the screen.
check() {
    if wait_for "$2" "${3:-${CHECK_SECONDS:-5}}"; then
        ok "$1"
    else
        bad "$1 (screen lacks '$2')"
        dump
    fi
}
# stop_server: kill the private server and wait (5 s at most) until it has gone.
stop_server() {
    T kill-server 2>/dev/null
    poll eval '! T has-session 2>/dev/null'
}
# new_session COLS LINES COMMAND: a fresh server with session $SESS running COMMAND; a
# loaded machine can fail a start ("server exited unexpectedly"), so up to 3 tries.
new_session() {
    local i
    stop_server
    for ((i = 0; i < 3; i++)); do
        T -f /dev/null new-session -d -s "$SESS" -x "$1" -y "$2" "$3" 2>/dev/null &&
            T has-session -t "$SESS" 2>/dev/null && return 0
        sleep 0.2
    done
    echo "could not start tmux" >&2
    return 1
}
# summary: the closing "N passed, N failed"; its status (the script's last) is 1 on failure.
summary() {
    echo "$PASS passed, $FAIL failed"
    [ "$FAIL" = 0 ]
}

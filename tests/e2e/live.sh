#!/usr/bin/env bash
# End-to-end: the commands over live sources. elog-replay writes logs into standard
# input, a FIFO, a Unix socket, a TCP loopback socket and a growing file, in random
# chunks (mid-event too) with pauses; show, gc, markers (and stats, threads) over the
# stream must print exactly what they print over the file, with the same exit status
# and messages (the source's name for the file's). A stream cut short gives the
# truncation warning `head -c` gives; Ctrl-C ends stats with a report of what came.
# Prints one line per check and "N passed, N failed"; exit status 1 on failure.
set -u
BIN=${ELOG_BIN:-build/elog-tui}
REPLAY=${ELOG_REPLAY:-build/elog-replay}
ROOT=${ELOG_ROOT:-.}
SOCK="elog-live-$$"
SESS=live
. "$(dirname "$0")/lib.sh"
CHECK_SECONDS=10    # the live viewer's checks wait up to 10 s
TMP=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; T kill-server 2>/dev/null
      rm -rf "$TMP"' EXIT

# same NAME SPEC FILE: the saved outputs of the command over SPEC and over FILE agree.
same() {
    local name=$1 spec=$2 file=$3
    sed "s|: $spec|: SRC|g" "$TMP/live.err" | grep -v "waiting for" > "$TMP/live.err2"
    sed "s|: $file|: SRC|g" "$TMP/file.err" > "$TMP/file.err2"
    if ! cmp -s "$TMP/live.out" "$TMP/file.out"; then
        bad "$name: output differs"; diff "$TMP/live.out" "$TMP/file.out" | head -5 | sed 's/^/     | /'
    elif [ "$(cat "$TMP/live.rc")" != "$(cat "$TMP/file.rc")" ]; then
        bad "$name: exit $(cat "$TMP/live.rc"), over the file $(cat "$TMP/file.rc")"
    elif ! cmp -s "$TMP/live.err2" "$TMP/file.err2"; then
        bad "$name: messages differ"; diff "$TMP/live.err2" "$TMP/file.err2" | sed 's/^/     | /'
    else
        ok "$name"
    fi
}

over_file() {   # over_file CMD FILE
    "$BIN" "$1" "$2" > "$TMP/file.out" 2> "$TMP/file.err"
    echo $? > "$TMP/file.rc"
}

wait_port() { within 4 test -s "$TMP/port"; }

# run_source KIND CMD LOG SEED [replay options...]: the command over LOG replayed
# into a source of KIND; outputs in $TMP/live.*.
run_source() {
    local kind=$1 cmd=$2 log=$3 seed=$4
    shift 4
    local r=("$REPLAY" --seed "$seed" "$@" "$log")
    rm -f "$TMP/p.fifo" "$TMP/s.sock" "$TMP/port" "$TMP/grow.eventlog"
    case $kind in
    stdin)
        "${r[@]}" - | timeout 60 "$BIN" "$cmd" - > "$TMP/live.out" 2> "$TMP/live.err"
        echo "${PIPESTATUS[1]}" > "$TMP/live.rc"
        SPEC=-
        return ;;
    fifo)
        mkfifo "$TMP/p.fifo"; SPEC=$TMP/p.fifo
        "${r[@]}" "fifo:$SPEC" & ;;
    unix)
        SPEC=unix:$TMP/s.sock
        "${r[@]}" --delay 200 "$SPEC" & ;;
    tcp)
        "${r[@]}" --port-file "$TMP/port" tcp:0 &
        PIDS+=($!)
        wait_port || { bad "tcp: replay did not listen"; return; }
        SPEC=tcp:127.0.0.1:$(cat "$TMP/port") ;;
    follow)
        SPEC=$TMP/grow.eventlog
        : > "$SPEC"
        "${r[@]}" "file:$SPEC" & ;;
    esac
    PIDS+=($!)
    local extra=()
    [ "$kind" = unix ] && extra=(--wait)
    [ "$kind" = follow ] && extra=(--follow)
    timeout 60 "$BIN" "$cmd" "${extra[@]}" "$SPEC" > "$TMP/live.out" 2> "$TMP/live.err"
    echo $? > "$TMP/live.rc"
    wait "${PIDS[-1]}" 2>/dev/null
}

FX=$ROOT/fixtures
LOGS=("$FX/threaded-n4.eventlog" "$FX/markers.eventlog" "$FX/nonmoving-l.eventlog")
if [ -n "${ELOG_SYNTH:-}" ] && [ -x "${ELOG_SYNTH}" ]; then
    "$ELOG_SYNTH" --size 1M --seed 4 --global-block -o "$TMP/synth.eventlog" 2>/dev/null &&
        LOGS+=("$TMP/synth.eventlog")
fi

# --- every command over every source equals it over the file ------------------------------
# The first log (4 capabilities) and the synthetic one over every source; the others (one
# capability, many markers; the non-moving collector) over two.
seed=1
for log in "${LOGS[@]}"; do
    kinds=(stdin fifo unix tcp follow)
    case $log in
    */markers.eventlog|*/nonmoving-l.eventlog) kinds=(fifo tcp) ;;
    esac
    for kind in "${kinds[@]}"; do
        for cmd in show gc markers; do
            seed=$((seed + 1))
            over_file "$cmd" "$log"
            # the growing file at a rate so it is followed for a while
            if [ "$kind" = follow ]; then
                run_source "$kind" "$cmd" "$log" "$seed" --chunk 1-8000 --rate 4000000
            else
                run_source "$kind" "$cmd" "$log" "$seed" --chunk 1-5000 --pause-every 40 --pause 30
            fi
            same "$kind $cmd $(basename "$log")" "$SPEC" "$log"
        done
    done
done
for cmd in stats threads heap index; do
    log=$FX/threaded-n4.eventlog
    over_file "$cmd" "$log"
    run_source fifo "$cmd" "$log" 7 --chunk 1-3000
    same "fifo $cmd $(basename "$log")" "$SPEC" "$log"
done

# --- streams cut short: the warning `head -c` gives -----------------------------------------
log=$FX/threaded-n4.eventlog
for cut in 20 50001 200000; do
    head -c "$cut" "$log" > "$TMP/cut.eventlog"
    kinds=(stdin tcp)
    [ "$cut" = 50001 ] && kinds=(fifo)
    for kind in "${kinds[@]}"; do
        for cmd in show gc stats; do
            over_file "$cmd" "$TMP/cut.eventlog"
            run_source "$kind" "$cmd" "$log" 3 --chunk 1-4000 --cut "$cut"
            same "$kind $cmd cut at $cut" "$SPEC" "$TMP/cut.eventlog"
        done
    done
done
if grep -q "truncated" "$TMP/live.err"; then ok "a cut stream says it is truncated"
else bad "no truncation warning: $(cat "$TMP/live.err")"; fi

# --- Ctrl-C: stats reports what came ---------------------------------------------------------
rm -f "$TMP/p.fifo"; mkfifo "$TMP/p.fifo"
"$REPLAY" --chunk 60000-60000 --pause-every 1 --pause 5000 "$log" "fifo:$TMP/p.fifo" &
RP=$!
PIDS+=($RP)
"$BIN" stats "$TMP/p.fifo" > "$TMP/live.out" 2> "$TMP/live.err" &
SP=$!
sleep 1.5
kill -INT $SP
wait $SP
echo $? > "$TMP/live.rc"
kill $RP 2>/dev/null; wait $RP 2>/dev/null
head -c 60000 "$log" > "$TMP/cut.eventlog"
over_file stats "$TMP/cut.eventlog"
same "Ctrl-C: stats over the first 60000 bytes" "$TMP/p.fifo" "$TMP/cut.eventlog"

# --- a real GHC program writing +RTS -l -ol FIFO ------------------------------------------
# Only with GHC installed (the suite never needs it). The markers the program wrote, read
# live from its FIFO, are the markers of fixtures/markers.eventlog (a run of the same
# program) as ghc-events dumps them; show over the FIFO ends cleanly and in time order.
if command -v ghc >/dev/null 2>&1; then
    mkdir -p "$TMP/ghc"
    if (cd "$ROOT/fixtures/src" && ghc -O0 -eventlog -rtsopts -outputdir "$TMP/ghc" \
            -o "$TMP/ghc/markers" markers.hs >/dev/null 2>&1); then
        # GHC's RTS opens the log read-write, so it never waits for a reader: a log that
        # fits the pipe is lost if the program ends first. The reader goes first, then.
        for cmd in markers show; do
            rm -f "$TMP/g.fifo"; mkfifo "$TMP/g.fifo"
            timeout 60 "$BIN" "$cmd" "$TMP/g.fifo" > "$TMP/g.$cmd" 2> "$TMP/g.err" &
            reader=$!
            within 10 grep -q "waiting for a writer" "$TMP/g.err"
            (cd "$TMP/ghc" && ./markers +RTS -l "-ol$TMP/g.fifo" -RTS >/dev/null)
            wait "$reader"
            echo $? > "$TMP/g.rc"
            grep -v "waiting for a writer" "$TMP/g.err" > "$TMP/g.err2"
            mv "$TMP/g.err2" "$TMP/g.err"
        done
        cut -f3 "$TMP/g.markers" | tail -n +2 | sort > "$TMP/g.names"
        grep -E '^ *[0-9]+: cap [0-9]+: marker: ' "$FX/markers.eventlog.ref017" |
            sed 's/^ *[0-9]*: cap [0-9]*: marker: //' | sort > "$TMP/ref.names"
        if [ -s "$TMP/ref.names" ] && cmp -s "$TMP/g.names" "$TMP/ref.names"; then
            ok "GHC -ol FIFO: markers live are the program's ($(wc -l < "$TMP/ref.names"))"
        else
            bad "GHC -ol FIFO: markers differ"; diff "$TMP/g.names" "$TMP/ref.names" | head -5
        fi
        if [ "$(cat "$TMP/g.rc")" = 0 ] && [ ! -s "$TMP/g.err" ] &&
            awk -F: '/^Events:/{e=1; next} e && /^ *[0-9]+:/{t=$1+0; if (t<last) bad=1; last=t}
                     END{exit bad}' "$TMP/g.show"; then
            ok "GHC -ol FIFO: show ends cleanly, in time order ($(wc -l < "$TMP/g.show") lines)"
        else
            bad "GHC -ol FIFO: show exit $(cat "$TMP/g.rc"): $(cat "$TMP/g.err")"
        fi
    else
        bad "GHC is installed but could not build fixtures/src/markers.hs"
    fi
else
    echo "skip GHC -ol FIFO test: ghc is not installed (the other tests do not need it)"
fi

# --- the viewer follows a log as it is written ------------------------------------------
view() {        # view SPEC [options]: the viewer in a private tmux server
    stop_server
    rm -f "$TMP/exit"
    new_session 140 30 \
        "TERM=xterm-256color $BIN $* 2>$TMP/stderr; echo \"exit=\$?\" > $TMP/exit; sleep 60"
}
exited() {      # exited NAME STATUS
    poll test -s "$TMP/exit"
    if [ "$(cat "$TMP/exit" 2>/dev/null)" = "exit=$2" ]; then ok "$1"
    else bad "$1 ($(cat "$TMP/exit" 2>/dev/null || echo 'did not exit'); $(cat "$TMP/stderr"))"; fi
}
events() { screen | head -1 | sed -n 's/.* \([0-9][0-9]*\) events.*/\1/p'; }
if command -v tmux >/dev/null 2>&1; then
    big=$FX/sparks.eventlog
    rm -f "$TMP/v.fifo"; mkfifo "$TMP/v.fifo"
    view "$TMP/v.fifo"
    check "viewer: waits for the program" "waiting for the program"
    "$REPLAY" --chunk 1-2000 --rate 40000 "$big" "fifo:$TMP/v.fifo" &
    PIDS+=($!)
    check "viewer: live, following" "following"
    check "viewer: events per second and lag in the header" "ev/s"
    n1=$(events); sleep 1.5; n2=$(events)
    if [ -n "$n1" ] && [ -n "$n2" ] && [ "$n2" -gt "$n1" ]; then ok "viewer: the log grows on screen ($n1 -> $n2 events)"
    else bad "viewer: events did not grow ($n1 -> $n2)"; fi
    T send-keys -t live Left Left
    check "viewer: panning into the past stops following" "F follows" 3
    T send-keys -t live F
    check "viewer: F follows again" "following" 3
    check "viewer: the end marker: program ended" "program ended" 60
    n=$(events); want=$("$BIN" index "$big" | head -1 | sed 's/ events.*//')
    if [ "$n" = "$want" ]; then ok "viewer: all $want events of the log"
    else bad "viewer: $n events on screen, the log has $want"; fi
    T send-keys -t live q
    exited "viewer: q quits with 0" 0
    # a stream cut short: the connection is lost, the viewer keeps what came
    rm -f "$TMP/v.fifo"; mkfifo "$TMP/v.fifo"
    view --alert-pause 100us "$TMP/v.fifo"
    "$REPLAY" --cut 100000 "$big" "fifo:$TMP/v.fifo" &
    PIDS+=($!)
    check "viewer: --alert-pause flashes a long GC pause" "GC pause"
    check "viewer: a cut stream: connection lost" "connection lost"
    check "viewer: the long pauses are counted" "long pause"
    T send-keys -t live q
    exited "viewer: q quits with 0 after a lost connection" 0
    # a file opened while still being written: the header offers F, which follows it
    "$REPLAY" --chunk 1-2000 --rate 50000 "$big" "file:$TMP/grow.eventlog" &
    PIDS+=($!)
    sleep 1
    view "$TMP/grow.eventlog"
    check "viewer: a growing file offers to follow it" "F follows it live"
    T send-keys -t live F
    check "viewer: F on a growing file follows it" "following"
    check "viewer: ... to its end marker" "program ended" 60
    n=$(events)
    if [ "$n" = "$want" ]; then ok "viewer: the followed file's $want events"
    else bad "viewer: $n events on screen after following, the log has $want"; fi
    T send-keys -t live q
    exited "viewer: q quits with 0 after following a file" 0
    T kill-server 2>/dev/null
else
    echo "skip viewer checks: no tmux"
fi

summary

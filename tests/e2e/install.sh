#!/usr/bin/env bash
# Installing: `make install` into a DESTDIR with PREFIX puts the binary, the man page and
# both completions where Debian looks; the installed binary runs (its --version and `gc`
# equal the build's); the installed man page renders; `make uninstall` removes all four.
# Then the bash completion, sourced into a plain bash (no bash-completion package) and
# called through COMP_WORDS: commands, options per command (mmu, worst, ticky, --histogram…),
# --backend/--sort/--format values, *.eventlog files, marker names for --from/--to/--align
# (expected names read from the fixture's ghc-events dump). zsh, when installed, parses the
# zsh completion.
# ELOG_SAN names the sanitizer build to install (as `make SAN=...`). Prints one line per
# check and "N passed, N failed"; exit status 1 on failure.
set -u
BIN=${ELOG_BIN:-build/elog-tui}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SOCKB="elog-bash-$$"    # the tmux server of the bash test; the zsh test's comes later
SOCK=$SOCKB
SESS=bash
. "$(dirname "$0")/lib.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

check_cmd() {   # check_cmd 'description' COMMAND...: ok when the command succeeds
    local what=$1
    shift
    if "$@"; then ok "$what"; else bad "$what"; fi
}

# --- make install / uninstall ---------------------------------------------------------------
DEST=$TMP/dest
PREFIX=/opt/elog
# A make started from `make check` must not join its job server.
if env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$ROOT" install DESTDIR="$DEST" \
    PREFIX="$PREFIX" SAN="${ELOG_SAN:-}" > "$TMP/install.log" 2>&1; then
    ok "make install DESTDIR=... PREFIX=$PREFIX"
else
    bad "make install: $(cat "$TMP/install.log")"
fi
P=$DEST$PREFIX
for f in bin/elog-tui share/man/man1/elog-tui.1 share/bash-completion/completions/elog-tui \
    share/zsh/site-functions/_elog-tui; do
    check_cmd "installed $PREFIX/$f" test -f "$P/$f"
done
check_cmd "the binary is executable (755)" test "$(stat -c %a "$P/bin/elog-tui")" = 755
check_cmd "the man page is 644" test "$(stat -c %a "$P/share/man/man1/elog-tui.1")" = 644
got=$("$P/bin/elog-tui" --version)
want=$("$BIN" --version)
check_cmd "installed --version \"$got\" equals the build's" test "$got" = "$want"
check_cmd "--version is 'elog-tui VERSION'" \
    bash -c '[[ $1 =~ ^elog-tui\ [0-9]+\.[0-9]+\.[0-9]+ ]]' _ "$got"
check_cmd "-V equals --version" test "$("$P/bin/elog-tui" -V)" = "$got"
"$P/bin/elog-tui" gc "$ROOT/fixtures/threaded-n2.eventlog" > "$TMP/gc.installed"
"$BIN" gc "$ROOT/fixtures/threaded-n2.eventlog" > "$TMP/gc.build"
check_cmd "installed binary: gc output equals the build's" \
    cmp -s "$TMP/gc.installed" "$TMP/gc.build"
check_cmd "installed binary: gc has 287 collections (+RTS -s: 271 + 16)" \
    test "$(($(wc -l < "$TMP/gc.installed") - 1))" = 287
check_cmd "the installed bash completion is completions/elog-tui.bash" \
    cmp -s "$P/share/bash-completion/completions/elog-tui" "$ROOT/completions/elog-tui.bash"
if command -v man > /dev/null; then
    MANPATH="$P/share/man" MANWIDTH=80 man elog-tui 2>/dev/null | col -b > "$TMP/man.txt"
    check_cmd "man elog-tui (MANPATH) renders the page" grep -q "elog-tui export" "$TMP/man.txt"
fi
if env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$ROOT" uninstall DESTDIR="$DEST" \
    PREFIX="$PREFIX" SAN="${ELOG_SAN:-}" > "$TMP/uninstall.log" 2>&1; then
    ok "make uninstall"
else
    bad "make uninstall: $(cat "$TMP/uninstall.log")"
fi
left=$(find "$DEST" -type f | wc -l)
check_cmd "uninstall leaves no file ($left left)" test "$left" = 0

# --- bash completion --------------------------------------------------------------------------
# Complete the words given (the last is the one being completed, may be empty) with
# completions/elog-tui.bash (what install copied, checked above), the build's binary
# first on PATH as elog-tui; prints COMPREPLY one a line, sorted.
mkdir -p "$TMP/path"
ln -s "$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")" "$TMP/path/elog-tui"
complete_words() {
    (cd "$ROOT" && PATH="$TMP/path:$PATH" bash --norc --noprofile -c '
        source completions/elog-tui.bash
        COMP_WORDS=("$@")
        COMP_CWORD=$(($# - 1))
        COMP_LINE="$*"
        COMP_POINT=${#COMP_LINE}
        _elog_tui
        printf "%s\n" "${COMPREPLY[@]}"' _ "$@") | sort
}
has_line() {    # has_line WORD: stdin has the line WORD
    grep -qxF -- "$1"
}

out=$(complete_words elog-tui sh)
check_cmd "elog-tui sh<TAB> -> show" has_line show <<< "$out"
out=$(complete_words elog-tui "")
for c in $("$BIN" --list-commands); do
    check_cmd "elog-tui <TAB> offers command $c" has_line "$c" <<< "$out"
done
out=$(complete_words elog-tui --b)
check_cmd "elog-tui --b<TAB> -> --backend" test "$out" = "--backend"
out=$(complete_words elog-tui --backend "")
check_cmd "--backend <TAB> -> curses tickit" test "$out" = $'curses\ntickit'
out=$(complete_words elog-tui gc --s)
check_cmd "gc --s<TAB> -> --sort" test "$out" = "--sort"
out=$(complete_words elog-tui gc f.eventlog --sort "")
check_cmd "gc --sort <TAB> -> pause start" test "$out" = $'pause\nstart'
out=$(complete_words elog-tui threads f.eventlog --sort "")
check_cmd "threads --sort <TAB> -> id runtime" test "$out" = $'id\nruntime'
out=$(complete_words elog-tui ticky f.eventlog --sort "")
check_cmd "ticky --sort <TAB> -> allocs entries" test "$out" = $'allocs\nentries'
out=$(complete_words elog-tui gc -)
check_cmd "gc -<TAB> -> --histogram --json --sort --top" \
    test "$out" = $'--histogram\n--json\n--sort\n--top'
out=$(complete_words elog-tui stats f.eventlog --h)
check_cmd "stats FILE --h<TAB> -> --histogram" test "$out" = "--histogram"
out=$(complete_words elog-tui mmu -)
check_cmd "mmu -<TAB> -> --cap --from --json --to --with-stop" \
    test "$out" = $'--cap\n--from\n--json\n--to\n--with-stop'
out=$(complete_words elog-tui worst f.eventlog --w)
check_cmd "worst FILE --w<TAB> -> --window --with-stop" test "$out" = $'--window\n--with-stop'
out=$(complete_words elog-tui worst f.eventlog --window "")
check_cmd "worst --window <TAB> -> nothing (a duration)" test -z "$out"
out=$(complete_words elog-tui diff fixtures/de)
check_cmd "diff fixtures/de<TAB> -> fixtures/demo.eventlog" test "$out" = fixtures/demo.eventlog
out=$(complete_words elog-tui export --format "")
check_cmd "export --format <TAB> -> chrome perfetto" test "$out" = $'chrome\nperfetto'
out=$(complete_words elog-tui export -)
check_cmd "export -<TAB> -> --format --from --to" test "$out" = $'--format\n--from\n--to'
out=$(complete_words elog-tui markers -)
check_cmd "markers -<TAB> -> --json --messages" test "$out" = $'--json\n--messages'
out=$(complete_words elog-tui fixtures/de)
check_cmd "elog-tui fixtures/de<TAB> -> fixtures/demo.eventlog only ($out)" \
    test "$out" = fixtures/demo.eventlog
# Marker names: what the dump has, as bash needs them quoted.
want=$(sed -n 's/^ *[0-9]*: cap [0-9]*: marker: \(load.*\)$/\1/p' \
    "$ROOT/fixtures/demo.eventlog.ref017" | sort -u | while IFS= read -r m; do
    printf '%q\n' "$m"; done | sort)
out=$(complete_words elog-tui stats fixtures/demo.eventlog --from lo)
check_cmd "stats FILE --from lo<TAB> -> the dump's markers 'load…' ($(echo $want))" \
    test "$out" = "$want"
check_cmd "  … which are two" test "$(wc -l <<< "$out")" = 2
out=$(complete_words elog-tui snapshot fixtures/markers.eventlog --to "phase:w")
check_cmd "snapshot FILE --to phase:w<TAB> -> write (bash replaces what follows the ':')" \
    test "$out" = "write"
out=$(complete_words elog-tui fixtures/demo.eventlog fixtures/demo.eventlog --align lo)
check_cmd "A B --align lo<TAB> -> A's markers 'load…'" test "$out" = "$want"
out=$(complete_words elog-tui snapshot fixtures/demo.eventlog fixtures/demo.eventlog --align lo)
check_cmd "snapshot A B --align lo<TAB> -> A's markers 'load…'" test "$out" = "$want"
n_all=$(complete_words elog-tui export fixtures/markers.eventlog --from "" | wc -l)
n_dump=$(sed -n 's/^ *[0-9]*: cap [0-9]*: marker: //p' "$ROOT/fixtures/markers.eventlog.ref017" \
    | sort -u | wc -l)
check_cmd "export FILE --from <TAB>: every distinct marker of the dump ($n_all, $n_dump)" \
    test "$n_all" = "$n_dump"

# The same in a real interactive bash (no bash-completion package) in tmux, where bash
# itself splits the line (at ':' too) and inserts the completion.
trap 'tmux -L "$SOCKB" kill-server 2>/dev/null; rm -rf "$TMP"' EXIT
new_session 150 30 \
    "cd '$ROOT' && env -i HOME='$TMP' TERM=xterm PATH='$TMP/path:/usr/bin:/bin' \
     bash --norc --noprofile"
T send-keys -t bash "source completions/elog-tui.bash; PS1='bash\\$ '; echo READY" Enter
wait_for READY 5
btab() {        # btab 'LINE' TEXT: type LINE, press Tab, expect TEXT on the screen
    T send-keys -t bash C-u C-l
    sleep 0.2
    T send-keys -t bash -l "$1"
    sleep 0.3
    T send-keys -t bash Tab
    if wait_for "$2" 5; then ok "bash: '$1' + Tab shows '$2'"; else
        bad "bash: '$1' + Tab: no '$2' in: $(screen | grep -v '^$')"; fi
}
btab "elog-tui snapshot fixtures/markers.eventlog --to phase:w" "--to phase:write"
btab 'elog-tui stats fixtures/demo.eventlog --from load\ d' '--from load\ done'
btab "elog-tui export --format p" "--format perfetto"
btab "elog-tui fixtures/de" "elog-tui fixtures/demo.eventlog"
btab "elog-tui sn" "elog-tui snapshot"
T kill-server 2>/dev/null

# --- zsh ---------------------------------------------------------------------------------------
# The zsh completion in a real zsh (zsh -f, compinit, fpath with completions/) in a private
# tmux server: type a line, press Tab, read the screen.
if ! command -v zsh > /dev/null; then
    bad "zsh is needed for the zsh completion test (sh tools/deps.sh installs it)"
else
    check_cmd "zsh parses _elog-tui" zsh -n "$ROOT/completions/_elog-tui"
    SOCK="elog-zsh-$$"
    SESS=zsh
    trap 'tmux -L "$SOCK" kill-server 2>/dev/null; tmux -L "$SOCKB" kill-server 2>/dev/null; \
        rm -rf "$TMP"' EXIT
    new_session 150 30 \
        "cd '$ROOT' && env -i HOME='$TMP' TERM=xterm PATH='$TMP/path:/usr/bin:/bin' zsh -f"
    # (capture-pane drops trailing blanks: expected texts end without one.)
    T send-keys -t zsh "fpath=('$ROOT/completions' \$fpath); autoload -U compinit; compinit -u -D; \
PS1='zsh%% '; print READY" Enter
    wait_for READY 5
    ztab() {        # ztab 'LINE' TEXT [TABS]: type LINE, press Tab (TABS times), expect TEXT
        local line=$1 want=$2 tabs=${3:-1} i
        T send-keys -t zsh C-u C-l
        sleep 0.2
        T send-keys -t zsh -l "$line"
        for ((i = 0; i < tabs; i++)); do
            sleep 0.3
            T send-keys -t zsh Tab
        done
        if wait_for "$want" 5; then ok "zsh: '$line' + Tab shows '$want'"; else
            bad "zsh: '$line' + Tab: no '$want' in: $(screen | grep -v '^$')"; fi
    }
    ztab "elog-tui st" "zsh% elog-tui stats"
    ztab "elog-tui fixtures/de" "elog-tui fixtures/demo.eventlog"
    ztab "elog-tui export --format " "perfetto"
    ztab "elog-tui export --format " "chrome"
    ztab "elog-tui gc fixtures/threaded-n2.eventlog --so" "eventlog --sort"
    ztab "elog-tui threads fixtures/threaded-n2.eventlog --sort " "runtime"
    ztab "elog-tui ticky fixtures/demo.eventlog --sort " "allocs"
    ztab "elog-tui ticky fixtures/demo.eventlog --sort " "entries"
    ztab "elog-tui gc fixtures/demo.eventlog --hi" "eventlog --histogram"
    ztab "elog-tui worst fixtures/demo.eventlog --win" "eventlog --window"
    ztab "elog-tui mmu fixtures/demo.eventlog --with" "eventlog --with-stop"
    ztab "elog-tui wo" "zsh% elog-tui worst"
    ztab "elog-tui fixtures/demo.eventlog fixtures/demo.eventlog --align lo" "load done" 2
    ztab "elog-tui --back" "elog-tui --backend"
    ztab "elog-tui stats fixtures/demo.eventlog --from lo" "load done" 2
    ztab "elog-tui snapshot fixtures/markers.eventlog --to phase:w" "--to phase:write"
    T kill-server 2>/dev/null
fi

summary

#!/bin/sh
# Runs the libFuzzer targets built by `make fuzz`, each for a bounded time, seeded from
# fixtures/, the ghc-events corpus (../shared) and tests/regress/ (the key decoder
# targets keys_*: from fuzz/keys-seeds/, with fuzz/keys.dict), all copied into
# $FUZZ_BUILD/corpus-TARGET (the repository is never written). A crash stops libFuzzer;
# it is recorded (artifact in $FUZZ_BUILD/crashes-TARGET/) and fuzzing resumes for the
# rest of the time, at most FUZZ_MAX_CRASHES times. Prints executions and crashes per
# target; exits 1 if any target crashed.
#   usage: tools/fuzz.sh BUILD_DIR SECONDS TARGET...
set -u
build=$1 seconds=$2
shift 2
max_len=${FUZZ_MAX_LEN:-65536}
max_crashes=${FUZZ_MAX_CRASHES:-5}
root=$(pwd)
status=0
summary=""
for t in "$@"; do
    bin=$build/fuzz_$t
    corpus=$build/corpus-$t
    crashes=$build/crashes-$t
    mkdir -p "$corpus" "$crashes"
    case $t in
    keys_*) seeds="fuzz/keys-seeds/*" dict=fuzz/keys.dict len=4096 ;;
    *) seeds="fixtures/*.eventlog ../shared/corpus/ghc-events-tests/*.eventlog tests/regress/*"
       dict=fuzz/eventlog.dict len=$max_len ;;
    esac
    for f in $seeds; do
        [ -f "$f" ] || continue
        seed=$corpus/seed-$(basename "$f")
        [ -f "$seed" ] || cp "$f" "$seed"
    done
    execs=0 n_crash=0 left=$seconds artifacts=""
    while [ "$left" -gt 0 ] && [ "$n_crash" -lt "$max_crashes" ]; do
        start=$(date +%s)
        log=$build/fuzz_$t.log
        touch "$build/.fuzz-mark-$t"
        "$bin" -max_total_time="$left" -max_len="$len" -timeout=30 -rss_limit_mb=2048 \
            -dict="$root/$dict" -print_final_stats=1 \
            -artifact_prefix="$crashes/" "$corpus" >"$log" 2>&1
        rc=$?
        n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
        # After a crash there are no final stats: take the last progress line's count.
        [ -n "$n" ] || n=$(sed -n 's/^#\([0-9][0-9]*\).*/\1/p' "$log" | tail -n 1)
        execs=$((execs + ${n:-0}))
        if [ "$rc" -ne 0 ]; then
            n_crash=$((n_crash + 1))
            new=$(find "$crashes" -type f ! -name '*.log' -newer "$build/.fuzz-mark-$t" | head -n 1)
            if [ -z "$new" ]; then
                echo "fuzz_$t: exit $rc without an artifact; see $log" >&2
                break
            fi
            artifacts="$artifacts $new"
            cp "$log" "$new.log"
            echo "fuzz_$t: CRASH (exit $rc): $new (report: $new.log)" >&2
        fi
        left=$((left - ($(date +%s) - start)))
        [ "$rc" -eq 0 ] && break
    done
    [ "$n_crash" -eq 0 ] || status=1
    line="fuzz_$t: $execs executions in ${seconds}s, $n_crash crash(es)$artifacts"
    echo "$line"
    summary="$summary$line
"
done
printf '\nfuzz summary:\n%s' "$summary"
exit $status

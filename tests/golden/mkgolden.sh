#!/bin/sh
# Expected outputs for tests/test_newer.c, derived ONLY from the peer suite's
# `ghc-events show` dumps (../shared/corpus/ghc-events-tests/*.reference) with awk —
# never from elog-tui's own output. Run from the repository root:
#   sh tests/golden/mkgolden.sh ../shared/corpus/ghc-events-tests
# Files written (tests/golden/):
#   LOG.ticky.tsv   counter, name, arity, info table (hex, "-" for none), entries,
#                   allocs, allocd, samples — per counter, definition order
#   LOG.heap.tsv    band, peak bytes, peak time, mean over all censuses, last census's
#                   bytes, censuses it is in — per string band (-hd, -hy)
#   LOG.stats.txt   the lines `stats` prints about memory the OS sees and the
#                   non-moving census and pruning
#   LOG.prof.tsv, LOG.prof-window.tsv   `prof` over the whole log and a window (below)
#   synth-hi.heap-censuses.tsv   `heap --censuses` of an elog-synth -hi log (below; needs
#                   build/elog-synth and the reference dumper, REFDUMP)
set -eu
C=${1:-../shared/corpus/ghc-events-tests}
G=tests/golden

for log in ticky-ticky ticky-begin-sample ticky-new ticky-json; do
  awk '
    /ticky counter definition/ {
      line = $0; sub(/^[0-9]+: /, "", line); sub(/^ticky counter definition /, "", line)
      id = line; sub(/,.*/, "", id)
      ar = line; sub(/^[^,]*, arity: /, "", ar); sub(/,.*/, "", ar)
      nm = line; sub(/.*, name: /, "", nm); it = nm; sub(/, itbl: [0-9a-f]+$/, "", nm)
      sub(/.*, itbl: /, "", it)
      if (!(id in def)) { order[++n] = id; def[id] = 1 }
      name[id] = nm; arity[id] = ar; itbl[id] = (it == "0" ? "-" : it)
    }
    /ticky counter sample/ {
      line = $0; sub(/^[0-9]+: /, "", line); sub(/^ticky counter sample /, "", line)
      id = line; sub(/:.*/, "", id)
      e = line; sub(/.*entry count: /, "", e); sub(/,.*/, "", e)
      a = line; sub(/.*, /, "", a)
      split(line, parts, ", ")
      al = parts[2]; sub(/ allocs$/, "", al)
      ad = parts[3]; sub(/ allocd$/, "", ad)
      ent[id] += e; alloc[id] += al; allocd[id] += ad; samp[id]++
      if (!(id in seen)) { seen[id] = 1; if (!(id in def)) { late[++m] = id } }
    }
    END {
      for (i = 1; i <= n; i++) {
        id = order[i]
        printf "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\n", id, name[id], arity[id], itbl[id],
               ent[id], alloc[id], allocd[id], samp[id]
      }
      for (i = 1; i <= m; i++) if (!(late[i] in def))
        printf "%s\t\t0\t-\t%d\t%d\t%d\t%d\n", late[i], ent[late[i]], alloc[late[i]],
               allocd[late[i]], samp[late[i]]
    }' "$C/$log.eventlog.reference" > "$G/$log.ticky.tsv"
done

for log in sleep.hd sleep.hy; do
  awk '
    /start heap prof sample/ { t = $1; sub(/:$/, "", t); nc++; ctime[nc] = t }
    /heap prof sample [0-9]+, residency [0-9]+, label / {
      line = $0; sub(/^[0-9]+: /, "", line)
      r = line; sub(/^heap prof sample [0-9]+, residency /, "", r); sub(/,.*/, "", r)
      lb = line; sub(/^heap prof sample [0-9]+, residency [0-9]+, label /, "", lb)
      if (!(lb in seen)) { seen[lb] = 1; order[++n] = lb }
      key = nc SUBSEP lb
      bytes[key] += r
    }
    END {
      for (i = 1; i <= n; i++) {
        lb = order[i]; peak = 0; pt = 0; sum = 0; cnt = 0
        for (c = 1; c <= nc; c++) {
          k = c SUBSEP lb
          if (k in bytes) { b = bytes[k]; sum += b; cnt++; if (b > peak) { peak = b; pt = ctime[c] } }
        }
        last = ((nc SUBSEP lb) in bytes) ? bytes[nc SUBSEP lb] : 0
        printf "%s\t%d\t%s\t%d\t%d\t%d\n", lb, peak, pt, int(sum / nc), last, cnt
      }
    }' "$C/$log.eventlog.reference" > "$G/$log.heap.tsv"
done

for log in ghc-9.2-events ticky-new ticky-json ticky-begin-sample nonmoving-gc-census \
           nonmoving-gc-census-T23340 nonmoving-gc-pruned-segments; do
  awk '
    /^207: Nonmoving heap census \(size 13\)/ { narrow = 1 }
    /heap stats for heap capset/ {
      mb = $0; sub(/ bytes mblock size.*/, "", mb); sub(/.* /, "", mb)
      bs = $0; sub(/ bytes block size.*/, "", bs); sub(/.* /, "", bs)
    }
    /: size of heap capset/ { v = $NF == "bytes" ? $(NF-1) : $NF; if (v + 0 > maxheap) maxheap = v + 0 }
    /blocks size of heap capset/ { v = $(NF-1) + 0; hasbs = 1; if (v > maxblocks) maxblocks = v }
    /memory returned \(mblocks\)/ {
      line = $0
      cu = line; sub(/.*current\(/, "", cu); sub(/\).*/, "", cu)
      ne = line; sub(/.*needed\(/, "", ne); sub(/\).*/, "", ne)
      re = line; sub(/.*returned\(/, "", re); sub(/\).*/, "", re)
      hasmr = 1; nmr++; ret += re; lastcu = cu; lastne = ne; if (cu + 0 > maxcu) maxcu = cu + 0
    }
    /nonmoving heap census [0-9]+:/ {
      line = $0; sub(/^[0-9]+: /, "", line); sub(/^nonmoving heap census /, "", line)
      b = line; sub(/:.*/, "", b); b += 0   # ghc-events prints the size in bytes for both layouts
      split(line, p, ", "); a = p[1]; sub(/.*: /, "", a); a += 0
      f = p[2] + 0; l = p[3] + 0
      for (i = 1; i <= ncur; i++) if (cb[i] == b) { ncen++; ncur = 0; break }
      ncur++; cb[ncur] = b; ca[ncur] = a; cf[ncur] = f; cl[ncur] = l; ncev++
    }
    /nonmoving segments pruned:/ {
      pr = $0; sub(/.*pruned: /, "", pr); sub(/ pruned.*/, "", pr)
      fr = $0; sub(/.*segments, /, "", fr); sub(/ free.*/, "", fr)
      npr++; prs += pr; lastfr = fr; if (fr + 0 > maxfr) maxfr = fr + 0
    }
    END {
      if (!mb) { mb = 1048576; bs = 4096 }
      peak = int(maxheap / mb); if (maxcu > peak) peak = maxcu
      if (hasbs || hasmr) {
        per = mb / bs; descr = int((64 * per + bs - 1) / bs); usable = peak * (per - descr) * bs
        frag = usable > maxblocks ? int((usable - maxblocks) / 1048576) : 0
        tot = maxheap > peak * mb ? maxheap : peak * mb
        if (hasbs)
          printf "%16d MiB total memory in use (%d MiB lost due to fragmentation)\n", int(tot / 1048576), frag
        printf "elog-tui: memory: peak %d megablocks (%d MiB) allocated from the OS\n", peak, int(peak * mb / 1048576)
        if (hasmr)
          printf "  returned to the OS: %d megablocks over %d major GCs; at the last: %d current, %d needed\n", ret, nmr, lastcu, lastne
        if (hasbs)
          printf "  blocks in use: at most %d bytes (after a GC)\n", maxblocks
      }
      if (ncev) {
        if (ncur) ncen++
        printf "elog-tui: nonmoving heap census: %d census(es), %s; the last:\n", ncen,
               narrow ? "13-byte layout (block size as log2)" : "14-byte layout (block size in bytes)"
        printf "     block size    active    filled  live blocks      live bytes\n"
        ta = tf = tl = tb = 0
        for (i = 1; i <= ncur; i++) {
          printf "  %13d %9d %9d %12d %15d\n", cb[i], ca[i], cf[i], cl[i], cl[i] * cb[i]
          ta += ca[i]; tf += cf[i]; tl += cl[i]; tb += cl[i] * cb[i]
        }
        printf "  %13s %9d %9d %12d %15d\n", "total", ta, tf, tl, tb
      }
      if (npr)
        printf "elog-tui: nonmoving free list pruned %d times: %d segments pruned; %d free segments retained at the last (at most %d)\n", npr, prs, lastfr, maxfr
    }' "$C/$log.eventlog.reference" > "$G/$log.stats.txt"
done

# LOG.prof.tsv / LOG.prof-window.tsv: `prof` (the flat time profile) over the whole log
# and over 100ms..200ms on cap 0, counted from the PROF_SAMPLE_COST_CENTRE lines (stack
# innermost first; MAIN for an empty one) and the cost-centre definitions.
for log in time-prof; do
  for w in all window; do
    if [ $w = all ]; then lo=0; hi=-1; cp=-1; out="$G/$log.prof.tsv"
    else lo=100000000; hi=200000000; cp=0; out="$G/$log.prof-window.tsv"; fi
    awk -v lo=$lo -v hi=$hi -v cp=$cp '
      /^Events:/ { ev = 1; next }
      ev && /^[0-9]+: / {
        t = $1; sub(/:$/, "", t); t += 0
        if (first == "" || t < first) first = t
        if (t > last) last = t
      }
      /: start time profiling, tick interval / {
        iv = $0; sub(/.*tick interval /, "", iv); sub(/ .*/, "", iv); hasiv = 1
      }
      /: cost centre [0-9]+ / {
        line = $0; sub(/^[0-9]+: cost centre /, "", line)
        id = line; sub(/ .*/, "", id)
        rest = line; sub(/^[0-9]+ /, "", rest)
        caf = rest ~ / CAF$/; if (caf) sub(/ CAF$/, "", rest)
        lab = rest; sub(/ in .*/, "", lab)
        mod = rest; sub(/^.* in /, "", mod); src = mod; sub(/ at .*/, "", mod)
        sub(/^.* at /, "", src)
        L[id] = lab; M[id] = mod; S[id] = src; C[id] = caf ? "yes" : "no"
      }
      /: cap no [0-9]+, prof sample [0-9]+, cost centre stack/ {
        t = $1; sub(/:$/, "", t); t += 0
        c = $4; sub(/,/, "", c); c += 0
        if (t < lo || (hi >= 0 && t > hi) || (cp >= 0 && c != cp)) next
        n++
        st = $0; sub(/.*cost centre stack ?/, "", st)
        k = split(st, ids, ", ")
        if (k == 0 || st == "") { inner = "MAIN"; k = 0 } else inner = ids[1]
        ind[inner]++; seen[inner] = 1
        delete once
        for (j = 1; j <= k; j++) if (!(ids[j] in once)) { once[ids[j]] = 1; inh[ids[j]]++; seen[ids[j]] = 1 }
        inh["MAIN"]++
      }
      END {
        if (lo > 0) first = lo
        if (hi >= 0) last = hi
        m = 0
        for (id in seen) if (id != "MAIN" || ind["MAIN"] > 0) { m++; key[m] = id }
        for (i = 2; i <= m; i++) {      # insertion sort: individual, inherited desc, id asc
          x = key[i]; j = i - 1
          while (j >= 1 && before(x, key[j])) { key[j + 1] = key[j]; j-- }
          key[j + 1] = x
        }
        printf "# time profile: %d samples on %s", n, (cp >= 0 ? "cap " cp : "1 capability")
        if (hasiv) printf ", tick interval %d ns (%d ns sampled)", iv, iv * n
        # GHC .prof total ticks: without the RTS cost centres GC, SYSTEM, OVERHEAD_of,
        # DONT_CARE, IDLE
        rts["GC GC"] = rts["SYSTEM SYSTEM"] = rts["OVERHEAD_of PROFILING"] = 1
        rts["DONT_CARE MAIN"] = rts["IDLE IDLE"] = 1
        prog = n
        for (id in seen) if (id != "MAIN" && ((L[id] " " M[id]) in rts)) prog -= ind[id]
        printf ", %d..%d ns; %d outside the RTS%cs own cost centres (the .prof%cs total ticks)\n", first, last, prog, 39, 39
        print "cost_centre\tlabel\tmodule\tsrc_loc\tis_caf\tindividual\tindividual_pct\tinherited\tinherited_pct\tindividual_ns\tinherited_ns\tprof_time_pct"
        for (i = 1; i <= m; i++) {
          id = key[i]
          if (id == "MAIN") { lab = "MAIN"; mod = "MAIN"; src = "<built-in>"; caf = "no" }
          else { lab = L[id]; mod = M[id]; src = S[id]; caf = C[id] }
          printf "%s\t%s\t%s\t%s\t%s\t%d\t%.1f\t%d\t%.1f\t%d\t%d\t", id, lab, mod, src, caf,
                 ind[id], 100 * ind[id] / n, inh[id], 100 * inh[id] / n, ind[id] * iv, inh[id] * iv
          if ((lab " " mod) in rts) print "-"; else printf "%.1f\n", 100 * ind[id] / prog
        }
      }
      function before(a, b) {
        if (ind[a] != ind[b]) return ind[a] > ind[b]
        if (inh[a] != inh[b]) return inh[a] > inh[b]
        if (a == "MAIN") return 0
        if (b == "MAIN") return 1
        return a + 0 < b + 0
      }' "$C/$log.eventlog.reference" > "$out"
  done
done

# synth-hi.heap-censuses.tsv: `heap --censuses` of an elog-synth -hi log (GHC 9.2
# layout), from that log's `ghc-events show` dump (REFDUMP, default /tmp/refdump: the
# reference dumper) — census times, bands, bytes, and each band's IPE entry (address,
# closure type number, table name, source) — with the type, label and module the dump
# does not print taken from the table elog-synth writes (tools/elog-synth.c, synth_ipes)
# and the closure type named by GHC's numbering (rts/storage/ClosureTypes.h).
SYNTH=${SYNTH:-build/elog-synth}
REFDUMP=${REFDUMP:-/tmp/refdump}
if [ -x "$SYNTH" ] && [ -x "$REFDUMP" ]; then
  tmp=$(mktemp)
  "$SYNTH" --ghc 9.2 --heap-profile hi --events 30000 --caps 1 --seed 7 -o "$tmp" >/dev/null 2>&1
  { sed -n '/^} synth_ipes\[\] = {/,/^};/p' tools/elog-synth.c | tr -d '\n' | sed 's/},/}\n/g'
    echo; echo "@@dump"; "$REFDUMP" "$tmp"; } | awk '
    BEGIN {
      split("INVALID_OBJECT CONSTR CONSTR_1_0 CONSTR_0_1 CONSTR_2_0 CONSTR_1_1 CONSTR_0_2 " \
            "CONSTR_NOCAF FUN FUN_1_0 FUN_0_1 FUN_2_0 FUN_1_1 FUN_0_2 FUN_STATIC THUNK " \
            "THUNK_1_0 THUNK_0_1 THUNK_2_0 THUNK_1_1 THUNK_0_2 THUNK_STATIC", ct, " ")
    }
    /^@@dump/ { dump = 1; next }
    !dump && /0x[0-9a-f]+, "/ {
      line = $0; sub(/.*\{ *0x/, "", line)
      addr = line; sub(/,.*/, "", addr)
      n = split(line, q, "\"")
      TY[addr] = q[6]; LB[addr] = q[8]; MO[addr] = q[10]
    }
    dump && /: Info Table: / {
      line = $0; sub(/.*: Info Table: /, "", line)
      addr = line; sub(/:.*/, "", addr)
      rest = line; sub(/^[0-9a-f]+:/, "", rest)
      d = rest; sub(/:.*/, "", d); rest = substr(rest, length(d) + 2)
      nm = rest; sub(/ - .*/, "", nm); src = rest; sub(/^.* - /, "", src)
      IPE[addr] = 1; NM[addr] = nm; CT[addr] = ct[d + 1]; SRC[addr] = src
    }
    dump && /start heap prof sample/ { t = $1; sub(/:$/, "", t) }
    dump && /heap prof sample [0-9]+, residency [0-9]+, label / {
      r = $0; sub(/.*residency /, "", r); sub(/,.*/, "", r)
      lb = $0; sub(/.*, label /, "", lb)
      a = lb; sub(/^0x/, "", a)
      if (a in IPE)
        printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t, lb, r, NM[a], CT[a], TY[a], LB[a], MO[a], SRC[a]
      else
        printf "%s\t%s\t%s\t\t\t\t\t\t\n", t, lb, r
    }
    BEGIN { print "time_ns\tband\tbytes\tinfo_table\tclosure_type\ttype\tlabel\tmodule\tsrc_loc" }
  ' > "$G/synth-hi.heap-censuses.tsv"
  rm -f "$tmp"
fi

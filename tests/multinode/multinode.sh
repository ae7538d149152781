#!/bin/sh
# multinode.sh CASE PARBENCH [ARGS...]: one structural check on a cluster
# of two simulated nodes (run2.sh: nodea and nodeb, N/2 ranks each, ranks
# 0..N/2-1 on nodea, as mpirun fills a node's slots before the next).
# Asserts on structure only (nodes, hosts, link classes, groups, which
# rank is named), never on timings.  Exit 0 pass, 1 fail, 77 skipped
# where unshare --uts is not permitted.
#   topo PB          `parbench topo --tp 2` at 4 ranks
#   nodemap NODEMAP  the node map test binary at 4 ranks, expecting 2 nodes
#   nodemap3 NODEMAP the same at 6 ranks on 3 nodes
#   validate PB CSV  `parbench validate` at 4 ranks: every pair's class
#   validate-fault PB ONE_CORE  slow-rank and slow pair named at 8 ranks
#   validate-pairs PB CSV  --pairs local, rails, leaders at 8 ranks
#   validate-noise PB ONE_CORE  a slowed pair under load: confirmed, noise cleared
#   step PB          `parbench step` with DP across the nodes, checked
#   hang PB HANG_SH  the watchdog across nodes: rank 3 (on nodeb) hangs
set -u
here=$(cd "$(dirname "$0")" && pwd)
run2="$here/run2.sh"
case_=$1 pb=$2
shift 2
if ! unshare --uts true 2>/dev/null; then
    echo "SKIP: unshare --uts is not permitted here: no simulated nodes"
    exit 77
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fail=0
check() { # check REGEX WHY: a line of the output must match REGEX
    grep -Eq -- "$1" "$out" || { echo "FAIL: $2 (no line matches /$1/)"; fail=1; }
}
run() { # run CMD...: output to $out and shown; the exit code in $rc
    # standard error apart, then after the output: the launcher copies a
    # rank's two streams in the chunks it reads, and merged, an error line
    # can land inside a table line (tests/cli_expect.sh)
    "$@" >"$out" 2>"$out.err"
    rc=$?
    cat "$out.err" >>"$out"
    rm -f "$out.err"
    cat "$out"
    [ "$rc" -eq 77 ] && exit 77
}

case $case_ in
topo)
    # 4 ranks, tp 2 (dp fills the rest: 2): TP groups {0,1} and {2,3}
    # lie inside a node, DP groups {0,2} and {1,3} span both
    run "$run2" -np 4 "$pb" topo --tp 2
    [ "$rc" -eq 0 ] || { echo "FAIL: exit $rc"; fail=1; }
    check '^# node map: 2 nodes, 4 ranks$' "the node map does not count 2 nodes"
    # rank, node, host, local/size: 0,1 on nodea (node 0), 2,3 on nodeb
    check '^0 +0 +nodea +0/2 ' "rank 0 is not local rank 0 of 2 on nodea"
    check '^1 +0 +nodea +1/2 ' "rank 1 is not local rank 1 of 2 on nodea"
    check '^2 +1 +nodeb +0/2 ' "rank 2 is not local rank 0 of 2 on nodeb"
    check '^3 +1 +nodeb +1/2 ' "rank 3 is not local rank 1 of 2 on nodeb"
    # the link matrix: a host class (not NET, not X) inside a node, NET
    # across; X on the diagonal
    host='(CORE|L3|NODE|SOCKET|SYS)'
    check "^r0 +X +$host +NET +NET *\$" "row r0 is not X, host class, NET, NET"
    check "^r1 +$host +X +NET +NET *\$" "row r1 is not host class, X, NET, NET"
    check "^r2 +NET +NET +X +$host *\$" "row r2 is not NET, NET, X, host class"
    check "^r3 +NET +NET +$host +X *\$" "row r3 is not NET, NET, host class, X"
    # the layout's groups: TP inside a node, DP and the world across
    check "^tp +2 +$host\$" "the TP group is not within a node"
    check '^dp +2 +NET$' "the DP group does not cross nodes"
    check '^world +4 +NET$' "the world does not cross nodes"
    ;;
nodemap)
    # test_nodemap NODES: 2 nodes of 2 ranks, local ranks 0,1 on each
    run "$run2" -np 4 "$pb" 2
    [ "$rc" -eq 0 ] || { echo "FAIL: exit $rc"; fail=1; }
    check '^node map: 4 ranks on 2 nodes ' "the node map does not count 2 nodes"
    ;;
nodemap3)
    # test_nodemap NODES: 3 nodes of 2 ranks (ranks 0-1, 2-3, 4-5)
    run "$run2" -H nodea:2,nodeb:2,nodec:2 -np 6 "$pb" 3
    [ "$rc" -eq 0 ] || { echo "FAIL: exit $rc"; fail=1; }
    check '^node map: 6 ranks on 3 nodes ' "the node map does not count 3 nodes"
    ;;
validate)
    # the schedule at 4 ranks, 2 per node: one intra-node round (0-1 and
    # 2-3 at once), then one cross-node round, rail-aligned (local rank
    # i with local rank i: 0-2 and 1-3); each row carries its pair's
    # class.  The exit code depends on timings (a pair flagged slow: 1),
    # so 0 and 1 both pass; --min-ratio 0.01 keeps flags rare anyway.
    csv=$1
    rm -f "$csv"
    run "$run2" -np 4 "$pb" validate -b 64K --min-ratio 0.01 --csv "$csv"
    [ "$rc" -le 1 ] || { echo "FAIL: exit $rc"; fail=1; }
    check '^# parbench .* \| validate \| 4 of 4 pairs in 2 of 2 rounds \(1 intra-node, 1 cross-node' \
        "the schedule is not 1 intra-node and 1 cross-node round of 4 pairs"
    cp "$csv" "$out" 2>/dev/null || { echo "FAIL: no CSV at $csv"; exit 1; }
    row=',"validate","sendrecv","pair:'
    host='(CORE|L3|NODE|SOCKET|SYS)'
    for p in 0-1 2-3; do
        check "$row$p\",2,\"$host\"," "pair $p (one node) has no host class"
    done
    for p in 0-2 1-3; do
        check "$row$p\",2,\"NET\"," "pair $p (two nodes, one rail) is not NET"
    done
    n=$(grep -c "$row" "$csv")
    [ "$n" -eq 4 ] || { echo "FAIL: $n pair rows, expected 4 (4 ranks)"; fail=1; }
    ;;
validate-fault)
    # 8 ranks, 4 per node, pinned to one CPU (tests/mpi/one_core.sh) so
    # that load slows a round's pairs alike: 3 intra-node rounds of 4
    # pairs (CORE), then 1 cross-node round of 4 rail pairs (NET), 16
    # pairs.  --fault slow-rank:6 (nodeb's local rank 2) slows its 3
    # local pairs and its rail pair 2-6: the rank is named, slow with
    # every partner.  --fault slow:2-6 slows the rail-2 pair alone: the
    # pair is named, NET, and neither rank (each fine with 3 partners).
    # Ranks yield when they wait (Open MPI does so by itself only when it
    # sees more ranks than slots): 8 ranks spinning on one CPU otherwise
    # hand over only at the end of time slices, and a slowed pair running
    # alone once the others are done (they wait asleep) then looked only
    # 2-5x slower, not 21x; yielding, 8x with every vote below.
    export OMPI_MCA_mpi_yield_when_idle=1
    onecore=$1
    run "$onecore" "$run2" -np 8 "$pb" validate -b 64K --min-ratio 0.5 --fault slow-rank:6
    [ "$rc" -eq 1 ] || { echo "FAIL: slow-rank: exit $rc, expected 1"; fail=1; }
    check '^parbench: validate: 4 of 16 pairs slow, confirmed alone \(below 0\.50 x their class median or 0\.70 x their expected GB/s\): rank 6 slow with every partner \(4 of 4 pairs, bus -\)$' \
        "rank 6 is not named alone as slow with every partner"
    run "$onecore" "$run2" -np 8 "$pb" validate -b 64K --min-ratio 0.5 --fault slow:2-6
    [ "$rc" -eq 1 ] || { echo "FAIL: slow pair: exit $rc, expected 1"; fail=1; }
    check '^parbench: validate: 1 of 16 pairs slow, confirmed alone \(below 0\.50 x their class median or 0\.70 x their expected GB/s\): 2-6 \(NET, bus - -\)$' \
        "pair 2-6 is not named alone as a NET pair"
    ;;
validate-pairs)
    # --pairs at 8 ranks on 2 nodes: local = the 12 intra-node pairs,
    # none NET; rails = the 4 rail pairs, all NET; leaders = 0-4 alone
    # (yielding ranks, as above: 3x faster)
    export OMPI_MCA_mpi_yield_when_idle=1
    csv=$1
    for mode in local:12:0 rails:4:4 leaders:1:1; do
        m=${mode%%:*} rest=${mode#*:}
        want=${rest%%:*} net=${rest#*:}
        rm -f "$csv"
        run "$run2" -np 8 "$pb" validate -b 16K --min-ratio 0.01 --pairs "$m" --expect NET=0.001 \
            --csv "$csv"
        [ "$rc" -le 1 ] || { echo "FAIL: --pairs $m: exit $rc"; fail=1; }
        n=$(grep -c ',"validate",' "$csv" 2>/dev/null)
        k=$(grep -c ',"validate",.*,"NET",' "$csv" 2>/dev/null)
        [ "$n" = "$want" ] && [ "$k" = "$net" ] ||
            { echo "FAIL: --pairs $m: $n rows ($k NET), expected $want ($net NET)"; fail=1; }
    done
    grep -q ',"pair:0-4",2,"NET",' "$csv" || { echo "FAIL: --pairs leaders did not measure 0-4"; fail=1; }
    # one rank per node judged nothing (its one pair alone in its class,
    # no NIC rate on loopback) and passed (issue 32): now an error, exit 2,
    # naming the way out; the same with one rank on each of two nodes
    why='^parbench: validate: none of the 1 pairs measured could be judged: each was alone in its class in its round, and no expected bandwidth is known for NET \(give --expect NET=GB/s\)$'
    run "$run2" -np 8 "$pb" validate -b 16K --pairs leaders
    [ "$rc" -eq 2 ] || { echo "FAIL: --pairs leaders without --expect: exit $rc, expected 2"; fail=1; }
    check "$why" "--pairs leaders without an expectation does not say why nothing was judged"
    run "$run2" -H nodea:1,nodeb:1 -np 2 "$pb" validate -b 16K
    [ "$rc" -eq 2 ] || { echo "FAIL: one rank per node: exit $rc, expected 2"; fail=1; }
    check "$why" "one rank per node does not say why nothing was judged"
    ;;
validate-noise)
    # Confirm, then report (issue 32): 8 ranks on one CPU, rail pair 2-6
    # slowed by --fault, and two busy loops from elsewhere competing for
    # the CPUs throughout.  Before re-measurement, load flagged healthy
    # pairs next to the slowed one.  Now every flagged pair is measured
    # again alone beside a pair of its class, and what holds is reported:
    # no healthy pair is ever called slow, every flagged pair is shown
    # confirmed or cleared, none is left unexamined.  Under this much load
    # the fault itself may not slow 2-6 (its extra exchanges run back to
    # back once the pair has the CPU, while every exchange waits for a
    # time slice): then 2-6, measured alone as fast as its reference, is
    # cleared, which is the truth of that run.  So the verdict may be
    # "2-6 alone" or a pass, never another pair.
    export OMPI_MCA_mpi_yield_when_idle=1
    onecore=$1
    ( while :; do :; done ) & l1=$!
    ( while :; do :; done ) & l2=$!
    run "$onecore" "$run2" -np 8 "$pb" validate -b 64K --min-ratio 0.5 --fault slow:2-6
    kill "$l1" "$l2" 2>/dev/null
    wait "$l1" "$l2" 2>/dev/null
    case $rc in
    1) check '^parbench: validate: 1 of 16 pairs slow, confirmed alone \(.*\): 2-6 \(NET, bus - -\)$' \
           "the verdict does not name 2-6 alone"
       check '^2-6 .*SLOW, confirmed: pair \(alone ' "2-6 is not shown confirmed on re-measurement" ;;
    0) ;;
    *) echo "FAIL: exit $rc, expected 0 or 1"; fail=1 ;;
    esac
    if grep -E '^[0-9]+-[0-9]+ ' "$out" | grep -v '^2-6 ' | grep -q 'SLOW'; then
        echo "FAIL: a pair other than 2-6 was called slow"
        fail=1
    fi
    n=$(grep -Ec '^[0-9]+-[0-9]+ .*(SLOW, confirmed|cleared: fast alone)' "$out")
    if [ "$n" -gt 0 ]; then
        check "^# $n flagged pairs? re-measured alone: [01] confirmed slow, [0-9]+ cleared" \
            "the re-measurement is not summarised for the $n flagged pairs"
    fi
    if grep -q 'not re-measured' "$out"; then
        echo "FAIL: a flagged pair was reported without re-measurement"
        fail=1
    fi
    ;;
step)
    # tp 2, dp 2 at 4 ranks: TP groups inside the nodes, DP groups {0,2}
    # and {1,3} across them; every distinct operation verified
    run "$run2" -np 4 "$pb" step --tp 2 --dp 2 --size 256 --layers 4 --seq 64 --ffn 512 \
        --vocab 512 --heads 8 --kv-heads 8 --compute-scale 0.1 --check --csv /dev/null
    [ "$rc" -eq 0 ] || { echo "FAIL: exit $rc"; fail=1; }
    check '^# check: 0 wrong elements' "the step's check did not report 0 wrong"
    ;;
hang)
    # rank 3 is nodeb's second rank: rank 0's survey, on nodea, must
    # name it across the nodes (hang_named.sh's checks, run2.sh as the
    # launcher: -np 4 puts 2 ranks on each node); -T 3
    exec "$1" 4 3 3 "$run2" "$pb"
    ;;
*)
    echo "FAIL: unknown case $case_"
    exit 2
    ;;
esac
[ "$fail" -eq 0 ] && echo "ok: $case_ across 2 nodes"
exit "$fail"

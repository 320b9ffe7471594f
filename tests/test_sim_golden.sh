#!/bin/sh
# test_sim_golden.sh — the predictions of programs without split-K are those of before it: each
# case of tests/fixtures/sim-golden.txt (graph, hardware, parameters) is simulated with its
# default sProgram and the trace file (every span, the summary, the sProgram) must hash to the
# recorded sha256, byte for byte. A failure means the model's numbers moved. If that is meant (a
# calibration, a model change), regenerate the file with the new CLI:
#   for each case: pipethreader-cli simulate G --hw H [--set S] -o t.json; sha256sum < t.json
# and say in the commit why the numbers changed.
# usage: test_sim_golden.sh PATH/TO/pipethreader-cli
set -u
cli=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 n=0
while read -r sum graph hw set; do
    case "$sum" in '#'* | '') continue ;; esac
    n=$((n + 1))
    what="$graph on $hw${set:+ ($set)}"
    if [ "$set" = "-" ]; then
        "$cli" simulate "$graph" --hw "$hw" -o "$tmp/t.json" >/dev/null 2>"$tmp/err"
    else
        "$cli" simulate "$graph" --hw "$hw" --set "$set" -o "$tmp/t.json" >/dev/null 2>"$tmp/err"
    fi
    rc=$?
    got=$(sha256sum <"$tmp/t.json" 2>/dev/null | cut -c1-64)
    if [ "$rc" -ne 0 ]; then
        echo "FAIL $what: simulate exited $rc: $(head -c 300 "$tmp/err")"; fails=$((fails + 1))
    elif [ "$got" != "$sum" ]; then
        echo "FAIL $what: trace sha256 $got, recorded $sum"; fails=$((fails + 1))
    else
        echo "ok   $what"
    fi
done <"$here/fixtures/sim-golden.txt"
if [ "$n" -lt 20 ]; then echo "FAIL only $n cases read from sim-golden.txt"; fails=$((fails + 1)); fi
echo "$n cases, $fails failed"
[ "$fails" -eq 0 ]

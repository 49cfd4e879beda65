#!/bin/bash
# Run from the repository root: bench/cluster/scaling.sh > bench/cluster/scaling-result.txt
# games/hour of the chu values job (depth 1, 300 games by default, seed 11): one process with 1
# and 2 threads, and the Ray launcher with 1 and 2 worker CPUs (8 tasks), interleaved, twice, on this 2-core
# machine with nothing else running. Prints one line per run. REPS="3" runs other repetitions
# (default "1 2"); GAMES=1200 a longer job (default 300), over which Ray's fixed cost per job
# (its workers' start, bench/cluster/overhead.sh) weighs less.
set -euo pipefail
cd "$(dirname "$0")/../.."
# Elsewhere (the lent GPU machine's 16 cores): B=binary PY=python (with ray importable),
# CPUS="1 2 4" (default "1 2"), TASKS (default 8).
[ -n "${B:-}" ] || source scripts/env.sh
export RAY_AUTH_MODE=disabled RAY_USAGE_STATS_ENABLED=0 RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0
B=${B:-$PWD/target/release/shogilab}
PY=${PY:-$SHOGILAB_CACHE/cluster-venv/bin/python}
D=$(mktemp -d "${TMPDIR:-/tmp}/shogilab-scaling.XXXXXX")
ARGS="-v chu --games ${GAMES:-300} --seed 11 --bootstrap 20"
REPS=${REPS:-1 2}
for rep in $REPS; do
  for n in ${CPUS:-1 2}; do
    s=$(date +%s.%N); $B values $ARGS --threads $n --log $D/single$n-$rep --out $D/r-single$n-$rep > /dev/null 2> $D/single$n-$rep.err; e=$(date +%s.%N)
    echo "rep=$rep single threads=$n wall=$(awk "BEGIN { print $e - $s }") $(grep 'played' $D/single$n-$rep.err)"
    PYTHONPATH=cluster${PYTHONPATH:+:$PYTHONPATH} $PY -m shogilab_ray --num-cpus $n --tasks ${TASKS:-8} --binary $B values -- $ARGS --log $D/ray$n-$rep --out $D/r-ray$n-$rep > $D/ray$n-$rep.out 2> $D/ray$n-$rep.err
    echo "rep=$rep ray cpus=$n $(tail -1 $D/ray$n-$rep.out)"
  done
done
first=single1-${REPS%% *}
for rep in $REPS; do
  for r in single2-$rep ray1-$rep ray2-$rep single1-$rep; do
    [ $r = $first ] && continue
    cmp -s $D/r-$first/chu.csv $D/r-$r/chu.csv && echo "$r: same chu.csv as $first"
  done
done
